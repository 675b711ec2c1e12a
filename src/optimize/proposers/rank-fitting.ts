import type { SourceRecord } from '../../../sandbox/contract.ts';
import { transformSync } from 'esbuild';
import { buildBm25Index } from '../../isolate/host-tools/bm25-index.ts';
import { MONTH_NAMES } from '../../text/date-parse.ts';
import { terms, tokenize } from '../../text/text.ts';
import { RANK_FEATURES } from './case-blocks.ts';
import { timeCues } from './case-analysis.ts';
import { THREAD_SCORES } from './mutation-catalog.ts';
import type { TrainingView } from './types.ts';

/**
 * Fits the weights of the design's learned ranking (`learnedRank` in case-blocks.ts) on the training split, on the
 * host. For each training question the candidates are the parent's own ranking (its training evaluation), and each
 * gets the features the design computes — its incoming rank, its session's BM25 score (against its kind's best), query coverage, a named
 * speaker, a met date cue, the best rank of a thread neighbour — computed here the way the design computes them. The
 * weights maximise the mean of R@10 and recall within the budget depth of the gold evidence by coordinate ascent from the parent's order
 * (rank weight 1, the rest 0), so they only move when the training split says so. Validation then judges the result.
 */

/** One training question's candidates: feature rows in the parent's rank order, and which are evidence. */
export interface RankingExample {
  features: number[][];
  gold: boolean[];
  /** Evidence records of the question (also those the parent never ranked: they bound what reranking can reach). */
  goldCount: number;
  /** Ranked records that fit the context budget (what the search's fitness, context recall, reads). */
  budget: number;
}

/** Depth read as the budget when the parent's budget depth is unknown. */
const DEFAULT_BUDGET = 20;

/** Candidates per question, as the design sees them at most (its TOP_K default). */
export const RANK_DEPTH = 50;
const GRID = [0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3];
const PASSES = 3;

/** The text a Base-BM25-family unit holds for a record ("[8 May 2023 13:56] Ana: (title) text"). */
function unitText(r: SourceRecord): string {
  const m = r.time ? /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?/.exec(r.time) : null;
  const when = m ? `${Number(m[3])} ${MONTH_NAMES[Number(m[2]) - 1] ?? m[2]} ${m[1]}${m[4] ? ` ${m[4]}:${m[5]}` : ''}` : (r.time ?? '');
  return `${when ? `[${when}] ` : ''}${r.speaker ? `${r.speaker}: ` : ''}${r.title ? `(${r.title}) ` : ''}${r.text}`;
}

/** `threadScores` as the design declares it: thread id → BM25 score as a share of the best thread of its kind. */
export type ThreadScores = (
  index: { search(query: string, k: number): ReadonlyArray<{ unit: string; score: number }> },
  query: string,
  kindOf: Readonly<Record<string, string>>,
  depth: number,
) => Map<string, number>;

/**
 * The design's own `threadScores` (THREAD_SCORES in mutation-catalog.ts), compiled once for the host: the weights are
 * fitted on the very feature the design computes, not on a hand-kept copy that could drift from it. It is our own
 * block, not a candidate's code, so it needs no sandbox.
 */
let compiledThreadScores: ThreadScores | undefined;
export const threadScores: ThreadScores = (...args) => {
  // Compiled on first use, not at import: every command loads this module, few fit a ranking.
  compiledThreadScores ??= new Function(`${transformSync(THREAD_SCORES, { loader: 'ts' }).code}\nreturn threadScores;`)() as ThreadScores;
  return compiledThreadScores(...args);
};

