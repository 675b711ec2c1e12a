import type { ProgramRecord } from '../archive/schemas.ts';
import { compileArchived, scoresOf, type SearchRun } from './search-run.ts';

/** How a validation run ended: scored, or failed for every question (the sandbox could not run it at all). */
export type ValidationOutcome = { kind: 'evaluated'; record: ProgramRecord } | { kind: 'failed'; record: ProgramRecord };

/**
 * Evaluates a proposed program on the validation split and records the result: its scores and traces, or, when
 * every question failed, the failure (reported as an `invalid` event at stage `evaluate`).
 */
export async function evaluateOnValidation(run: SearchRun, p: ProgramRecord): Promise<ValidationOutcome> {
  run.emit({ type: 'evaluating', program: p.id, split: 'val', iteration: p.iteration });
  const e = await run.evaluator.evaluate(await compileArchived(run, p), 'val');
  const cost = { promptTokens: e.tokens.prompt, completionTokens: e.tokens.completion, evaluateMs: e.ms };
  const first = e.traces.length > 0 && e.traces.every((t) => t.error) ? e.traces[0]!.error! : null;
  if (first) {
    const failure = {
      stage: 'evaluate' as const,
      code: `E_SANDBOX_${first.kind.toUpperCase()}`,
      message: `${first.stage}: ${first.message}`,
    };
    const record = run.archive.recordFailure(p.id, failure, cost);
    run.emit({ type: 'invalid', iteration: p.iteration, program: p.id, stage: 'evaluate', message: record.failure?.message ?? '' });
    return { kind: 'failed', record };
  }
  const record = run.archive.recordEvaluation(p.id, { scores: scoresOf(run, e), traces: e.traces, cost });
  return { kind: 'evaluated', record };
}
