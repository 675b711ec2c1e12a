import { DEFAULT_FEEDBACK } from '../config/run-options.ts';
import type { ProgramRecord } from '../archive/schemas.ts';
import { diagnose, type Diagnosis } from '../diagnose/diagnosis.ts';
import { sampleFailures, sampleRandomFailures, type FailureCase } from '../diagnose/sample.ts';
import { deriveSeed } from '../util/rng.ts';
import type { CandidateEvaluation } from './candidate-evaluator.ts';
import { compileArchived, type SearchRun } from './search-run.ts';

/** What the proposer is told about its parent's training failures. */
export interface ParentFeedback {
  /** Null in the control and in the diagnosis-free `random` feedback arm. */
  diagnosis: Diagnosis | null;
  failures: FailureCase[];
}

/**
 * The training-set evaluation and diagnosis of an accepted program: evaluated once per session (the evaluator's
 * cache keeps it on disk), diagnosed once per run (`diagnoses/<id>.json`). Re-run after every acceptance.
 */
export async function trainingDiagnosis(
  run: SearchRun,
  p: ProgramRecord,
): Promise<{ diagnosis: Diagnosis; evaluation: CandidateEvaluation }> {
  let e = run.trainEvaluations.get(p.id);
  if (!e) {
    const prefetched = run.prefetched.get(p.id);
    run.prefetched.delete(p.id);
    e = (await prefetched) ?? undefined;
    if (!e) {
      run.emit({ type: 'evaluating', program: p.id, split: 'train', iteration: p.iteration });
      e = await run.evaluator.evaluate(await compileArchived(run, p), 'train');
    }
    run.trainEvaluations.set(p.id, e);
  }
  let d = run.archive.diagnosis(p.id);
  if (!d) {
    const objective = run.options.objective;
    d = diagnose(run.evaluator.questions.train, e.traces, e.provenance, {
      objective: objective === 'marginal' ? 'accuracy' : objective,
    });
    run.archive.recordDiagnosis(p.id, d);
  }
  return { diagnosis: d, evaluation: e };
}

/**
 * Starts `p`'s training evaluation now, beside its validation run, when the run allows it
 * (`SearchLoopOptions.prefetchTraining`): an acceptance then finds the evaluation its diagnosis needs done or under
 * way. It is the same evaluation started earlier, so no score changes. Call {@link dropPrefetch} once `p` is rejected.
 */
export function prefetchTraining(run: SearchRun, p: ProgramRecord): void {
  if (!run.options.prefetchTraining || run.trainEvaluations.has(p.id) || run.prefetched.has(p.id)) return;
  const pending = compileArchived(run, p)
    .then((c) => run.evaluator.evaluate(c, 'train'))
    .catch(() => null);
  run.prefetched.set(p.id, pending);
  run.inFlight.add(pending);
  void pending.finally(() => run.inFlight.delete(pending));
}

/** Forgets a rejected program's prefetched training evaluation (its task runs to the end; see `settlePrefetches`). */
export function dropPrefetch(run: SearchRun, id: string): void {
  run.prefetched.delete(id);
}

/**
 * Waits for every prefetch still running. A search returns only after this: closing the pool under a running
 * evaluation would record its groups as crashed in the evaluation cache.
 */
export async function settlePrefetches(run: SearchRun): Promise<void> {
  await Promise.all([...run.inFlight]);
}

/** The parent's diagnosis and the failure cases of iteration `iteration`, as the feedback mode selects them. */
export async function parentFeedback(run: SearchRun, parent: ProgramRecord, iteration: number): Promise<ParentFeedback> {
  const { options } = run;
  if (options.control) return { diagnosis: null, failures: [] };
  const { diagnosis, evaluation } = await trainingDiagnosis(run, parent);
  const mode = options.feedback ?? DEFAULT_FEEDBACK;
  const items = run.evaluator.questions.train;
  const seed = deriveSeed(options.rngSeed, 'failures', iteration);
  const perCategory = options.perCategory ?? 10;
  // 'random' is the feedback ablation's diagnosis-free arm: the proposer gets only randomly sampled failures,
  // no category counts. Without this it would differ from 'diagnosis' only in cases the offline proposer never reads.
  // 'diagnosis' shows the categories but samples failures in proportion to their frequency (no stratification).
  const failures =
    mode === 'stratified'
      ? sampleFailures(diagnosis, items, evaluation.traces, options.records, { seed, perCategory })
      : sampleRandomFailures(diagnosis, items, evaluation.traces, options.records, { seed, count: perCategory * 3 });
  return { diagnosis: mode === 'random' ? null : diagnosis, failures };
}