/** Builds the examples of the training split from the parent's rankings. */
export function rankingExamples(training: TrainingView): RankingExample[] {
  const perHistory = new Map<
    string,
    {
      records: readonly SourceRecord[];
      byId: Map<string, SourceRecord>;
      position: Map<string, number>;
      sessions: ReturnType<typeof buildBm25Index>;
      threadKind: Record<string, string>;
    }
  >();
  const historyOf = (h: string) => {
    let v = perHistory.get(h);
    if (!v) {
      const records = training.records(h);
      const texts = new Map<string, string[]>();
      const threadKind: Record<string, string> = {};
      for (const r of records) {
        const t = r.thread ?? r.id;
        threadKind[t] = r.kind;
        const list = texts.get(t);
        if (list) list.push(unitText(r));
        else texts.set(t, [unitText(r)]);
      }
      v = {
        records,
        byId: new Map(records.map((r) => [r.id, r])),
        position: new Map(records.map((r, i) => [r.id, i])),
        sessions: buildBm25Index(
          [...texts].map(([id, parts]) => ({ id, text: parts.join(' ') })),
          { stem: true },
        ),
        threadKind,
      };
      perHistory.set(h, v);
    }
    return v;
  };
  const out: RankingExample[] = [];
  for (const item of training.items) {
    const ranked = training.ranked(item.history, item.id)?.slice(0, RANK_DEPTH);
    const goldSet = new Set(item.evidence.map((e) => e.record));
    if (!ranked || ranked.length === 0 || goldSet.size === 0) continue;
    const h = historyOf(item.history);
    const records = h.records;
    const sessionScore = threadScores(h.sessions, item.question, h.threadKind, 50);
    const qTerms = new Set(terms(item.question));
    const words = new Set(tokenize(item.question));
    const cues = timeCues(item.question, item.date);
    const discountAt = new Map(ranked.map((id, i) => [h.position.get(id) ?? -1, 1 / Math.log2(i + 2)]));
    const features = ranked.map((id, i) => {
      const r = h.byId.get(id);
      if (!r) return [1 / Math.log2(i + 2), 0, 0, 0, 0, 0];
      const uTerms = new Set(terms(unitText(r)));
      const coverage = qTerms.size ? [...qTerms].filter((t) => uTerms.has(t)).length / qTerms.size : 0;
      const first = tokenize(r.speaker ?? '')[0];
      const p = h.position.get(id) ?? -9;
      const thread = r.thread ?? r.id;
      let near = 0;
      for (const j of [p - 1, p + 1]) if ((records[j]?.thread ?? records[j]?.id) === thread) near = Math.max(near, discountAt.get(j) ?? 0);
      return [
        1 / Math.log2(i + 2),
        sessionScore.get(thread) ?? 0,
        coverage,
        first && words.has(first) ? 1 : 0,
        r.time && cues.some((c) => r.time!.startsWith(c)) ? 1 : 0,
        near,
      ];
    });
    const budget = training.budgetDepth?.(item.history, item.id) ?? DEFAULT_BUDGET;
    out.push({ features, gold: ranked.map((id) => goldSet.has(id)), goldCount: goldSet.size, budget: Math.max(1, budget) });
  }
  return out;
}

/**
 * Mean over the examples of R@10 (what the official tables report) and recall within the parent's budget depth (what
 * the search's context-recall fitness reads) under the weights.
 */
export function rankingObjective(examples: readonly RankingExample[], weights: readonly number[]): number {
  const r = rankingRecalls(examples, weights);
  return (r.r10 + r.budget) / 2;
}

/** Mean R@10 and mean recall within the budget depth under the weights. */
export function rankingRecalls(examples: readonly RankingExample[], weights: readonly number[]): { r10: number; budget: number } {
  if (examples.length === 0) return { r10: 0, budget: 0 };
  let r10 = 0;
  let budget = 0;
  for (const ex of examples) {
    const order = ex.features
      .map((f, i) => ({ i, s: f.reduce((a, x, k) => a + x * (weights[k] ?? 0), 0) }))
      .sort((a, b) => b.s - a.s || a.i - b.i);
    const recall = (k: number) => order.slice(0, k).filter((o) => ex.gold[o.i]).length / ex.goldCount;
    r10 += recall(10);
    budget += recall(ex.budget);
  }
  return { r10: r10 / examples.length, budget: budget / examples.length };
}

/** What fitting found: the weights, and the training objective before (parent's order) and after. */
export interface RankFit {
  weights: number[];
  before: number;
  after: number;
  examples: number;
}

/**
 * Coordinate ascent over a fixed grid, starting from `start` (default: the parent's order). A weight moves only on a
 * strict improvement, so with nothing to learn the fit returns the start; and never at the cost of recall within
 * the budget depth on the training split (the search's context-recall fitness reads that, and it is near its ceiling
 * on generated questions, so a ranking that trades it for R@10 would be rejected however much R@10 it gains).
 */
export function fitRanking(examples: readonly RankingExample[], start?: readonly number[]): RankFit {
  const weights = start ? [...start] : RANK_FEATURES.map((_, k) => (k === 0 ? 1 : 0));
  const before = rankingObjective(examples, weights);
  const floor = rankingRecalls(examples, weights).budget - 1e-9;
  let best = before;
  for (let pass = 0; pass < PASSES; pass++) {
    let moved = false;
    for (let k = 0; k < weights.length; k++) {
      for (const v of GRID) {
        if (v === weights[k]) continue;
        const trial = [...weights];
        trial[k] = v;
        const r = rankingRecalls(examples, trial);
        const score = (r.r10 + r.budget) / 2;
        if (score > best + 1e-9 && r.budget >= floor) {
          best = score;
          weights[k] = v;
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  return { weights, before, after: best, examples: examples.length };
}
