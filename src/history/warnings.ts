import { HistoryWarningSchema, type HistoryWarning, type HistoryWarningCode, type History, type QAItem } from './record.ts';

/** A warning, validated like everything else we produce. */
export function historyWarning(code: HistoryWarningCode, count: number, message: string): HistoryWarning {
  return HistoryWarningSchema.parse({ code, count, message });
}

/** The replacement characters in a history's records and QA (what a lossy UTF-8 decode left in them). */
export function replacementChars(h: Pick<History, 'records' | 'qa'>): number {
  const text = JSON.stringify([h.records, h.qa]);
  let n = 0;
  for (let i = text.indexOf('\uFFFD'); i !== -1; i = text.indexOf('\uFFFD', i + 1)) n++;
  return n;
}

/**
 * Evidence ids of a question or supervision file that match no record of the history the item is about: such
 * evidence can never be retrieved, so it would score as 0 recall. Returns one warning per affected history id.
 */
export function unknownEvidenceWarnings(
  histories: readonly Pick<History, 'id' | 'records'>[],
  items: readonly QAItem[],
  file: string,
): Map<string, HistoryWarning> {
  const ids = new Map(histories.map((h) => [h.id, new Set(h.records.map((r) => r.id))]));
  const counts = new Map<string, { ids: number; items: number; first: string }>();
  for (const q of items) {
    const known = ids.get(q.history);
    if (!known) continue;
    const missing = q.evidence.filter((e) => !known.has(e.record));
    if (missing.length === 0) continue;
    const c = counts.get(q.history) ?? { ids: 0, items: 0, first: missing[0]!.record };
    c.ids += missing.length;
    c.items++;
    counts.set(q.history, c);
  }
  const out = new Map<string, HistoryWarning>();
  for (const [history, c] of counts) {
    out.set(
      history,
      historyWarning(
        'unknown-evidence',
        c.ids,
        `${file}: ${c.ids} evidence ${c.ids === 1 ? 'id matches' : 'ids match'} no record of this history ` +
          `(in ${c.items} ${c.items === 1 ? 'item' : 'items'}, first '${c.first}'); they count as not retrieved`,
      ),
    );
  }
  return out;
}
