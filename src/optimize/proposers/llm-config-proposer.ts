import { z } from 'zod';
import { loadPrompt, renderTemplate } from '../../scoring/prompt-file.ts';
import { summarizeDiagnosis } from '../../diagnose/diagnosis.ts';
import type { LlmClient } from '../../llm/types.ts';
import { ProposalTarget } from '../../config/run-options.ts';
import { CONFIG_FIELDS, CONFIG_NAMES, describeField, isActive, readConfig } from '../config-space.ts';
import type { Proposal, ProposalContext, Proposer } from './types.ts';

/**
 * The config proposer's reply. `change` is loosely typed on purpose: each knob becomes a set-constant edit that
 * the loop applies and checks against the config schema (through the config-space compile guard), so an unknown
 * knob or an out-of-range value is recorded and handed back for repair like a bad code edit, instead of the whole
 * reply failing as malformed.
 */
export const ConfigProposerReplySchema = z.object({
  change: z.record(z.string(), z.unknown()),
  rationale: z.string().min(1),
  target: ProposalTarget,
});
export type ConfigProposerReply = z.infer<typeof ConfigProposerReplySchema>;

const PROMPTS = new URL('../prompts/', import.meta.url);
const MAX_REVISIONS = 16;
const MAX_FAILURES = 30;

/** The knob table the model reads: current value, accepted values, meaning, and whether it has an effect now. */
export function renderKnobs(source: string): string {
  const config = readConfig(source);
  return CONFIG_NAMES.map(
    (n) =>
      `- ${n} = ${JSON.stringify(config[n])}: ${describeField(n)} — ${CONFIG_FIELDS[n].doc}${isActive(n, config) ? '' : ' (inactive)'}`,
  ).join('\n');
}

/**
 * The LLM config proposer: the same inputs as the code proposer (scores, diagnosis, stratified failures, revision
 * history) but the design is shown as its knobs, and the reply is a change to some of them with a rationale naming
 * the failure category it targets.
 */
export function createLlmConfigProposer(options: { client: LlmClient; maxTokens?: number }): Proposer {
  const prompt = loadPrompt('config-proposer', PROMPTS);
  return {
    name: 'llm-config',
    async propose(ctx: ProposalContext): Promise<Proposal | null> {
      const values = {
        objective: ctx.objective,
        score: ctx.parent.score.toFixed(4),
        scores: JSON.stringify(ctx.parent.scores),
        knobs: renderKnobs(ctx.parent.source),
        diagnosis: ctx.diagnosis ? summarizeDiagnosis(ctx.diagnosis) : 'not available',
        failures: ctx.failures.length
          ? ctx.failures
              .slice(0, MAX_FAILURES)
              .map((f) => JSON.stringify(f))
              .join('\n')
          : '(none)',
        revisions: ctx.revisions.length
          ? ctx.revisions
              .slice(-MAX_REVISIONS)
              .map((r) => {
                const delta = r.delta !== null ? ` (Δ ${r.delta.toFixed(4)})` : '';
                const failed = r.failure ? `; failed: ${r.failure}` : '';
                return (
                  `- ${r.id} from ${r.parent}: ${r.accepted ? 'ACCEPTED' : 'rejected'}${delta}; ` +
                  `${r.edits.join(', ') || '(no change applied)'}; ${r.rationale}${failed}`
                );
              })
              .join('\n')
          : '(none yet)',
        repair: ctx.repair
          ? `\nYour previous change did not work (attempt ${ctx.repair.attempt}):\n${ctx.repair.feedback}\n` +
            `Previous change: ${JSON.stringify(changeOf(ctx.repair.edits)).slice(0, 2000)}\nReturn a corrected change.`
          : '',
      };
      const r = await options.client.structured({
        role: 'proposer',
        schema: ConfigProposerReplySchema,
        schemaName: 'config_change',
        messages: [
          { role: 'system', content: renderTemplate(prompt.system, values) },
          { role: 'user', content: renderTemplate(prompt.user, values) },
        ],
        maxTokens: options.maxTokens ?? 1500,
        temperature: 0.7,
      });
      return {
        edits: Object.entries(r.value.change).map(([name, value]) => ({ op: 'set-constant', name, value })),
        rationale: r.value.rationale,
        target: r.value.target,
        tokens: { prompt: r.usage.promptTokens, completion: r.usage.completionTokens },
      };
    },
  };
}

/** The change a list of set-constant edits made (for the repair prompt). */
function changeOf(edits: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of edits) {
    const x = e as { op?: unknown; name?: unknown; value?: unknown };
    if (x && x.op === 'set-constant' && typeof x.name === 'string') out[x.name] = x.value;
  }
  return out;
}

/** Prompt version, for the run manifest. */
export function configProposerPromptVersion(): string {
  return loadPrompt('config-proposer', PROMPTS).version;
}
