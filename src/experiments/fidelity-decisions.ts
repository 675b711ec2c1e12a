/**
 * The search's own decisions replayed on official scores. A ranking over all candidates (τ-b) weighs every pair alike,
 * most of which the search never compared; what steers a search is whether each proposal it kept or dropped was
 * better or worse than the parent it came from. So for every decided proposal this compares its validation change
 * over its parent with its official change, and says per proposer move where the generated validation steers the
 * search against the official questions.
 */
import type { FidelityCandidate, FidelityDecision, FidelityDecisions, MoveShare } from './fidelity-schema.ts';

/** Two-sided 95% normal quantile: an official change within this many paired standard errors is not told apart. */
const Z = 1.96;

/**
 * What the official questions say of a change: `better` or `worse` when the mean paired difference is beyond
 * {@link Z} standard errors of zero, else `unclear`. `diffs` are per-question official scores, candidate minus parent.
 */
export function officialVerdict(diffs: readonly number[]): { delta: number; se: number; verdict: FidelityDecision['official'] } {
  const n = diffs.length;
  if (n === 0) return { delta: 0, se: 0, verdict: 'unclear' };
  const delta = diffs.reduce((s, d) => s + d, 0) / n;
  const variance = n > 1 ? diffs.reduce((s, d) => s + (d - delta) ** 2, 0) / (n - 1) : 0;
  const se = Math.sqrt(variance / n);
  const verdict = delta > Z * se && delta > 0 ? 'better' : delta < -Z * se && delta < 0 ? 'worse' : 'unclear';
  return { delta, se, verdict };
}

/**
 * A move's official effect per question over its decisions: the mean of their differences on each question all of
 * them were scored on. Its standard error is over questions, so decisions that share questions (they all do) are not
 * counted as independent evidence.
 */
function pooledDiffs(perDecision: ReadonlyArray<ReadonlyMap<string, number>>): Map<string, number> {
  const [first, ...rest] = perDecision;
  if (!first) return new Map();
  return new Map(
    [...first].flatMap(([q, d]) => {
      let sum = d;
      for (const other of rest) {
        const x = other.get(q);
        if (x === undefined) return [];
        sum += x;
      }
      return [[q, sum / perDecision.length] as const];
    }),
  );
}

/**
 * The validation split item by item, to say where each move's validation change comes from: per candidate with a
 * distinct source, its context recall per item (keys as the official ones: history + id), and each item's generator
 * template.
 */
export interface ValidationItems {
  perItem: ReadonlyMap<string, ReadonlyMap<string, number>>;
  templateOf: (key: string) => string | undefined;
}

/** Per-item differences of two score maps over the items both have. */
function pairedDiffs(mine: ReadonlyMap<string, number>, theirs: ReadonlyMap<string, number>): Map<string, number> {
  return new Map(
    [...mine].flatMap(([q, s]) => {
      const p = theirs.get(q);
      return p === undefined ? [] : [[q, s - p] as const];
    }),
  );
}

/**
 * A move's pooled change split by group (template or category): its per-item differences summed per group and divided
 * by all of them, so the shares add up to the pooled change. Groups that did not move it are left out; the largest
 * shares, either way, come first.
 */
function groupShares(pooled: ReadonlyMap<string, number>, groupOf: (key: string) => string | undefined): MoveShare[] {
  const sums = new Map<string, { items: number; sum: number }>();
  for (const [q, d] of pooled) {
    const t = groupOf(q) ?? 'unknown';
    const g = sums.get(t) ?? { items: 0, sum: 0 };
    g.items += 1;
    g.sum += d;
    sums.set(t, g);
  }
  return [...sums]
    .filter(([, g]) => g.sum !== 0)
    .map(([group, g]) => ({ group, items: g.items, share: g.sum / pooled.size }))
    .sort((a, b) => Math.abs(b.share) - Math.abs(a.share) || a.group.localeCompare(b.group));
}

/**
 * Every proposal the search decided (accepted or rejected) whose parent is among the candidates, both with official
 * per-question scores and with different sources. `perQuestion` maps a candidate with a distinct source (a
 * `sameAs === null` one) to its official score per question; a twin reads its original's. Decisions are in search
 * order; moves come first when validation moved them against their pooled official effect, then by how many decisions
 * the official questions contradict, then by name. With `split.validation`, each move's validation change is also split
 * by the templates of the items that made it; with `split.officialCategoryOf`, its pooled official change by the
 * categories of the official questions.
 */
