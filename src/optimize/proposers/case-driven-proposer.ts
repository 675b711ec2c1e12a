import { applyEdits } from '../../design/apply-edits.ts';
import type { EditOp } from '../../design/edit-ops.ts';
import { mineBridges } from './bridge-mining.ts';
import { describeProfile, failureProfile, positionsOf, type CaseSignal, type FailureProfile } from './case-analysis.ts';
import {
  BRIDGE_QUERY,
  CASE_REQUIRES,
  DATE_BOOST,
  DATE_CONSTANTS,
  DIVERSIFY,
  DIVERSITY_CONSTANTS,
  LEARNED_RANK,
  RECENCY_BOOST,
  RECENCY_CONSTANTS,
  SPEAKER_BOOST,
  SPEAKER_CONSTANTS,
  bridgeTable,
  casePipeline,
  rankWeights,
} from './case-blocks.ts';
import { MUTATION_OPERATORS, threadScoreEdits, type OperatorTarget } from './mutation-catalog.ts';
import { createMutationProposer, declaredNames } from './offline-mutation.ts';
import { FUSE_RECORDS, PASSAGE_REQUIRES, RECORD_FUSION_CONSTANTS, RECORD_FUSION_REQUIRES, passageEdits } from './passage-blocks.ts';
import { RANK_DEPTH, fitRanking, rankingExamples } from './rank-fitting.ts';
import type { Proposal, ProposalContext, Proposer, TrainingView } from './types.ts';

/** What a move is given to write its edits. */
interface MoveInput {
  has: (name: string) => boolean;
  /** Whether the design has the optional `add` stage (moves that change what a unit is must keep store and add alike). */
  hasAddStage?: boolean;
  markers: (marker: string) => boolean;
  training: TrainingView | undefined;
}

/** A move the failure profile can call for. */
interface CaseMove {
  name: string;
  /** How strongly each signal calls for the move: its priority is Σ share(signal) × weight. */
  signals: Partial<Record<CaseSignal, number>>;
  target: OperatorTarget;
  why: string;
  /** Present in the source once the move was applied. */
  marker: string;
  requires: readonly string[];
  /** The edits and what was fitted, or null when there is nothing to write (no bridge mined, no ranking gain). */
  build(input: MoveInput): { edits: EditOp[]; detail: string } | null;
}

