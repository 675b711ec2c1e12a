import type { ProgramRecord } from '../archive/schemas.ts';
import type { SearchState } from '../archive/state.ts';
import { createRng, deriveSeed, type Rng } from '../util/rng.ts';
import type { RevisionNote } from './proposers/types.ts';
import { scored } from './search-decide.ts';
import { parentFeedback, type ParentFeedback } from './search-diagnose.ts';
import type { SearchRun } from './search-run.ts';
import type { Repair } from './search-types.ts';
import type { SearchProgress } from './strategies/types.ts';

/** What the proposer is told when a reply had no edits. */
export const NO_EDITS_FEEDBACK = 'The reply had no edits: return at least one edit operation.';

/** An iteration a killed run left between a failed attempt and its repair: it continues with that repair. */
export interface CarriedRepair {
  iteration: number;
  parent: string;
  repair: Repair;
}

/** Everything the attempts of one iteration share. */
export interface IterationPlan {
  iteration: number;
  /** The accepted seed (the control's only parent, and the incumbent before any acceptance). */
  seed: ProgramRecord;
  parent: ProgramRecord;
  parentSource: string;
  feedback: ParentFeedback;
  revisions: RevisionNote[];
  /** Content hashes of every archived source (so a proposer can avoid re-proposing one). */
  knownHashes: Set<string>;
  /** The iteration's own RNG stream: iteration k draws from nothing else, so a resumed run repeats its choices. */
  rng: Rng;
}

/**
 * The last iteration when it ends in an edit that did not apply or compile (or a reply with no edits) with repair
 * attempts left: the loop never leaves an iteration like that, so the run was killed before the repair.
 */
export function unfinishedRepair(state: SearchState, repairs: number): CarriedRepair | null {
  const tail = state.programs.filter((p) => p.kind !== 'seed' && p.iteration === state.lastIteration).at(-1);
  if (!tail?.parent || tail.status !== 'invalid' || !tail.failure || tail.attempt >= repairs) return null;
  const { stage, code, message } = tail.failure;
  const feedback = stage === 'apply' || stage === 'compile' ? message : code === 'E_NO_EDITS' ? NO_EDITS_FEEDBACK : null;
  if (feedback === null) return null;
  return { iteration: tail.iteration, parent: tail.parent, repair: { edits: tail.edits, feedback, attempt: tail.attempt + 1 } };
}

/** The stop condition's verdict before iteration `iteration` starts (null: go on). */
export function stopBefore(run: SearchRun, state: SearchState, iteration: number, carried: CarriedRepair | null): string | null {
  const progress = progressOf(state, performance.now() - run.started + (run.options.elapsedBeforeMs ?? 0));
  if (carried) {
    // Its invalid attempts look settled on disk, but the iteration is not over: stop as if at its start.
    const partial = state.programs.filter((p) => p.kind !== 'seed' && p.iteration === iteration);
    progress.iterations -= 1;
    progress.iterationsSinceImprovement = Math.max(0, progress.iterationsSinceImprovement - 1);
    progress.proposals -= partial.length;
    progress.tokens -= partial.reduce((n, p) => n + p.cost.promptTokens + p.cost.completionTokens, 0);
    progress.dollars -= partial.reduce((n, p) => n + p.cost.dollars, 0);
  }
  return run.options.stop.check(progress);
}

/**
 * Selects the parent (the seed in the control; the carried parent when finishing a repair) and gathers what the
 * proposer sees about it: the training diagnosis and failure cases, and the revision history.
 */
export async function planIteration(
  run: SearchRun,
  state: SearchState,
  iteration: number,
  seed: ProgramRecord,
  carried: CarriedRepair | null,
): Promise<IterationPlan> {
  const { archive, options } = run;
  const rng = createRng(deriveSeed(options.rngSeed, 'iteration', iteration));
  const evaluated = (p: ProgramRecord) => p.scores !== undefined && (p.status === 'accepted' || p.status === 'rejected');
  const pool = options.control ? [seed] : options.select.pool === 'evaluated' ? state.programs.filter(evaluated) : state.accepted;
  const parentId = carried ? carried.parent : options.select.select(pool.map(scored), rng.fork('select'));
  const parent = archive.get(parentId);
  return {
    iteration,
    seed,
    parent,
    parentSource: archive.source(parentId),
    feedback: await parentFeedback(run, parent, iteration),
    revisions: options.control ? [] : revisionNotes(state, iteration),
    knownHashes: new Set(state.programs.filter((p) => p.hasSource).map((p) => p.contentHash)),
    rng,
  };
}

/** Closes an iteration: the event with the best so far, and the progress line. */
export function finishIteration(run: SearchRun, iteration: number, seed: ProgramRecord): void {
  const state = run.archive.loadState();
  const best = state.best ?? seed;
  run.archive.appendEvent({ type: 'iteration-finished', iteration, best: best.id, bestScore: best.scores?.value ?? null });
  run.emit({
    type: 'iteration',
    iteration,
    best: best.id,
    bestScore: best.scores?.value ?? 0,
    accepted: state.accepted.length - state.seeds.length,
    tokens: state.cost.promptTokens + state.cost.completionTokens,
  });
}

function progressOf(state: SearchState, elapsedMs: number): SearchProgress {
  return {
    iterations: state.iterationsDone,
    proposals: state.proposals,
    tokens: state.cost.promptTokens + state.cost.completionTokens,
    dollars: state.cost.dollars,
    elapsedMs,
    iterationsSinceImprovement: state.iterationsSinceImprovement,
  };
}

/** The revision history as the proposer sees it: what was tried from which parent and how it went. */
function revisionNotes(state: SearchState, before: number): RevisionNote[] {
  return state.programs
    .filter((p) => p.kind === 'proposal' && p.parent && p.iteration < before)
    .map((p) => ({
      id: p.id,
      parent: p.parent!,
      ...(p.proposer?.includes(':') ? { operator: p.proposer.slice(p.proposer.indexOf(':') + 1) } : {}),
      rationale: p.rationale ?? '',
      edits: (p.applied ?? []).map((a) => a.summary),
      accepted: p.status === 'accepted',
      delta: p.decision?.delta ?? null,
      ...(p.failure ? { failure: p.failure.message.slice(0, 600) } : {}),
    }));
}
