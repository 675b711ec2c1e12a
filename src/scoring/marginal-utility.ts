/**
 * MemSifter-style marginal utility of memory for one question: how much better the answer gets with the top-k
 * retrieved units than with no context at all, weighted toward small k the way DCG discounts rank:
 *
 *   u = Σ_k w_k · (score(top-k) − score(no context)),   w_k = (1 / log2(k + 1)) / Σ_j 1 / log2(j + 1)
 *
 * The caller supplies `answerWith(k)`: answer with the first k units (k = 0: no context) and score the answer.
 */

export interface MarginalUtilityResult {
  /** The weighted utility (in the score's units; negative when memory hurts). */
  utility: number;
  /** score(no context). */
  baseline: number;
  /** score(top-k) for each k, in the order given. */
  scores: Array<{ k: number; score: number; weight: number }>;
}

/** Normalised DCG weights 1/log2(k+1) for the given cut-offs (k ≥ 1). */
export function dcgWeights(ks: readonly number[]): number[] {
  const raw = ks.map((k) => {
    if (!Number.isInteger(k) || k < 1) throw new RangeError(`marginal utility cut-offs must be integers ≥ 1, got ${k}`);
    return 1 / Math.log2(k + 1);
  });
  const sum = raw.reduce((a, b) => a + b, 0);
  return raw.map((w) => w / sum);
}

/**
 * Computes the marginal utility over cut-offs `ks` (default 1…5). Calls `answerWith(0)` once and `answerWith(k)`
 * for each k, one after another (an LLM answerer is rate-limited; the caller may cache).
 */
export async function marginalUtility(
  answerWith: (k: number) => Promise<number>,
  options: { ks?: readonly number[] } = {},
): Promise<MarginalUtilityResult> {
  const ks = options.ks ?? [1, 2, 3, 4, 5];
  const weights = dcgWeights(ks);
  const baseline = await answerWith(0);
  const scores: MarginalUtilityResult['scores'] = [];
  let utility = 0;
  for (let i = 0; i < ks.length; i++) {
    const score = await answerWith(ks[i]!);
    scores.push({ k: ks[i]!, score, weight: weights[i]! });
    utility += weights[i]! * (score - baseline);
  }
  return { utility, baseline, scores };
}
