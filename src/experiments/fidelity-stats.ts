/**
 * The statistics of supervision fidelity, pure: how well the generated validation split ranked a run's candidates
 * against their official scores (Kendall τ-b and Spearman ρ, both with ties handled), and the official regret of
 * picking by validation. simple-statistics has no Kendall τ and its rank correlation gives tied values distinct
 * ranks, so τ-b is counted by hand here and Spearman is its Pearson correlation over average ranks.
 */
import { sampleCorrelation } from 'simple-statistics';
import { createRng, type Rng } from '../util/rng.ts';

/** Ranks from 1, tied values sharing the mean of the ranks they span (the "fractional" ranking Spearman needs). */
export function averageRanks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => ({ x, i })).sort((a, b) => a.x - b.x);
  const ranks = new Array<number>(xs.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.x === order[start]!.x) end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]!.i] = rank;
    start = end + 1;
  }
  return ranks;
}

/** A correlation rounded a hair outside [−1, 1] (1.0000000000000002 for identical tied ranks) put back inside. */
function clampUnit(r: number): number {
  return Math.min(1, Math.max(-1, r));
}

function checkPaired(x: readonly number[], y: readonly number[]): void {
  if (x.length !== y.length) throw new RangeError(`paired samples differ in length: ${x.length} vs ${y.length}`);
  if ([...x, ...y].some((v) => !Number.isFinite(v))) throw new RangeError('paired samples must be finite numbers');
}

/** Concordant, discordant and one-sided tied pairs of a paired sample. */
export interface PairCounts {
  concordant: number;
  discordant: number;
  /** Pairs tied in x only. */
  tiedX: number;
  /** Pairs tied in y only. */
  tiedY: number;
  /** Pairs tied in both (they count in neither τ-b's numerator nor its denominator). */
  tiedBoth: number;
}

/** Counts every pair (O(n²): a run has tens to hundreds of candidates). */
export function pairCounts(x: readonly number[], y: readonly number[]): PairCounts {
  checkPaired(x, y);
  const c: PairCounts = { concordant: 0, discordant: 0, tiedX: 0, tiedY: 0, tiedBoth: 0 };
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const dx = Math.sign(x[i]! - x[j]!);
      const dy = Math.sign(y[i]! - y[j]!);
      if (dx === 0 && dy === 0) c.tiedBoth++;
      else if (dx === 0) c.tiedX++;
      else if (dy === 0) c.tiedY++;
      else if (dx === dy) c.concordant++;
      else c.discordant++;
    }
  }
  return c;
}

/**
 * Kendall's τ-b: (P − Q) / √((P + Q + Tx)(P + Q + Ty)). Null when it is undefined: fewer than two values, or
 * one side constant (every pair tied), where no ranking exists to agree with.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  const c = pairCounts(x, y);
  const denominator = Math.sqrt((c.concordant + c.discordant + c.tiedX) * (c.concordant + c.discordant + c.tiedY));
  return denominator === 0 ? null : clampUnit((c.concordant - c.discordant) / denominator);
}

/** Spearman's ρ with ties: Pearson's r of the average ranks. Null below two values or when one side is constant. */
export function spearman(x: readonly number[], y: readonly number[]): number | null {
  checkPaired(x, y);
  if (x.length < 2) return null;
  const rx = averageRanks(x);
  const ry = averageRanks(y);
  if (new Set(rx).size < 2 || new Set(ry).size < 2) return null;
  return clampUnit(sampleCorrelation(rx, ry));
}

/** A candidate as fidelity sees it: its validation fitness and one official score. */
export interface RankedCandidate {
  id: string;
  val: number;
  official: number;
}

