import type { Failure } from '../archive/schemas.ts';
import { applyAndCheck, describeEditFailure } from '../design/apply-edits.ts';
import type { AppliedEdit } from '../design/edit-ops.ts';
import type { CompiledProgram } from '../isolate/sandbox-api.ts';
import type { Proposal } from './proposers/types.ts';
import type { SearchRun } from './search-run.ts';

/** Applying a proposal's edits to the parent and compiling the result: a candidate, or what to tell the proposer. */
export type BuildOutcome =
  | { kind: 'compiled'; source: string; program: CompiledProgram; applied: AppliedEdit[] }
  | { kind: 'invalid'; stage: 'apply' | 'compile'; applied: AppliedEdit[]; failure: Failure; feedback: string };

/** Applies the edits with ts-morph, then type-checks and compiles the candidate. */
export async function buildCandidate(run: SearchRun, parentSource: string, proposal: Proposal): Promise<BuildOutcome> {
  const checked = await applyAndCheck(parentSource, proposal.edits, run.options.compile);
  if (checked.ok) {
    const program = checked.program as CompiledProgram;
    run.compiled.set(checked.source, program);
    return { kind: 'compiled', source: checked.source, program, applied: checked.applied };
  }
  const feedback = describeEditFailure(checked);
  const failure: Failure = {
    stage: checked.stage,
    code: checked.stage === 'apply' ? (checked.errors[0]?.code ?? 'E_EDIT') : 'E_COMPILE',
    message: feedback,
    details: checked.stage === 'apply' ? checked.errors : checked.diagnostics,
  };
  return { kind: 'invalid', stage: checked.stage, applied: checked.applied, failure, feedback };
}
