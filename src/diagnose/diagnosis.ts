import { z } from 'zod';
import { creditedOf, type QuestionTrace } from '../scoring/trace.ts';
import type { QAItem } from '../history/record.ts';
import { recoverableFn, type Provenance } from './provenance.ts';
import { Objective, RANKING_DEPTH } from '../config/run-options.ts';

/**
 * Evidence-guided failure attribution. For a failed question, its gold evidence says where the design lost it:
 * - all evidence delivered in the context → `answering` (the answerer had what it needed);
 * - some missing, and no memory unit verifiably carries a missing record → `storage` (memory cannot produce it);
 * Delivered and carried are the host's verified notions (src/scoring/provenance.ts), never the design's claims.
 * - some missing, all of them recoverable from memory → `retrieval` (stored but not ranked/delivered).
 * A stage that failed is `error`; a failure without gold evidence cannot be attributed (`unattributed`).
 */

export const Category = z.enum(['pass', 'answering', 'retrieval', 'storage', 'error', 'unattributed']);
export type Category = z.infer<typeof Category>;

/** Failure categories in the order ties are broken (upstream first: a storage loss bounds everything after it). */
export const FAILURE_CATEGORIES = ['storage', 'retrieval', 'answering', 'error', 'unattributed'] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/**
 * What counts as a failure: `accuracy` a wrong answer (the paper's objective, needs an answerer); `evidence` a
 * context that misses gold evidence (the offline default); `ranking` gold evidence outside the first
 * {@link RANKING_DEPTH} ranked records; `f1` an answer whose token F1 is below `f1Threshold`.
 */
export const DiagnosisObjective = Objective.exclude(['marginal']);
export type DiagnosisObjective = z.infer<typeof DiagnosisObjective>;

export const QuestionDiagnosisSchema = z.object({
  question: z.string(),
  history: z.string(),
  category: Category,
  /** Gold evidence record ids (de-duplicated). */
  evidence: z.array(z.string()),
  /** Evidence records not delivered in the context (under `ranking`: not among the first ranked records). */
  missing: z.array(z.string()),
  /** Missing records that no memory unit verifiably carries. */
  unrecoverable: z.array(z.string()),
  /** 1-based rank of each missing record among the ranked records, null when it was not ranked at all. */
  missingRanks: z.record(z.string(), z.number().int().positive().nullable()),
  /** The stage failure, for `error`. */
  error: z.string().optional(),
});
export type QuestionDiagnosis = z.infer<typeof QuestionDiagnosisSchema>;

export const DiagnosisSchema = z.object({
  objective: DiagnosisObjective,
  /** Questions diagnosed (those with a trace). */
  total: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
  counts: z.record(Category, z.number().int().nonnegative()),
  /** The most frequent failure category (ties: storage, retrieval, answering, error, unattributed); null without failures. */
  dominant: z.enum(FAILURE_CATEGORIES).nullable(),
  questions: z.array(QuestionDiagnosisSchema),
  /** Items with no trace or, under `accuracy`/`f1`, no scores: not diagnosed, listed so nothing is dropped silently. */
  undiagnosed: z.array(z.object({ question: z.string(), history: z.string(), reason: z.string() })),
});
export type Diagnosis = z.infer<typeof DiagnosisSchema>;

export interface DiagnoseOptions {
  objective: DiagnosisObjective;
  /** Under `f1`, answers below this token F1 fail (default 0.5). */
  f1Threshold?: number;
}

/** Key of a question across histories (QA ids may repeat between histories). */
export function questionKey(history: string, question: string): string {
  return `${history}\u0000${question}`;
}

/** Diagnoses every item that has a trace; see the module comment for the rules. */
export function diagnose(
  items: readonly QAItem[],
  traces: readonly QuestionTrace[],
  provenance: Provenance,
  options: DiagnoseOptions,
): Diagnosis {
  const recoverable = recoverableFn(provenance);
  const byKey = new Map(traces.map((t) => [questionKey(t.history, t.question), t]));
  const threshold = options.f1Threshold ?? 0.5;
  const questions: QuestionDiagnosis[] = [];
  const undiagnosed: Diagnosis['undiagnosed'] = [];
  for (const item of items) {
    const trace = byKey.get(questionKey(item.history, item.id));
    if (!trace) {
      undiagnosed.push({ question: item.id, history: item.history, reason: 'no trace' });
      continue;
    }
    const evidence = [...new Set(item.evidence.map((e) => e.record))];
    const delivered = new Set(options.objective === 'ranking' ? trace.rankedRecords.slice(0, RANKING_DEPTH) : creditedOf(trace));
    const missing = evidence.filter((r) => !delivered.has(r));
    const base = {
      question: item.id,
      history: item.history,
      evidence,
      missing,
      unrecoverable: [] as string[],
      missingRanks: {} as Record<string, number | null>,
    };
    if (trace.error) {
      questions.push({ ...base, category: 'error', error: `${trace.error.stage} ${trace.error.kind}: ${trace.error.message}` });
      continue;
    }
    let failed: boolean;
    if (options.objective === 'evidence' || options.objective === 'ranking') failed = missing.length > 0;
    else if (!trace.scores) {
      undiagnosed.push({ question: item.id, history: item.history, reason: `no scores for the ${options.objective} objective` });
      continue;
    } else failed = options.objective === 'accuracy' ? !trace.scores.correct : trace.scores.f1 < threshold;
    if (!failed) {
      questions.push({ ...base, category: 'pass' });
      continue;
    }
    if (evidence.length === 0) {
      questions.push({ ...base, category: 'unattributed' });
      continue;
    }
    const rank = new Map<string, number>();
    trace.rankedRecords.forEach((r, i) => {
      if (!rank.has(r)) rank.set(r, i + 1);
    });
    const unrecoverable = missing.filter((r) => !recoverable(item.history, r, item));
    const missingRanks = Object.fromEntries(missing.map((r) => [r, rank.get(r) ?? null]));
    const category: Category = missing.length === 0 ? 'answering' : unrecoverable.length > 0 ? 'storage' : 'retrieval';
    questions.push({ ...base, category, unrecoverable, missingRanks });
  }
  const counts = Object.fromEntries(Category.options.map((c) => [c, 0])) as Record<Category, number>;
  for (const q of questions) counts[q.category]++;
  let dominant: FailureCategory | null = null;
  for (const c of FAILURE_CATEGORIES) if (counts[c] > 0 && (dominant === null || counts[c] > counts[dominant])) dominant = c;
  return DiagnosisSchema.parse({
    objective: options.objective,
    total: questions.length,
    failures: questions.length - counts.pass,
    counts,
    dominant,
    questions,
    undiagnosed,
  });
}

/** One line for logs and prompts: "37 of 120 questions fail: storage 4, retrieval 25, answering 8 (dominant: retrieval)". */
export function summarizeDiagnosis(d: Diagnosis): string {
  if (d.failures === 0) return `all ${d.total} questions pass (${d.objective})`;
  const parts = FAILURE_CATEGORIES.filter((c) => d.counts[c] > 0).map((c) => `${c} ${d.counts[c]}`);
  return `${d.failures} of ${d.total} questions fail (${d.objective}): ${parts.join(', ')} (dominant: ${d.dominant})`;
}