export function searchDecisions(
  candidates: readonly FidelityCandidate[],
  perQuestion: ReadonlyMap<string, ReadonlyMap<string, number>>,
  split: { validation?: ValidationItems; officialCategoryOf?: (key: string) => string | undefined } = {},
): FidelityDecisions {
  const { validation, officialCategoryOf } = split;
  const byId = new Map(candidates.map((c) => [c.id, c]));
  const scoresOf = (c: FidelityCandidate) => perQuestion.get(c.sameAs ?? c.id);
  const decisions: FidelityDecision[] = [];
  // Each decision's official difference per question, for the moves' pooled effects.
  const diffsOf = new Map<FidelityDecision, Map<string, number>>();
  // And its validation difference per item, when the items are known.
  const valDiffsOf = new Map<FidelityDecision, Map<string, number>>();
  for (const c of candidates) {
    if (c.parent === null || c.parent === undefined || (c.status !== 'accepted' && c.status !== 'rejected')) continue;
    const parent = byId.get(c.parent);
    const mine = scoresOf(c);
    const theirs = parent ? scoresOf(parent) : undefined;
    if (!parent || !mine || !theirs || parent.contentHash === c.contentHash) continue;
    const diffs = pairedDiffs(mine, theirs);
    const { delta, se, verdict } = officialVerdict([...diffs.values()]);
    const accepted = c.status === 'accepted';
    const decision: FidelityDecision = {
      id: c.id,
      parent: parent.id,
      move: c.proposer ?? 'unknown',
      accepted,
      valDelta: c.valFitness - parent.valFitness,
      officialDelta: delta,
      officialSe: se,
      official: verdict,
      agrees: verdict === 'unclear' ? null : accepted === (verdict === 'better'),
    };
    decisions.push(decision);
    diffsOf.set(decision, diffs);
    const valMine = validation?.perItem.get(c.sameAs ?? c.id);
    const valTheirs = validation?.perItem.get(parent.sameAs ?? parent.id);
    if (valMine && valTheirs) valDiffsOf.set(decision, pairedDiffs(valMine, valTheirs));
  }
  const moves = new Map<string, FidelityDecision[]>();
  for (const d of decisions) {
    const same = moves.get(d.move);
    if (same) same.push(d);
    else moves.set(d.move, [d]);
  }
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const byMove = [...moves].map(([move, ds]) => {
    const meanValDelta = mean(ds.map((d) => d.valDelta));
    const officialPooled = pooledDiffs(ds.map((d) => diffsOf.get(d)!));
    const pooled = officialVerdict([...officialPooled.values()]);
    const valDiffs = ds.map((d) => valDiffsOf.get(d));
    const valByTemplate =
      validation && valDiffs.every((v) => v !== undefined) ? groupShares(pooledDiffs(valDiffs), validation.templateOf) : undefined;
    return {
      move,
      decisions: ds.length,
      accepted: ds.filter((d) => d.accepted).length,
      agree: ds.filter((d) => d.agrees === true).length,
      disagree: ds.filter((d) => d.agrees === false).length,
      meanValDelta,
      meanOfficialDelta: mean(ds.map((d) => d.officialDelta)),
      officialSe: pooled.se,
      official: pooled.verdict,
      against: (pooled.verdict === 'better' && meanValDelta < 0) || (pooled.verdict === 'worse' && meanValDelta > 0),
      ...(valByTemplate ? { valByTemplate } : {}),
      ...(officialCategoryOf ? { officialByCategory: groupShares(officialPooled, officialCategoryOf) } : {}),
    };
  });
  byMove.sort((a, b) => Number(b.against) - Number(a.against) || b.disagree - a.disagree || a.move.localeCompare(b.move));
  return {
    decisions,
    agree: decisions.filter((d) => d.agrees === true).length,
    disagree: decisions.filter((d) => d.agrees === false).length,
    unclear: decisions.filter((d) => d.agrees === null).length,
    byMove,
  };
}
