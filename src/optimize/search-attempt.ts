import { deriveSeed } from '../util/rng.ts';
import { buildCandidate } from './search-build.ts';
import { decide } from './search-decide.ts';
import { dropPrefetch, prefetchTraining, trainingDiagnosis } from './search-diagnose.ts';
import { evaluateOnValidation } from './search-evaluate.ts';
import { NO_EDITS_FEEDBACK, type IterationPlan } from './search-iteration.ts';
import { propose } from './search-propose.ts';
import { recordBuilt, recordExhausted, recordProposeFailure, type AttemptSite } from './search-record.ts';
import type { SearchRun } from './search-run.ts';
import type { Repair } from './search-types.ts';

/** How an iteration ended. */
export type IterationOutcome = { kind: 'done' } | { kind: 'over-budget'; reason: string };

/** How one attempt ended: the iteration is over, the budget ran out, or the proposer gets a repair request. */
type AttemptOutcome = IterationOutcome | { kind: 'repair'; repair: Repair };

/** The attempts of one iteration: a first proposal and up to `repairs` repairs of edits that did not apply or compile. */
export async function runAttempts(run: SearchRun, plan: IterationPlan, carried: Repair | undefined): Promise<IterationOutcome> {
  let repair = carried;
  for (let attempt = repair ? repair.attempt : 0; attempt <= run.repairs; attempt++) {
    const outcome = await runAttempt(run, { plan, attempt, t0: performance.now() }, repair);
    if (outcome.kind !== 'repair') return outcome;
    repair = outcome.repair;
  }
  return { kind: 'done' };
}

/** propose → apply & compile → record → evaluate → decide → re-diagnose (after an acceptance). */
async function runAttempt(run: SearchRun, site: AttemptSite, repair: Repair | undefined): Promise<AttemptOutcome> {
  const { plan, attempt } = site;
  const done = { kind: 'done' } as const;
  const proposed = await propose(run, plan, attempt, repair);
  switch (proposed.kind) {
    case 'over-budget':
      return { kind: 'over-budget', reason: `budget: ${proposed.message}` };
    case 'proposer-failed':
      recordProposeFailure(run, site, 'the proposer failed', proposed.code, proposed.message);
      return done;
    case 'no-edits':
      recordProposeFailure(run, site, proposed.proposal.rationale, 'E_NO_EDITS', 'the proposal has no edits');
      return { kind: 'repair', repair: { edits: [], feedback: NO_EDITS_FEEDBACK, attempt: attempt + 1 } };
    case 'exhausted':
      recordExhausted(run, site);
      return done;
  }
  const { proposal } = proposed;
  run.emit({ type: 'proposed', iteration: plan.iteration, parent: plan.parent.id, proposal });
  const built = await buildCandidate(run, plan.parentSource, proposal);
  const record = recordBuilt(run, site, proposal, built);
  if (built.kind === 'invalid')
    return { kind: 'repair', repair: { edits: proposal.edits, feedback: built.feedback, attempt: attempt + 1 } };

  const validation = evaluateOnValidation(run, record);
  // The control never diagnoses what it accepts: nothing to prefetch.
  if (!run.options.control) prefetchTraining(run, record);
  const evaluated = await validation;
  if (evaluated.kind === 'failed') {
    dropPrefetch(run, record.id);
    return done;
  }
  const incumbent = run.options.control ? plan.seed : (run.archive.loadState().current ?? plan.seed);
  const decided = decide(run, evaluated.record, incumbent, deriveSeed(run.options.rngSeed, 'accept', plan.iteration));
  if (decided.kind === 'accepted' && !run.options.control) await trainingDiagnosis(run, decided.record);
  else dropPrefetch(run, record.id);
  return done;
}
