import { z } from 'zod';
import type { AnswerPlan } from './plan.ts';

export const AuditAspect = z.enum(['answer-support', 'question-plan-consistency', 'fact-support', 'contribution']);

/** One judgment of the source-grounded audit, with its rationale. */
export const AuditJudgmentSchema = z.object({
  aspect: AuditAspect,
  /** `fact:<n>` (1-based, plan order) for fact-support; the record id for contribution. */
  target: z.string().optional(),
  verdict: z.enum(['supported', 'unsupported', 'unclear']),
  rationale: z.string().min(1),
});

/** The auditor's reply. */
export const AuditReplySchema = z.object({ judgments: z.array(AuditJudgmentSchema).min(1) });
export type AuditReply = z.infer<typeof AuditReplySchema>;

export type AuditRejection = 'audit:missing-judgment' | 'audit:unsupported';

/** The judgments an audit must contain for `plan`: aspect plus target. */
export function requiredJudgments(plan: AnswerPlan): Array<{ aspect: z.infer<typeof AuditAspect>; target?: string }> {
  return [
    { aspect: 'answer-support' },
    { aspect: 'question-plan-consistency' },
    ...plan.facts.map((_, i) => ({ aspect: 'fact-support' as const, target: `fact:${i + 1}` })),
    ...[...new Set(plan.evidence.map((e) => e.record))].map((record) => ({ aspect: 'contribution' as const, target: record })),
  ];
}

/**
 * The audit gate: every required judgment is present and 'supported' ('unclear' does not pass). A judgment
 * that is present but not supported is reported with its rationale.
 */
export function checkAudit(reply: AuditReply, plan: AnswerPlan): { ok: true } | { ok: false; reason: AuditRejection; detail: string } {
  for (const need of requiredJudgments(plan)) {
    const found = reply.judgments.filter(
      (j) => j.aspect === need.aspect && (need.target === undefined || j.target?.trim() === need.target),
    );
    if (!found.length)
      return { ok: false, reason: 'audit:missing-judgment', detail: `no ${need.aspect}${need.target ? ` for ${need.target}` : ''}` };
    const bad = found.find((j) => j.verdict !== 'supported');
    if (bad)
      return {
        ok: false,
        reason: 'audit:unsupported',
        detail: `${need.aspect}${need.target ? ` ${need.target}` : ''}: ${bad.verdict} (${bad.rationale.slice(0, 120)})`,
      };
  }
  return { ok: true };
}
