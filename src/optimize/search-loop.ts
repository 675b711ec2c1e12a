import { runAttempts } from './search-attempt.ts';
import { finishIteration, planIteration, stopBefore, unfinishedRepair, type CarriedRepair } from './search-iteration.ts';
import { settlePrefetches } from './search-diagnose.ts';
import { createSearchRun, type SearchRun } from './search-run.ts';
import { settleArchive } from './search-settle.ts';
import type { SearchLoopOptions, SearchResult } from './search-types.ts';

export type { FeedbackMode, Repair, SearchEvent, SearchLoopOptions, SearchResult } from './search-types.ts';

/**
 * The search (MemSteer-Opt): select a parent, propose edits, apply + compile (with bounded repair), evaluate on
 * the validation split, accept or reject, and refresh the training-set diagnosis after each acceptance. Every step
 * is written to the archive before the next begins, so a run killed at any moment resumes from disk: pending
 * programs are evaluated, undecided ones decided, and iteration k draws from the RNG stream of k alone, so a
 * resumed run makes the same choices as an uninterrupted one. The evaluator it gets has no test split.
 */
export async function runSearch(options: SearchLoopOptions): Promise<SearchResult> {
  const run = createSearchRun(options);
  try {
    return await searchFrom(run);
  } finally {
    await settlePrefetches(run);
  }
}

async function searchFrom(run: SearchRun): Promise<SearchResult> {
  const { archive } = run;
  const seed = await settleArchive(run);
  let state = archive.loadState();
  let stopReason = '';
  // A run killed between an edit that did not apply (or compile) and its repair continues with that repair.
  let carry: CarriedRepair | null = unfinishedRepair(state, run.repairs);
  for (let iteration = carry ? carry.iteration : Math.max(1, state.lastIteration + 1); ; iteration++) {
    state = archive.loadState();
    const carried = carry?.iteration === iteration ? carry : null;
    carry = null;
    // An iteration whose programs are all decided is finished; continue after the highest one.
    if (!carried && iteration <= state.lastIteration) iteration = state.lastIteration + 1;
    stopReason = stopBefore(run, state, iteration, carried) ?? '';
    if (stopReason) break;
    const plan = await planIteration(run, state, iteration, seed, carried);
    const outcome = await runAttempts(run, plan, carried?.repair);
    if (outcome.kind === 'over-budget') {
      stopReason = outcome.reason;
      break;
    }
    finishIteration(run, iteration, seed);
  }
  archive.appendEvent({ type: 'run-stopped', reason: stopReason });
  run.emit({ type: 'stopped', reason: stopReason });
  state = archive.loadState();
  return { state, best: state.best ?? seed, seed, stopReason };
}
