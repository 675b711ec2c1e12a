import { z } from 'zod';
import type { QuestionScores, QuestionTrace, StageFailure } from './trace.ts';

/** zod form of {@link StageFailure}: every trace written or read (traces.jsonl, the eval cache) goes through it. */
export const StageFailureSchema = z.object({
  stage: z.enum(['compile', 'store', 'retrieve', 'context', 'answer']),
  kind: z.enum(['throw', 'timeout', 'memory', 'malformed', 'crash', 'compile', 'budget']),
  message: z.string(),
});

export const QuestionScoresSchema = z.object({
  correct: z.boolean(),
  correctBy: z.enum(['exact', 'llm-judge', 'f1-threshold']),
  f1: z.number(),
  locomoF1: z.number().optional(),
  recallAt: z.record(z.string(), z.number()),
  recallAtBudget: z.number().optional(),
  contextRecall: z.number(),
  marginalUtility: z.number().optional(),
});

/** One line of traces.jsonl. */
export const QuestionTraceSchema = z.object({
  question: z.string(),
  history: z.string(),
  category: z.string().optional(),
  ranked: z.array(z.object({ unit: z.string(), score: z.number(), sources: z.array(z.string()) })),
  rankedRecords: z.array(z.string()),
  budgetRecords: z.array(z.string()).optional(),
  delivered: z.array(z.string()),
  deliveredRecords: z.array(z.string()),
  creditedRecords: z.array(z.string()).optional(),
  unverifiedSources: z.number().int().nonnegative().optional(),
  contextTokens: z.number(),
  contextText: z.string(),
  answer: z.string().nullable(),
  reference: z.string(),
  scores: QuestionScoresSchema.nullable(),
  error: StageFailureSchema.optional(),
  timeMs: z.object({ store: z.number(), retrieve: z.number(), context: z.number(), answer: z.number() }),
  toolCalls: z.record(z.string(), z.number()),
  log: z.array(z.string()).optional(),
  llmTokens: z.object({ prompt: z.number(), completion: z.number() }).optional(),
});

// Compile-time guards: the schemas and the trace types must describe the same objects.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const failureMatches: Same<z.infer<typeof StageFailureSchema>, StageFailure> = true;
const scoresMatch: Same<z.infer<typeof QuestionScoresSchema>, QuestionScores> = true;
const traceMatches: Same<z.infer<typeof QuestionTraceSchema>, QuestionTrace> = true;
void failureMatches;
void scoresMatch;
void traceMatches;

/** Characters of context text kept per trace in files (the full text is used for answering). */
export const TRACE_CONTEXT_CHARS = 20_000;

/** A trace as written to disk: context text capped so a traces file stays readable. */
export function traceForFile(t: QuestionTrace): QuestionTrace {
  if (t.contextText.length <= TRACE_CONTEXT_CHARS) return t;
  return {
    ...t,
    contextText: `${t.contextText.slice(0, TRACE_CONTEXT_CHARS)}\n…[${t.contextText.length - TRACE_CONTEXT_CHARS} more characters]`,
  };
}
