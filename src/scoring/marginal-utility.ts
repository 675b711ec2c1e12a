/**
 * MemSifter's marginal utility of memory for one question (Tan et al., 2026, "net memory segment contribution" with
 * "discriminative retrieved ranking"): the fixed answerer answers with no memory (score s_0) and with the top F(i)
 * delivered units for Fibonacci tiers F = 1, 2, 3, 5, 8, and
 *
 *   u = Σ_i w_i · (s_F(i) − s_0),   w_i = C(F(i)) − C(F(i+1)) for i < N,  w_N = C(F(N)),  C(k) = 1 / log2(k + 1).
 *
 * The weights telescope to C(F(1)) = 1, so u lies in [−1, 1] when scores lie in [0, 1]: it is 1 when the first unit
 * alone gives a perfect answer that the answerer could not give without memory, and a useful unit placed lower earns
 * less (it only counts from the tier that first contains it). Only the gain over answering without memory counts,
 * so what the answerer already knows earns a design nothing.
 *
 * The host computes it from what was delivered (see {@link verifiedUnitTexts}); a design cannot write it.
 */
import type { QAItem } from '../history/record.ts';
import { isAbstention } from './answer-match.ts';
import { tokenF1 } from './metrics.ts';
import { isLocomoItem, isUnanswerable } from './score.ts';

/** MemSifter's tiers: the Fibonacci numbers up to 8 (its reward uses those ≤ 10). */
export const MARGINAL_TIERS: readonly number[] = [1, 2, 3, 5, 8];

export interface MarginalUtilityResult {
  /** The weighted net gain, in [−1, 1] for scores in [0, 1] (negative when memory hurts). */
  utility: number;
  /** s_0: the score without memory. */
  baseline: number;
  /** s_k for each tier k, with its weight. */
  scores: Array<{ k: number; score: number; weight: number }>;
}

/** C(k) = 1 / log2(k + 1), DCG's discount of position k. */
function discount(k: number): number {
  return 1 / Math.log2(k + 1);
}

/** MemSifter's tier weights for increasing tiers (integers ≥ 1): C(F(i)) − C(F(i+1)), the last C(F(N)). They sum to C(F(1)). */
export function tierWeights(tiers: readonly number[]): number[] {
  tiers.forEach((k, i) => {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`marginal utility tiers must be integers ≥ 1, got ${k}`);
    if (i > 0 && k <= tiers[i - 1]!) throw new RangeError(`marginal utility tiers must increase, got ${tiers.join(', ')}`);
  });
  return tiers.map((k, i) => (i + 1 < tiers.length ? discount(k) - discount(tiers[i + 1]!) : discount(k)));
}

/**
 * Computes the marginal utility over `tiers` (default {@link MARGINAL_TIERS}). `scoreWith(k)` answers with the first
 * k units (k = 0: no memory) and scores the answer in [0, 1]. Calls run one after another (an LLM answerer is
 * rate-limited); the caller may memoise identical contexts.
 */
export async function marginalUtility(
  scoreWith: (k: number) => Promise<number>,
  options: { tiers?: readonly number[] } = {},
): Promise<MarginalUtilityResult> {
  const tiers = options.tiers ?? MARGINAL_TIERS;
  const weights = tierWeights(tiers);
  const baseline = await scoreWith(0);
  const scores: MarginalUtilityResult['scores'] = [];
  let utility = 0;
  for (let i = 0; i < tiers.length; i++) {
    const score = await scoreWith(tiers[i]!);
    scores.push({ k: tiers[i]!, score, weight: weights[i]! });
    utility += weights[i]! * (score - baseline);
  }
  return { utility, baseline, scores };
}

/** Collapses whitespace runs so a unit still matches a context that re-wrapped its lines. */
function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The delivered units, as the answerer read them, in reading order: the texts of the design's declared units that
 * occur (whitespace-insensitively) in the delivered, budget-truncated context, ordered by where they first occur,
 * each distinct text once, at most `max`. A unit cut by the budget, declared but not in the text, empty, or
 * repeating an earlier one is not a unit the answerer received, so it cannot earn marginal utility.
 */
export function verifiedUnitTexts(context: string, units: ReadonlyArray<{ id: string; text: string }>, max: number): string[] {
  const haystack = squeeze(context);
  const found: Array<{ at: number; text: string }> = [];
  const seen = new Set<string>();
  for (const u of units) {
    const text = squeeze(u.text);
    if (text === '' || seen.has(text)) continue;
    const at = haystack.indexOf(text);
    if (at < 0) continue;
    seen.add(text);
    found.push({ at, text });
  }
  found.sort((a, b) => a.at - b.at);
  return found.slice(0, max).map((f) => f.text);
}

/**
 * The answer score s_k: token F1 against the reference (MemSifter's default), with LoCoMo's category-3 rule that
 * drops the explanation after ';'; an unanswerable item scores 1 for declining and 0 otherwise.
 */
export function marginalAnswerScore(item: QAItem, answer: string): number {
  if (isUnanswerable(item)) return answer.trim() !== '' && isAbstention(answer) ? 1 : 0;
  if (answer.trim() === '') return 0;
  const reference = isLocomoItem(item) && item.category === '3' ? item.answer.split(';')[0]!.trim() : item.answer;
  return tokenF1(answer, reference);
}
