/**
 * Aggregates per-question traces into an evaluation summary: accuracy, F1, LoCoMo F1, evidence recall, context
 * size, failures and cost, overall and per category. A failed question counts in every denominator (no answer is
 * a wrong answer); questions without gold evidence are left out of recall means only.
 */
import { z } from 'zod';
import type { QuestionTrace } from './trace.ts';

const Recall = z.record(z.string(), z.number());

/** The aggregate metrics of a set of questions (the whole run or one category). */
export const MetricBlockSchema = z.object({
  n: z.number().int().nonnegative(),
  /** Questions that got an answer (no stage failure). */
  answered: z.number().int().nonnegative(),
  accuracy: z.number(),
  f1: z.number(),
  /** Mean LoCoMo official F1 over the LoCoMo-scored questions; null when there are none. */
  locomoF1: z.number().nullable(),
  /** Mean recall@k over questions with gold evidence. */
  recallAt: Recall,
  /** Mean recall at the context token budget over questions with gold evidence (null when not measured). */
  recallAtBudget: z.number().nullable(),
  contextRecall: z.number().nullable(),
  /** Questions with gold evidence (the recall denominator). */
  withEvidence: z.number().int().nonnegative(),
  meanContextTokens: z.number(),
  /** Failures by kind (throw, timeout, memory, malformed, crash, compile, budget). */
  errors: z.record(z.string(), z.number().int()),
  /** Mean per question of claimed sources that failed verification (null when no trace counted them). */
  meanUnverifiedSources: z.number().nullable(),
  /** Mean marginal utility, when computed. */
  marginalUtility: z.number().nullable(),
});
export type MetricBlock = z.infer<typeof MetricBlockSchema>;

export const EvalSummarySchema = MetricBlockSchema.extend({
  /** How correctness was decided: counts by 'exact' | 'llm-judge' | 'f1-threshold'. */
  correctBy: z.record(z.string(), z.number().int()),
  /** LoCoMo F1 by category and over categories 1–4 (the usual headline) and all categories. */
  locomo: z
    .object({
      byCategory: z.record(z.string(), z.number()),
      overall: z.number(),
      categories1to4: z.number().nullable(),
    })
    .nullable(),
  /** Failures by stage (compile, store, retrieve, context, answer). */
  errorsByStage: z.record(z.string(), z.number().int()),
  /** Metrics per category (items without a category under "-"). */
  perCategory: z.record(z.string(), MetricBlockSchema),
  meanTimeMs: z.object({ store: z.number(), retrieve: z.number(), context: z.number(), answer: z.number() }),
  cost: z.object({
    promptTokens: z.number().int().nonnegative(),
    completionTokens: z.number().int().nonnegative(),
    /** Dollars when a price is known, else null (never 0 for "unknown"). */
    dollars: z.number().nullable(),
  }),
});
export type EvalSummary = z.infer<typeof EvalSummarySchema>;

export interface SummaryOptions {
  /** $ per 1M tokens for all LLM tokens in the traces; without it `cost.dollars` is null. */
  price?: { prompt: number; completion: number };
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function block(traces: readonly QuestionTrace[]): MetricBlock {
  const n = traces.length;
  const scored = traces.map((t) => t.scores);
  const withGold = traces.filter((t) => t.scores && Object.keys(t.scores.recallAt).length > 0);
  const ks = new Set<string>();
  for (const t of withGold) for (const k of Object.keys(t.scores!.recallAt)) ks.add(k);
  const recallAt: Record<string, number> = {};
  for (const k of [...ks].sort((a, b) => Number(a) - Number(b))) recallAt[k] = mean(withGold.map((t) => t.scores!.recallAt[k] ?? 0));
  const locomo = scored.filter((s) => s?.locomoF1 !== undefined).map((s) => s!.locomoF1!);
  const atBudget = withGold.filter((t) => t.scores!.recallAtBudget !== undefined).map((t) => t.scores!.recallAtBudget!);
  const unverified = traces.filter((t) => t.unverifiedSources !== undefined).map((t) => t.unverifiedSources!);
  const mu = scored.filter((s) => s?.marginalUtility !== undefined).map((s) => s!.marginalUtility!);
  const errors: Record<string, number> = {};
  for (const t of traces) if (t.error) errors[t.error.kind] = (errors[t.error.kind] ?? 0) + 1;
  return {
    n,
    answered: traces.filter((t) => !t.error && t.answer !== null).length,
    accuracy: n === 0 ? 0 : scored.filter((s) => s?.correct).length / n,
    f1: mean(scored.map((s) => s?.f1 ?? 0)),
    locomoF1: locomo.length ? mean(locomo) : null,
    recallAt,
    recallAtBudget: atBudget.length ? mean(atBudget) : null,
    contextRecall: withGold.length ? mean(withGold.map((t) => t.scores!.contextRecall)) : null,
    withEvidence: withGold.length,
    meanContextTokens: mean(traces.map((t) => t.contextTokens)),
    errors,
    meanUnverifiedSources: unverified.length ? mean(unverified) : null,
    marginalUtility: mu.length ? mean(mu) : null,
  };
}

/** Summarises a run's traces (validated against {@link EvalSummarySchema}). */
export function summarize(traces: readonly QuestionTrace[], options: SummaryOptions = {}): EvalSummary {
  const overall = block(traces);
  const byCat = new Map<string, QuestionTrace[]>();
  for (const t of traces) {
    const c = t.category ?? '-';
    const list = byCat.get(c) ?? [];
    list.push(t);
    byCat.set(c, list);
  }
  const perCategory: Record<string, MetricBlock> = {};
  for (const c of [...byCat.keys()].sort()) perCategory[c] = block(byCat.get(c)!);

  let locomo: EvalSummary['locomo'] = null;
  if (overall.locomoF1 !== null) {
    const byCategory: Record<string, number> = {};
    for (const [c, b] of Object.entries(perCategory)) if (b.locomoF1 !== null) byCategory[c] = b.locomoF1;
    const core = traces.filter((t) => t.scores?.locomoF1 !== undefined && /^[1-4]$/.test(t.category ?? ''));
    locomo = {
      byCategory,
      overall: overall.locomoF1,
      categories1to4: core.length ? mean(core.map((t) => t.scores!.locomoF1!)) : null,
    };
  }
  const correctBy: Record<string, number> = {};
  for (const t of traces) if (t.scores) correctBy[t.scores.correctBy] = (correctBy[t.scores.correctBy] ?? 0) + 1;
  const errorsByStage: Record<string, number> = {};
  for (const t of traces) if (t.error) errorsByStage[t.error.stage] = (errorsByStage[t.error.stage] ?? 0) + 1;
  const promptTokens = traces.reduce((a, t) => a + (t.llmTokens?.prompt ?? 0), 0);
  const completionTokens = traces.reduce((a, t) => a + (t.llmTokens?.completion ?? 0), 0);
  const dollars = options.price ? (promptTokens * options.price.prompt + completionTokens * options.price.completion) / 1_000_000 : null;
  return EvalSummarySchema.parse({
    ...overall,
    correctBy,
    locomo,
    errorsByStage,
    perCategory,
    meanTimeMs: {
      store: mean(traces.map((t) => t.timeMs.store)),
      retrieve: mean(traces.map((t) => t.timeMs.retrieve)),
      context: mean(traces.map((t) => t.timeMs.context)),
      answer: mean(traces.map((t) => t.timeMs.answer)),
    },
    cost: { promptTokens, completionTokens, dollars },
  });
}
