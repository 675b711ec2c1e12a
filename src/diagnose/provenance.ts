import type { QAItem } from '../history/record.ts';
import { RecordWords, verifySources } from '../scoring/provenance.ts';

/**
 * Which gold evidence records a design's memory can still produce: a record is recoverable when some memory unit
 * built for the question's history (and date group) verifiably carries it (src/scoring/provenance.ts): a source
 * a unit names without carrying its text does not count. Given as a function (the
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

/**
 * Builds the history → record-ids map from the memories a design stored: each unit's claimed sources checked
 * against the records it was built from, so only verified sources count.
 */
export function provenanceFromMemories(
  memories: Iterable<{
    history: string;
    units: ReadonlyArray<{ text: string; sources: readonly string[] }>;
    records: ReadonlyArray<{ id: string; text: string }>;
  }>,
): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of memories) {
    let set = out.get(m.history);
    if (!set) out.set(m.history, (set = new Set()));
    const words = new RecordWords(m.records);
    for (const u of m.units) for (const s of verifySources(u.text, u.sources, words).verified) set.add(s);
  }
  return out;
}
