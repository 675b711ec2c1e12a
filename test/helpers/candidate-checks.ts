import type { SourceRecord } from '../../sandbox/contract.ts';
import type { QuestionType } from '../../src/supervision/plan.ts';
import { checkPlan } from '../../src/supervision/plan-checks.ts';
import { checkQuestion } from '../../src/supervision/question-checks.ts';
import type { RuleCandidate } from '../../src/supervision/rule-based/templates.ts';

/**
 * Whether a template's candidate passes the generator's own gates with every record of `records` in its bundle: the
 * plan checks (quotes verbatim, evidence complete, `type` requested) and the question checks.
 */
export function passesChecks(c: RuleCandidate, records: readonly SourceRecord[], type: QuestionType): { plan: boolean; question: boolean } {
  const plan = checkPlan(c.plan, {
    bundle: new Set(records.map((r) => r.id)),
    records: new Map(records.map((r) => [r.id, r])),
    allowedTypes: new Set([type]),
  });
  const question = checkQuestion(
    c.question,
    c.plan.answer,
    c.plan.answerType,
    records.map((r) => r.id),
  );
  return { plan: plan.ok, question: question.ok };
}