/** The official regret of picking by validation. */
export interface Regret {
  /** The validation-chosen candidate: highest validation fitness, ties to the earliest given (the search keeps the first). */
  chosen: string;
  chosenOfficial: number;
  /** The candidate with the best official score (ties to the earliest given). */
  bestOfficial: string;
  bestOfficialScore: number;
  /** bestOfficialScore − chosenOfficial (≥ 0). */
  regret: number;
  /** Candidates tied at the top validation fitness (1 when the choice was unambiguous). */
  tiedAtTop: number;
  /** Mean regret over the candidates tied at the top: what picking among them at random would lose. */
  meanRegretOverTies: number;
}

/** Regret over candidates in search order (the order breaks ties). Null for no candidate. */
export function regretOf(candidates: readonly RankedCandidate[]): Regret | null {
  const first = candidates[0];
  if (!first) return null;
  let chosen = first;
  let best = first;
  for (const c of candidates) {
    if (c.val > chosen.val) chosen = c;
    if (c.official > best.official) best = c;
  }
  const tied = candidates.filter((c) => c.val === chosen.val);
  const meanTied = tied.reduce((s, c) => s + c.official, 0) / tied.length;
  return {
    chosen: chosen.id,
    chosenOfficial: chosen.official,
    bestOfficial: best.id,
    bestOfficialScore: best.official,
    regret: best.official - chosen.official,
    tiedAtTop: tied.length,
    // A mean of equal values can round above them; a regret is never negative.
    meanRegretOverTies: Math.max(0, best.official - meanTied),
  };
}

/** Agreement of validation fitness with one official metric over a set of candidates. */
export interface Agreement {
  /** Candidates compared (those with a value of the metric). */
  n: number;
  kendallTauB: number | null;
  spearman: number | null;
  regret: Regret | null;
}

/** τ-b, Spearman and regret of validation fitness against one official metric. */
export function agreementOf(candidates: readonly RankedCandidate[]): Agreement {
  const val = candidates.map((c) => c.val);
  const off = candidates.map((c) => c.official);
  return { n: candidates.length, kendallTauB: kendallTauB(val, off), spearman: spearman(val, off), regret: regretOf(candidates) };
}

/** How reproducible one side's ranking of the candidates is (see {@link splitHalfReliability}). */
export interface SplitHalf {
  /** Mean τ-b between the candidates' mean scores on two disjoint random halves of the questions. */
  meanTauB: number;
  /** 10th and 90th percentile of that τ-b over the splits. */
  p10: number;
  p90: number;
  /** Splits whose τ-b was defined (a split where one half ranks every candidate alike has none). */
  splits: number;
  questions: number;
  candidates: number;
}

/**
 * Split-half reliability of a ranking: the questions are cut into two random halves `splits` times, each candidate
 * is scored by its mean on either half, and τ-b between the two halves' rankings is taken. It bounds what any
 * agreement with this side can show: when two halves of the official questions do not rank the candidates alike,
 * their official differences are within the questions' noise, and validation cannot be expected to reproduce them
 * whatever the generator. At half the questions it is a conservative (low) estimate of the full set's. `scores[c][q]`
 * is candidate c's score on question q (every candidate on the same questions, in the same order). Null with fewer
 * than two questions or three candidates, or when no split gives a defined τ-b.
 */
export function splitHalfReliability(scores: readonly (readonly number[])[], splits = 200, seed = 1): SplitHalf | null {
  const n = scores[0]?.length ?? 0;
  if (scores.length < 3 || n < 2) return null;
  if (scores.some((row) => row.length !== n)) throw new RangeError('every candidate needs a score on every question');
  // Seeded: the splits must be the same on every run of the report.
  const rng = createRng(seed);
  const questions = Array.from({ length: n }, (_, q) => q);
  const taus: number[] = [];
  const mean = (row: readonly number[], qs: readonly number[]): number => qs.reduce((s, q) => s + row[q]!, 0) / qs.length;
  for (let s = 0; s < splits; s++) {
    const order = rng.shuffle(questions);
    const a = order.slice(0, Math.floor(n / 2));
    const b = order.slice(Math.floor(n / 2));
    const t = kendallTauB(
      scores.map((row) => mean(row, a)),
      scores.map((row) => mean(row, b)),
    );
    if (t !== null) taus.push(t);
  }
  if (!taus.length) return null;
  const { count, ...spread } = spreadOf(taus);
  return { ...spread, splits: count, questions: n, candidates: scores.length };
}