/** A design's optional `add` stage, as a method of the design object. */
const ADD_STAGE = /^\s+(?:async\s+)?add\s*\(/m;
/** Below this priority a move is not called for by the cases (the catalog fallback explores instead). */
const MIN_PRIORITY = 0.1;
/** Priority kept per earlier rejection of the same move in the run. */
const REJECTION_DISCOUNT = 0.5;
/** A fitted ranking must raise the training objective (mean of R@10 and budget recall) by at least this much to be proposed. */
const MIN_RANK_GAIN = 0.005;

const slot = (name: string, code: string, constants?: string) => (input: MoveInput) => ({
  edits: [
    ...casePipeline(input.has),
    ...(constants ? [{ op: 'add-helper' as const, code: constants }] : []),
    { op: 'replace-function' as const, name, code },
  ],
  detail: name,
});

const catalogMove = (name: string, signals: CaseMove['signals']): CaseMove => {
  const op = MUTATION_OPERATORS.find((o) => o.name === name);
  if (!op) throw new Error(`no catalog operator ${name}`);
  return {
    name,
    signals,
    target: op.targets[0]!,
    why: op.why,
    marker: op.marker,
    requires: op.requires,
    build: (input) => ({ edits: op.edits(input.has, input.markers), detail: 'catalog block' }),
  };
};

/** The moves, each tied to the failure signals that call for it. */
export const CASE_MOVES: readonly CaseMove[] = [
  {
    name: 'lexical-bridges',
    signals: { 'lexical-gap': 1 },
    target: 'retrieval',
    why: 'expand each query term with the evidence words the training questions were answered with (a mined bridge table)',
    marker: '@block bridge:table',
    requires: CASE_REQUIRES,
    build(input) {
      if (!input.training) return null;
      const bridges = mineBridges(input.training);
      const n = Object.keys(bridges).length;
      if (n === 0) return null;
      return {
        edits: [
          ...casePipeline(input.has),
          { op: 'add-helper', code: bridgeTable(bridges) },
          { op: 'replace-function', name: 'bridgeQuery', code: BRIDGE_QUERY },
        ],
        detail: `${n} bridged terms mined from ${input.training.items.length} training pairs`,
      };
    },
  },
  {
    name: 'speaker-boost',
    signals: { speaker: 1 },
    target: 'retrieval',
    why: 'favour units said by the person the question names',
    marker: '@block speaker:named',
    requires: CASE_REQUIRES,
    build: slot('speakerBoost', SPEAKER_BOOST, SPEAKER_CONSTANTS),
  },
  {
    name: 'date-boost',
    signals: { time: 1 },
    target: 'retrieval',
    why: "favour units dated on the day, month or year the question's date phrases resolve to",
    marker: '@block date:resolved',
    requires: CASE_REQUIRES,
    build: slot('dateBoost', DATE_BOOST, DATE_CONSTANTS),
  },
  {
    name: 'recency-boost',
    signals: { recent: 1 },
    target: 'retrieval',
    why: "favour units dated in the weeks before the question's day, with a bonus that halves every RECENCY_HALF_LIFE days",
    marker: '@block recency:asked',
    requires: CASE_REQUIRES,
    build: (input) =>
      input.has('bridgeQuery') && !input.has('recencyBoost') ? null : slot('recencyBoost', RECENCY_BOOST, RECENCY_CONSTANTS)(input),
  },
  {
    name: 'session-diversity',
    signals: { 'multi-session': 1 },
    target: 'retrieval',
    why: 'spread the ranking over sessions so evidence from several sessions can all be delivered',
    marker: '@block diversity:sessions',
    requires: CASE_REQUIRES,
    build: slot('diversify', DIVERSIFY, DIVERSITY_CONSTANTS),
  },
  {
    name: 'learned-rank',
    signals: { 'near-miss': 0.8, speaker: 0.2, time: 0.2, session: 0.2 },
    target: 'retrieval',
    why: 'rerank the candidates by a linear combination of rank, session score, coverage, speaker, date and neighbour features',
    marker: '@block rank:learned',
    requires: CASE_REQUIRES,
    build(input) {
      if (!input.training) return null;
      const fit = fitRanking(rankingExamples(input.training));
      if (fit.examples === 0 || fit.after < fit.before + MIN_RANK_GAIN) return null;
      return {
        edits: [
          ...casePipeline(input.has),
          { op: 'add-helper', code: rankWeights(fit.weights, RANK_DEPTH) },
          ...threadScoreEdits(input.has),
          { op: 'replace-function', name: 'learnedRank', code: LEARNED_RANK },
        ],
        detail:
          `weights [${fit.weights.join(', ')}] fitted on ${fit.examples} training questions, ` +
          `training (R@10 + budget recall)/2 ${fit.before.toFixed(3)} → ${fit.after.toFixed(3)}`,
      };
    },
  },
  {
    name: 'passage-units',
    // Long evidence is lost to the budget whatever the ranking, so the cue outweighs a ranking signal's.
    signals: { 'long-unit': 1.5 },
    target: 'storage',
    why:
      "store long records as passages (a turn's user part apart from the reply, long texts split at sentence ends) and keep " +
      'the best passage per record, so more evidence records fit the budget',
    marker: '@block units:passages',
    requires: PASSAGE_REQUIRES,
    build(input) {
      const edits = passageEdits(input.has, input.hasAddStage ?? false);
      return edits ? { edits, detail: 'passages of at most PASSAGE_WORDS words' } : null;
    },
  },
  {
    name: 'record-fusion',
    // Long evidence still lost once records are passages: its passages each hold too little of the question, while
    // the record as a whole holds it (the move needs passage units, so it follows them).
    signals: { 'long-unit': 1 },
    target: 'retrieval',
    why:
      "fuse each passage's score with its whole record's BM25 score, so a record that matches the question across " +
      'sentences lifts its best passage',
    marker: '@block records:fused',
    requires: RECORD_FUSION_REQUIRES,
    build: slot('fuseRecords', FUSE_RECORDS, RECORD_FUSION_CONSTANTS),
  },
  catalogMove('session-fusion', { session: 0.8 }),
  catalogMove('index-window', { 'short-unit': 0.6, neighbour: 0.8 }),
  catalogMove('query-prf', { 'lexical-gap': 0.5 }),
  catalogMove('neighbour-packing', { neighbour: 0.6 }),
  catalogMove('time-boost', { time: 0.4 }),
];

/** The moves in the order the profile calls for them (highest priority first; below MIN_PRIORITY left out). */
export function rankMoves(profile: FailureProfile, moves: readonly CaseMove[] = CASE_MOVES): Array<{ move: CaseMove; priority: number }> {
  return moves
    .map((move) => ({
      move,
      priority: Object.entries(move.signals).reduce((s, [sig, w]) => s + profile.shares[sig as CaseSignal] * (w ?? 0), 0),
    }))
    .filter((m) => m.priority >= MIN_PRIORITY)
    .sort((a, b) => b.priority - a.priority || (a.move.name < b.move.name ? -1 : 1));
}

/**
 * The default offline code-space proposer: it reads each failure case for why the evidence was lost
 * (case-analysis.ts), aggregates the reasons into a profile, and proposes the move the profile calls for most that
 * the parent has not had yet — a bridge table mined from the training pairs, speaker or date cues, session
 * diversity, a ranking fitted on the training split, or a catalog block. Mined and fitted values are computed here
 * on the host and written into the design. When no move is called for (or all were tried on this parent) it falls
 * back to the catalog proposer's constant tweaks and combinations.
 */
export function createCaseDrivenProposer(options: { moves?: readonly CaseMove[] } = {}): Proposer {
  const moves = options.moves ?? CASE_MOVES;
  const fallback = createMutationProposer();
  return {
    name: 'case-driven',
    async propose(ctx: ProposalContext): Promise<Proposal | null> {
      if (ctx.repair) return null;
      const { source, id } = ctx.parent;
      const names = declaredNames(source);
      const tried = new Set(ctx.revisions.filter((r) => r.parent === id && r.operator).map((r) => r.operator!));
      const position = ctx.training ? positionsOf((h) => ctx.training!.records(h)) : undefined;
      const profile = failureProfile(ctx.failures, position);
      const input: MoveInput = {
        has: (n) => names.has(n),
        hasAddStage: ADD_STAGE.test(source),
        markers: (m) => source.includes(m),
        training: ctx.training,
      };
      // A move the validation split keeps rejecting (on other parents) loses priority each time: the cases call for
      // it, but what it writes does not help this history.
      const rejected = new Map<string, number>();
      for (const r of ctx.revisions) if (r.operator && !r.accepted) rejected.set(r.operator, (rejected.get(r.operator) ?? 0) + 1);
      const ranked = rankMoves(profile, moves)
        .map((m) => ({ ...m, priority: m.priority * REJECTION_DISCOUNT ** (rejected.get(m.move.name) ?? 0) }))
        .sort((a, b) => b.priority - a.priority || (a.move.name < b.move.name ? -1 : 1));
      for (const { move, priority } of ranked) {
        if (tried.has(move.name) || source.includes(move.marker) || !move.requires.every((n) => names.has(n))) continue;
        const built = move.build(input);
        if (!built) continue;
        if (ctx.isKnownSource) {
          const r = applyEdits(source, built.edits);
          if (r.ok && ctx.isKnownSource(r.source)) continue;
        }
        return {
          edits: built.edits,
          operator: move.name,
          target: move.target,
          rationale: `${describeProfile(profile)}; move ${move.name} (priority ${priority.toFixed(2)}): ${move.why}; ${built.detail}.`,
        };
      }
      return fallback.propose(ctx);
    },
  };
}
