import type { ProgramRecord } from '../archive/schemas.ts';
import { createRng } from '../util/rng.ts';
import type { SearchRun } from './search-run.ts';
import type { ScoredProgram } from './strategies/types.ts';

/** An acceptance decision, recorded. */
export type DecisionOutcome = { kind: 'accepted' | 'rejected'; record: ProgramRecord };

/** Compares an evaluated program with the incumbent under the acceptance rule and records the decision. */
export function decide(run: SearchRun, p: ProgramRecord, against: ProgramRecord, rngSeed: number): DecisionOutcome {
  const d = run.options.accept.decide(scored(p), scored(against), createRng(rngSeed));
  const record = run.archive.recordDecision(p.id, {
    accepted: d.accept,
    reason: d.reason,
    against: against.id,
    delta: d.delta,
    ...(d.ci ? { ci: d.ci } : {}),
  });
  run.emit({
    type: 'decided',
    iteration: p.iteration,
    program: p.id,
    accepted: d.accept,
    score: p.scores?.value ?? 0,
    delta: d.delta,
    reason: d.reason,
  });
  return { kind: d.accept ? 'accepted' : 'rejected', record };
}

/** A program as the selection and acceptance strategies see it. */
export function scored(p: ProgramRecord): ScoredProgram {
  return { id: p.id, score: p.scores?.value ?? 0, iteration: p.iteration, ...(p.scores ? { perQuestion: p.scores.perQuestion } : {}) };
}
