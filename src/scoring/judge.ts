/**
 * The correctness judge, consulted when an answer is not a type-normalised exact match. With an LLM client
 * configured for the 'judge' role: a generous CORRECT/WRONG prompt (after Mem0's J), temperature 0, structured
 * reply. Offline: token F1 ≥ threshold, named 'f1-threshold' everywhere.
 */
import { z } from 'zod';
import type { AnswerType } from '../history/record.ts';
import type { LlmClient, TokenUsage } from '../llm/types.ts';
import { tokenF1 } from './metrics.ts';
import { loadPrompt, renderTemplate, type PromptTemplate } from './prompt-file.ts';

export interface JudgeRequest {
  question: string;
  reference: string;
  answer: string;
  answerType?: AnswerType;
}

export interface JudgeVerdict {
  correct: boolean;
  by: 'llm-judge' | 'f1-threshold';
  usage?: TokenUsage;
}

export interface Judge {
  /** 'llm-judge' or 'f1-threshold'. */
  readonly kind: 'llm-judge' | 'f1-threshold';
  /** Stable id for cache keys: `llm:<model>#judge@1` or `f1>=0.5`. */
  readonly id: string;
  judge(request: JudgeRequest): Promise<JudgeVerdict>;
}

export interface JudgeOptions {
  /** Used when it has a model for the 'judge' role; else the F1 threshold judge. */
  client?: LlmClient | null;
  /** Offline judge: correct iff SQuAD token F1 ≥ threshold (default 0.5). */
  threshold?: number;
  /** Replaces the prompt file's template. */
  prompt?: PromptTemplate;
  /** Model name for the id when the client cannot tell it. */
  model?: string;
}

/** The judge's reply. Both fields required and no transforms, so OpenAI's strict structured mode can take it. */
export const JudgeReplySchema = z.strictObject({
  reasoning: z.string(),
  label: z.enum(['CORRECT', 'WRONG']),
});

/** Builds the judge: LLM when `client` has a 'judge' model, else token-F1 ≥ threshold. */
export function createJudge(options: JudgeOptions = {}): Judge {
  const threshold = options.threshold ?? 0.5;
  const client = options.client;
  if (!client?.hasRole('judge')) {
    return {
      kind: 'f1-threshold',
      id: `f1>=${threshold}`,
      async judge(req) {
        return { correct: tokenF1(req.answer, req.reference) >= threshold, by: 'f1-threshold' };
      },
    };
  }
  const prompt = options.prompt ?? loadPrompt('judge');
  const model = options.model ?? (client as { modelFor?: (role: 'judge') => string | undefined }).modelFor?.('judge') ?? 'configured';
  return {
    kind: 'llm-judge',
    id: `llm:${model}#${prompt.version}`,
    async judge(req) {
      const values = { question: req.question, reference: req.reference, answer: req.answer };
      const r = await client.structured({
        role: 'judge',
        temperature: 0,
        maxTokens: 200,
        schema: JudgeReplySchema,
        schemaName: 'judge_verdict',
        messages: [
          { role: 'system', content: renderTemplate(prompt.system, values) },
          { role: 'user', content: renderTemplate(prompt.user, values) },
        ],
      });
      return { correct: r.value.label === 'CORRECT', by: 'llm-judge', usage: r.usage };
    },
  };
}
