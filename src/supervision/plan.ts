import { z } from 'zod';
import { AnswerType } from '../history/record.ts';

/** Question types the generator is asked to mix. */
export const QuestionType = z.enum(['single-hop', 'multi-hop', 'temporal', 'aggregation', 'false-premise']);
export type QuestionType = z.infer<typeof QuestionType>;
export const QUESTION_TYPES: readonly QuestionType[] = QuestionType.options;

/** How the facts combine into the answer. */
export const Operation = z.enum(['lookup', 'compare', 'count', 'order-in-time', 'date-arithmetic', 'intersect', 'union', 'negate', 'sum']);
export type Operation = z.infer<typeof Operation>;

/** One supporting fact, cited by record id and a verbatim quote of that record. */
export const PlanFactSchema = z.object({
  record: z.string().min(1),
  quote: z.string().min(1),
  /** The fact in the planner's own words. */
  statement: z.string().min(1),
  /** Character offsets of `quote` in the record, filled in by the plan checks (never trusted from a model). */
  span: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).optional(),
});
export type PlanFact = z.infer<typeof PlanFactSchema>;

/**
 * An evidence-grounded answer plan: what the question should ask, the reference answer, and the cited facts
 * that support it. The planner writes it before any question exists; the question is written from it.
 */
export const AnswerPlanSchema = z.object({
  questionType: QuestionType,
  /** What the question should ask, without the answer. */
  intent: z.string().min(1),
  answer: z.string().min(1),
  answerType: AnswerType,
  facts: z.array(PlanFactSchema).min(1),
  /** Each evidence record and what it contributes to the answer. */
  evidence: z.array(z.object({ record: z.string().min(1), contribution: z.string().min(1) })).min(1),
  operations: z.array(Operation).min(1),
  /** For false-premise questions: the false assumption the question will make and what the records say instead. */
  premise: z.object({ assumption: z.string().min(1), correction: z.string().min(1) }).optional(),
});
export type AnswerPlan = z.infer<typeof AnswerPlanSchema>;

/** What the planner returns: a plan, or a statement that the bundle cannot support one of the requested type. */
export const PlannerReplySchema = z.object({
  plan: AnswerPlanSchema.nullable(),
  /** Why no plan, when `plan` is null. */
  reason: z.string().optional(),
});
export type PlannerReply = z.infer<typeof PlannerReplySchema>;