/** Mean, 10th and 90th percentile of a list of τ-b values (sorted in place), and how many there are. */
function spreadOf(taus: number[]): { meanTauB: number; p10: number; p90: number; count: number } {
  taus.sort((x, y) => x - y);
  const at = (p: number): number => taus[Math.min(taus.length - 1, Math.floor(p * taus.length))]!;
  return { meanTauB: taus.reduce((s, t) => s + t, 0) / taus.length, p10: at(0.1), p90: at(0.9), count: taus.length };
}

/** Each row's mean over one bootstrap resample of its `size` columns (the same resample for every row). */
function bootstrapMeans(rows: readonly (readonly number[])[], size: number, rng: Rng): number[] {
  const counts = new Uint32Array(size);
  for (let i = 0; i < size; i++) counts[rng.int(size)]!++;
  return rows.map((row) => {
    let t = 0;
    for (let i = 0; i < size; i++) if (counts[i]) t += counts[i]! * row[i]!;
    return t / size;
  });
}

/** The highest validation–official τ-b the official questions leave room for (see {@link officialCeiling}). */
export interface OfficialCeiling {
  /** Mean τ-b between the candidates' official means and their means on a bootstrap resample of the questions. */
  meanTauB: number;
  /** 10th and 90th percentile over the resamples. */
  p10: number;
  p90: number;
  /** Resamples whose τ-b was defined. */
  resamples: number;
  questions: number;
  candidates: number;
}

/**
 * How well any validation set could agree with these official questions: about the τ-b that a validation set measuring
 * each candidate's expected official score exactly (no noise, no bias) would reach. The official ranking is one draw of
 * questions around those expectations; redrawing the questions with replacement moves the candidates' means about as
 * far from the observed ones as the observed ones lie from the expectations (the bootstrap principle), so τ-b between
 * the observed means and a resample's stands for τ-b between the expectations and the observed means. It is at the
 * full set's size, unlike the split-half τ-b, and assumes no score distribution. It errs high: the observed means carry
 * the questions' noise, so they are spread wider than the expectations and resamples agree with them more easily
 * (candidates that differ only by noise get 0.4 to 0.5, not 0). A τ-b target above it therefore cannot be met
 * against these questions by any generator. `scores[c][q]` as in {@link splitHalfReliability}; null with fewer than
 * three candidates or two questions, or when fewer than half the resamples give a defined τ-b.
 */
export function officialCeiling(scores: readonly (readonly number[])[], resamples = 1000, seed = 1): OfficialCeiling | null {
  const n = scores[0]?.length ?? 0;
  if (scores.length < 3 || n < 2) return null;
  if (scores.some((row) => row.length !== n)) throw new RangeError('every candidate needs a score on every question');
  const observed = scores.map((row) => row.reduce((a, b) => a + b, 0) / n);
  // Seeded: the same run gives the same report.
  const rng = createRng(seed);
  const taus: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const t = kendallTauB(observed, bootstrapMeans(scores, n, rng));
    if (t !== null) taus.push(t);
  }
  if (taus.length < resamples / 2) return null;
  const { count, ...spread } = spreadOf(taus);
  return { ...spread, resamples: count, questions: n, candidates: scores.length };
}

/** A bootstrap interval of the validation–official τ-b (see {@link tauInterval}). */
export interface TauInterval {
  /** τ-b between the candidates' mean validation and mean official scores on all items and questions. */
  kendallTauB: number;
  lower: number;
  upper: number;
  level: number;
  resamples: number;
  /** Validation items and official questions every candidate was scored on. */
  items: number;
  questions: number;
}

