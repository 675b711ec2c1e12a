import type { SourceRecord } from '../../sandbox/contract.ts';
import type { Evidence } from '../history/record.ts';
import { answerTypeProblem } from './answer-type.ts';
import type { AnswerPlan, QuestionType } from './plan.ts';
import { locateQuote } from './spans.ts';

/** Why a plan was rejected (stable strings: they are the keys of the summary's rejection counts). */
export type PlanRejection =
  | 'plan:incomplete'
  | 'plan:wrong-type'
  | 'plan:record-not-in-bundle'
  | 'plan:quote-not-in-record'
  | 'plan:unused-evidence-record'
  | 'plan:fact-record-not-in-evidence'
  | 'plan:answer-type-mismatch';

export type PlanCheckResult = { ok: true; plan: AnswerPlan; evidence: Evidence[] } | { ok: false; reason: PlanRejection; detail: string };

/** What a plan is checked against. */
export interface PlanCheckContext {
  /** Record ids of the bundle the plan was made from. */
  bundle: ReadonlySet<string>;
  /** Every record of the history by id. */
  records: ReadonlyMap<string, SourceRecord>;
  /** Question types that were asked for; a plan of another type is rejected. */
  allowedTypes?: ReadonlySet<QuestionType>;
}

/**
 * The programmatic checks that run before any question is written: structure complete, every cited record in
 * the bundle, every quote found in its record (its offsets recorded in the returned plan and evidence), every
 * evidence record used by a fact and every fact's record listed as evidence, and the answer of its declared type.
 */
export function checkPlan(plan: AnswerPlan, ctx: PlanCheckContext): PlanCheckResult {
  if (!plan.intent.trim() || !plan.answer.trim() || !plan.facts.length || !plan.evidence.length || !plan.operations.length) {
    return { ok: false, reason: 'plan:incomplete', detail: 'intent, answer, facts, evidence and operations are all required' };
  }
  if (plan.questionType === 'false-premise' && !plan.premise) {
    return { ok: false, reason: 'plan:incomplete', detail: 'a false-premise plan must state the premise and its correction' };
  }
  if (ctx.allowedTypes && !ctx.allowedTypes.has(plan.questionType)) {
    return { ok: false, reason: 'plan:wrong-type', detail: `type ${plan.questionType} was not requested` };
  }
  for (const f of plan.facts) {
    if (!ctx.bundle.has(f.record) || !ctx.records.has(f.record)) {
      return { ok: false, reason: 'plan:record-not-in-bundle', detail: `fact cites ${f.record}, which is not in the bundle` };
    }
  }
  for (const e of plan.evidence) {
    if (!ctx.bundle.has(e.record) || !ctx.records.has(e.record)) {
      return { ok: false, reason: 'plan:record-not-in-bundle', detail: `evidence names ${e.record}, which is not in the bundle` };
    }
  }
  const facts = [];
  for (const f of plan.facts) {
    const text = ctx.records.get(f.record)!.text;
    const span = locateQuote(text, f.quote);
    if (!span)
      return { ok: false, reason: 'plan:quote-not-in-record', detail: `quote not found in ${f.record}: "${f.quote.slice(0, 80)}"` };
    facts.push({ ...f, span });
  }
  const evidenceIds = new Set(plan.evidence.map((e) => e.record));
  const factIds = new Set(facts.map((f) => f.record));
  for (const id of evidenceIds) {
    if (!factIds.has(id)) return { ok: false, reason: 'plan:unused-evidence-record', detail: `evidence record ${id} is used by no fact` };
  }
  for (const id of factIds) {
    if (!evidenceIds.has(id))
      return { ok: false, reason: 'plan:fact-record-not-in-evidence', detail: `fact record ${id} is not listed as evidence` };
  }
  const problem = answerTypeProblem(plan.answer, plan.answerType);
  if (problem) return { ok: false, reason: 'plan:answer-type-mismatch', detail: `${problem}: "${plan.answer.slice(0, 60)}"` };
  const evidence: Evidence[] = facts.map((f) => ({
    record: f.record,
    span: f.span,
    quote: ctx.records.get(f.record)!.text.slice(f.span[0], f.span[1]),
  }));
  return { ok: true, plan: { ...plan, facts }, evidence };
}
