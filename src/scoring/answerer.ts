/**
 * The fixed answerer: reads a design's context and answers the question. With an LLM client configured for the
 * 'answerer' role it asks the model with a fixed prompt at temperature 0; otherwise it runs the extractive reader.
 * Fixed across designs, so score differences are the designs' doing.
 */
import type { AnswerType, QAItem } from '../history/record.ts';
import type { LlmClient, TokenUsage } from '../llm/types.ts';
import { EXTRACTIVE_READER, extractiveAnswer, type ExtractiveReaderOptions } from './extractive-reader.ts';
import { loadPrompt, renderTemplate, type PromptTemplate } from './prompt-file.ts';

/** One question to answer from a context. */
export interface AnswerRequest {
  question: string;
  /** ISO date the question is asked on. */
  date?: string;
  answerType?: AnswerType;
  context: string;
}

export interface AnswerResult {
  answer: string;
  /** `llm:<model>` or `extractive-reader`. */
  by: `llm:${string}` | 'extractive-reader';
  usage?: TokenUsage;
}

export interface Answerer {
  /** Stable id of the answerer and its prompt (cache keys, manifests): `llm:<model>#answerer@2` or `extractive-reader@2`. */
  readonly id: string;
  answer(request: AnswerRequest): Promise<AnswerResult>;
}

export interface AnswererOptions {
  /** The LLM client; used when it has a model for the 'answerer' role. Null/absent → extractive reader. */
  client?: LlmClient | null;
  /** Replaces the prompt file's template (tests, experiments). */
  prompt?: PromptTemplate;
  /** Model name for the id when the client cannot tell it before the first call. */
  model?: string;
  /** Completion cap (default 64 tokens: answers are short phrases). */
  maxTokens?: number;
  /** Options for the offline extractive reader. */
  reader?: ExtractiveReaderOptions;
}

const TYPE_HINTS: Record<AnswerType, string> = {
  text: '',
  number: 'Answer with a number (and its unit, if any).\n',
  list: 'Answer with a comma-separated list.\n',
  boolean: 'Answer Yes or No.\n',
  date: 'Answer with a date.\n',
};

/** Builds the answerer: LLM when `client` has an 'answerer' model, else the extractive reader. */
export function createAnswerer(options: AnswererOptions = {}): Answerer {
  const client = options.client;
  if (!client?.hasRole('answerer')) {
    return {
      id: EXTRACTIVE_READER,
      async answer(req) {
        const r = extractiveAnswer(req.question, req.context, {
          ...options.reader,
          ...(req.answerType ? { answerType: req.answerType } : {}),
        });
        return { answer: r.answer, by: 'extractive-reader' };
      },
    };
  }
  const prompt: PromptTemplate = options.prompt ?? loadPrompt('answerer');
  const model = options.model ?? (client as { modelFor?: (role: 'answerer') => string | undefined }).modelFor?.('answerer') ?? 'configured';
  return {
    id: `llm:${model}#${prompt.version}`,
    async answer(req) {
      const values = {
        context: req.context.trim() === '' ? '(empty)' : req.context,
        question: req.question,
        dateLine: req.date ? `Today is ${req.date}.\n` : '',
        typeHint: req.answerType ? TYPE_HINTS[req.answerType] : '',
      };
      const result = await client.complete({
        role: 'answerer',
        temperature: 0,
        maxTokens: options.maxTokens ?? 64,
        messages: [
          { role: 'system', content: renderTemplate(prompt.system, values) },
          { role: 'user', content: renderTemplate(prompt.user, values) },
        ],
      });
      return { answer: cleanAnswer(result.text), by: `llm:${result.model}`, usage: result.usage };
    },
  };
}

/** Strips what models add around a short answer: "Answer:" prefixes, wrapping quotes, trailing periods. */
export function cleanAnswer(text: string): string {
  let s =
    text
      .trim()
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  s = s.replace(/^(?:short answer|answer)\s*:\s*/i, '').replace(/\.$/, '');
  if (/^".*"$/.test(s) || /^'.*'$/.test(s)) s = s.slice(1, -1);
  return s.replace(/\.$/, '').trim();
}

/**
 * The shape src/evaluate/evaluate.ts calls (`EvalAnswerer`): answer a question from a context string. It takes the
 * question's text and date only: an answer type inferred from the gold answer would tell the answerer something
 * about the answer, so the answerer reads the kind of answer wanted from the question itself.
 */
export function toEvalAnswerer(answerer: Answerer): {
  readonly id: string;
  answer(
    question: Pick<QAItem, 'question' | 'date'>,
    context: string,
  ): Promise<{ answer: string; promptTokens?: number; completionTokens?: number }>;
} {
  return {
    id: answerer.id,
    async answer(q, context) {
      const r = await answerer.answer({ question: q.question, context, ...(q.date ? { date: q.date } : {}) });
      return { answer: r.answer, ...(r.usage ? { promptTokens: r.usage.promptTokens, completionTokens: r.usage.completionTokens } : {}) };
    },
  };
}