/**
 * Percentile bootstrap interval of τ-b between two rankings of the same candidates, each by the mean of per-question
 * scores: `validation[c][i]` and `official[c][q]` (every candidate on the same items, in the same order). Each
 * resample redraws the validation items and, apart, the official questions with replacement, so the interval covers
 * the noise of both sets; it does not cover a different generator seed or a different search. Null with fewer than
 * three candidates or two items on a side, or when too few resamples give a defined τ-b (all tied).
 */
export function tauInterval(
  validation: readonly (readonly number[])[],
  official: readonly (readonly number[])[],
  options: { resamples?: number; level?: number; seed?: number } = {},
): TauInterval | null {
  const k = validation.length;
  const n = validation[0]?.length ?? 0;
  const m = official[0]?.length ?? 0;
  if (official.length !== k) throw new RangeError(`tauInterval: ${k} candidates on validation, ${official.length} official`);
  if (k < 3 || n < 2 || m < 2) return null;
  if (validation.some((r) => r.length !== n) || official.some((r) => r.length !== m))
    throw new RangeError('tauInterval: every candidate needs a score on every item');
  const resamples = options.resamples ?? 1000;
  const level = options.level ?? 0.95;
  const mean = (row: readonly number[]) => row.reduce((a, b) => a + b, 0) / row.length;
  const point = kendallTauB(validation.map(mean), official.map(mean));
  if (point === null) return null;
  // Seeded: the same run gives the same report.
  const rng = createRng(options.seed ?? 1);
  const taus: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const t = kendallTauB(bootstrapMeans(validation, n, rng), bootstrapMeans(official, m, rng));
    if (t !== null) taus.push(t);
  }
  if (taus.length < resamples / 2) return null;
  taus.sort((a, b) => a - b);
  const alpha = (1 - level) / 2;
  const at = (p: number) => taus[Math.min(taus.length - 1, Math.max(0, Math.floor(p * taus.length)))]!;
  return { kendallTauB: point, lower: at(alpha), upper: at(1 - alpha), level, resamples: taus.length, items: n, questions: m };
}

/** How one group of validation items (a generator template) ranks the candidates against the official ranking. */
export interface GroupAgreement {
  group: string;
  /** Validation items of the group that every candidate was scored on. */
  items: number;
  /** Between the candidates' mean score on the group's items and their official score. */
  kendallTauB: number | null;
  spearman: number | null;
}

/**
 * Per group of validation items (e.g. the template that wrote them), Kendall τ-b and Spearman ρ between the
 * candidates' mean per-item score on that group and their official score: which parts of a generated validation set
 * rank designs the way the official questions do and which against them. Only items every candidate was scored on
 * count, and groups with fewer than `minItems` of them are left out (their means are noise). Largest groups first.
 */
export function groupAgreement(
  candidates: ReadonlyArray<{ official: number; perItem: ReadonlyMap<string, number> }>,
  groupOf: (item: string) => string | undefined,
  minItems = 5,
): GroupAgreement[] {
  if (candidates.length === 0) return [];
  const shared = [...candidates[0]!.perItem.keys()].filter((k) => candidates.every((c) => c.perItem.has(k)));
  const byGroup = new Map<string, string[]>();
  for (const k of shared) {
    const g = groupOf(k);
    if (g !== undefined) byGroup.set(g, [...(byGroup.get(g) ?? []), k]);
  }
  const official = candidates.map((c) => c.official);
  return [...byGroup]
    .filter(([, keys]) => keys.length >= minItems)
    .map(([group, keys]) => {
      const means = candidates.map((c) => keys.reduce((s, k) => s + c.perItem.get(k)!, 0) / keys.length);
      return { group, items: keys.length, kendallTauB: kendallTauB(means, official), spearman: spearman(means, official) };
    })
    .sort((a, b) => b.items - a.items || a.group.localeCompare(b.group));
}
