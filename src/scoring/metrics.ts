/**
 * Per-question metrics that need no model: SQuAD-style token F1 between answers, and evidence recall over the
 * ranked and delivered records.
 */

const PUNCT = /[^\p{L}\p{N}\s]/gu;
const ARTICLES = /(?<![\p{L}\p{N}])(?:a|an|the)(?![\p{L}\p{N}])/gu;

/** SQuAD's `normalize_answer`: lower-case, remove punctuation, drop a/an/the, squeeze whitespace. */
export function squadNormalize(text: string): string {
  return text.toLowerCase().replace(PUNCT, '').replace(ARTICLES, ' ').split(/\s+/).filter(Boolean).join(' ');
}

/** SQuAD token F1 (unstemmed). Two empty answers score 1, one empty answer scores 0. */
export function tokenF1(prediction: string, reference: string): number {
  const p = squadNormalize(prediction).split(' ').filter(Boolean);
  const r = squadNormalize(reference).split(' ').filter(Boolean);
  if (p.length === 0 || r.length === 0) return p.length === r.length ? 1 : 0;
  return overlapF1(p, r);
}

/** F1 of the multiset overlap of two token lists (0 when they share nothing); the core of every token-F1 score. */
export function overlapF1(prediction: readonly string[], reference: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const t of reference) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of prediction) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / prediction.length;
  const recall = same / reference.length;
  return (2 * precision * recall) / (precision + recall);
}

/** The distinct gold evidence record ids of a QA item. */
export function goldRecords(evidence: ReadonlyArray<{ record: string }>): string[] {
  return [...new Set(evidence.map((e) => e.record))];
}

/**
 * Evidence recall@k: |gold ∩ first k ranked records| / |gold|, for each k. Empty object when there is no gold
 * evidence (such questions are left out of recall means).
 */
export function recallAtK(gold: readonly string[], rankedRecords: readonly string[], ks: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  if (gold.length === 0) return out;
  const goldSet = new Set(gold);
  for (const k of ks) {
    let hit = 0;
    const seen = new Set<string>();
    for (const r of rankedRecords.slice(0, k)) {
      if (goldSet.has(r) && !seen.has(r)) {
        hit++;
        seen.add(r);
      }
    }
    out[String(k)] = hit / goldSet.size;
  }
  return out;
}

/**
 * Share of gold evidence records among `records` (the delivered context's records for context recall, the records
 * of the ranked units within the budget for recall at the budget); undefined when there is no gold evidence.
 */
export function contextRecall(gold: readonly string[], deliveredRecords: readonly string[]): number | undefined {
  if (gold.length === 0) return undefined;
  const delivered = new Set(deliveredRecords);
  const goldSet = new Set(gold);
  let hit = 0;
  for (const g of goldSet) if (delivered.has(g)) hit++;
  return hit / goldSet.size;
}
