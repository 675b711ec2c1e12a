import type { ProgramRecord } from '../archive/schemas.ts';
import type { Proposal } from './proposers/types.ts';
import type { BuildOutcome } from './search-build.ts';
import type { IterationPlan } from './search-iteration.ts';
import type { SearchRun } from './search-run.ts';

/** Where an attempt is recorded: its iteration plan, the attempt number and when it started. */
export interface AttemptSite {
  plan: IterationPlan;
  attempt: number;
  /** performance.now() at the start of the attempt: proposing time is measured from here. */
  t0: number;
}

/** A proposal that never got to edits (the proposer failed, or sent none): recorded as invalid at `propose`. */
export function recordProposeFailure(run: SearchRun, site: AttemptSite, rationale: string, code: string, message: string): void {
  const { iteration, parent } = site.plan;
  const record = run.archive.addProgram({
    iteration,
    attempt: site.attempt,
    parent: parent.id,
    edits: [],
    proposer: run.options.proposer.name,
    rationale,
    failure: { stage: 'propose', code, message },
  });
  run.emit({ type: 'invalid', iteration, program: record.id, stage: 'propose', message });
}

/** Nothing new for this parent: the iteration is recorded as spent so stopping conditions still advance. */
export function recordExhausted(run: SearchRun, site: AttemptSite): void {
  const { iteration, parent } = site.plan;
  if (site.attempt === 0)
    run.archive.appendEvent({ type: 'note', message: `iteration ${iteration}: the proposer has nothing left to try on ${parent.id}` });
  run.archive.addProgram({
    iteration,
    attempt: site.attempt,
    parent: parent.id,
    edits: [],
    proposer: run.options.proposer.name,
    rationale: 'no proposal',
    failure: { stage: 'propose', code: 'E_PROPOSER_EXHAUSTED', message: `the proposer had nothing left to try on ${parent.id}` },
  });
}

/** A proposal with its build outcome: an invalid program (edits that did not apply or compile), or a candidate to evaluate. */
export function recordBuilt(run: SearchRun, site: AttemptSite, proposal: Proposal, built: BuildOutcome): ProgramRecord {
  const { iteration, parent } = site.plan;
  const cost = {
    promptTokens: proposal.tokens?.prompt ?? 0,
    completionTokens: proposal.tokens?.completion ?? 0,
    proposeMs: performance.now() - site.t0,
  };
  const targets = proposal.target === 'general' ? undefined : proposal.target;
  const record = run.archive.addProgram({
    iteration,
    attempt: site.attempt,
    parent: parent.id,
    ...(built.kind === 'compiled' ? { source: built.source } : {}),
    edits: proposal.edits,
    applied: built.applied,
    rationale: proposal.rationale,
    ...(targets ? { targets } : {}),
    proposer: proposal.operator ? `${run.options.proposer.name}:${proposal.operator}` : run.options.proposer.name,
    cost,
    ...(built.kind === 'invalid' ? { failure: built.failure } : {}),
  });
  if (built.kind === 'invalid') run.emit({ type: 'invalid', iteration, program: record.id, stage: built.stage, message: built.feedback });
  return record;
}
