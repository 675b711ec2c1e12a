import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { loadPrompt, renderTemplate } from '../../scoring/prompt-file.ts';
import { summarizeDiagnosis } from '../../diagnose/diagnosis.ts';
import type { LlmClient } from '../../llm/types.ts';
import { ProposalTarget } from '../../config/run-options.ts';
import type { Proposal, ProposalContext, Proposer } from './types.ts';
import { describeProfile, failureProfile, positionsOf } from './case-analysis.ts';

/**
 * The proposer's reply. Edits are loosely typed here on purpose: the loop validates each one against the edit-op
 * schema, records what was wrong and hands it back for repair, instead of the whole reply failing as malformed.
 */
export const ProposerReplySchema = z.object({
  target: ProposalTarget,
  rationale: z.string().min(1),
  edits: z.array(z.record(z.string(), z.unknown())),
});
export type ProposerReply = z.infer<typeof ProposerReplySchema>;

const CONTRACT = readFileSync(new URL('../../../sandbox/contract.ts', import.meta.url), 'utf8');
const PROMPTS = new URL('../prompts/', import.meta.url);

/** Keeps the prompt within budget: the most recent revisions and at most this many failure cases. */
const MAX_REVISIONS = 12;
const MAX_FAILURES = 30;

/**
 * The LLM proposer: sees the current design's source, its scores, the stratified failure cases (each with the
 * records ranked instead of its evidence and the signals read off it, plus their profile) and the revision
 * history (accepted and rejected, with rationales and failures), and answers with typed edit operations plus a
 * rationale naming the failure category it targets. On a repair attempt it also sees why its last edits failed.
 */
export function createLlmProposer(options: { client: LlmClient; maxTokens?: number }): Proposer {
  const prompt = loadPrompt('proposer', PROMPTS);
  return {
    name: 'llm',
    async propose(ctx: ProposalContext): Promise<Proposal | null> {
      // The same reading of the cases the offline case-driven proposer makes (case-analysis.ts).
      const position = ctx.training ? positionsOf((h) => ctx.training!.records(h)) : undefined;
      const profile = failureProfile(ctx.failures, position);
      const whyOf = new Map(profile.whys.map((w) => [`${w.history}\u0000${w.question}`, w.signals]));
      const values = {
        contract: CONTRACT,
        objective: ctx.objective,
        score: ctx.parent.score.toFixed(4),
        scores: JSON.stringify(ctx.parent.scores),
        diagnosis: ctx.diagnosis ? summarizeDiagnosis(ctx.diagnosis) : 'not available',
        profile: describeProfile(profile),
        failures: ctx.failures.length
          ? ctx.failures
              .slice(0, MAX_FAILURES)
              .map((f) => JSON.stringify({ ...f, why: whyOf.get(`${f.history}\u0000${f.question}`) ?? [] }))
              .join('\n')
          : '(none)',
        revisions: ctx.revisions.length
          ? ctx.revisions
              .slice(-MAX_REVISIONS)
              .map(
                (r) =>
                  `- ${r.id} from ${r.parent}: ${r.accepted ? 'ACCEPTED' : 'rejected'}` +
                  `${r.delta !== null ? ` (Δ ${r.delta.toFixed(4)})` : ''}; ${r.rationale}${r.failure ? `; failed: ${r.failure}` : ''}`,
              )
              .join('\n')
          : '(none yet)',
        source: ctx.parent.source,
        repair: ctx.repair
          ? `\nYour previous edits did not work (attempt ${ctx.repair.attempt}):\n${ctx.repair.feedback}\n` +
            `Previous edits: ${JSON.stringify(ctx.repair.edits).slice(0, 4000)}\nReturn corrected edits.`
          : '',
      };
      const r = await options.client.structured({
        role: 'proposer',
        schema: ProposerReplySchema,
        schemaName: 'design_edits',
        messages: [
          { role: 'system', content: renderTemplate(prompt.system, values) },
          { role: 'user', content: renderTemplate(prompt.user, values) },
        ],
        maxTokens: options.maxTokens ?? 4000,
        temperature: 0.7,
      });
      return {
        edits: r.value.edits,
        rationale: r.value.rationale,
        target: r.value.target,
        tokens: { prompt: r.usage.promptTokens, completion: r.usage.completionTokens },
      };
    },
  };
}

/** Prompt version, for the run manifest. */
export function proposerPromptVersion(): string {
  return loadPrompt('proposer', PROMPTS).version;
}
