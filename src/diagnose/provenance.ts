import type { QAItem } from '../history/record.ts';

/**
 * Which gold evidence records a design's memory can still produce: a record is recoverable when it is among the
 * `sources` of some memory unit built for the question's history (and date group). Given as a function (the
 * evaluator knows the date groups), a map history → record ids, or a flat set when record ids are unique.
 */
export type Provenance =
  | ((history: string, record: string, item: QAItem) => boolean)
  | ReadonlyMap<string, ReadonlySet<string>>
  | ReadonlySet<string>;

/** Normalises any {@link Provenance} to a predicate. */
export function recoverableFn(provenance: Provenance): (history: string, record: string, item: QAItem) => boolean {
  if (typeof provenance === 'function') return provenance;
  if (provenance instanceof Map) {
    const byHistory = provenance as ReadonlyMap<string, ReadonlySet<string>>;
    return (history, record) => byHistory.get(history)?.has(record) ?? false;
  }
  const flat = provenance as ReadonlySet<string>;
  return (_history, record) => flat.has(record);
}

/** Builds the history → record-ids map from the memories a design stored (units carry their sources). */
export function provenanceFromMemories(
  memories: Iterable<{ history: string; units: ReadonlyArray<{ sources: readonly string[] }> }>,
): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of memories) {
    let set = out.get(m.history);
    if (!set) out.set(m.history, (set = new Set()));
    for (const u of m.units) for (const s of u.sources) set.add(s);
  }
  return out;
}
