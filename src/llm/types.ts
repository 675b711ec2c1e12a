import type { z } from 'zod';

/**
 * The LLM roles memsteer uses. Each has its own model in config and its own row in the ledger.
 * `design` is a design's own `tools.llm` calls inside the sandbox.
 */
export type LlmRole = 'answerer' | 'judge' | 'planner' | 'questioner' | 'auditor' | 'reader' | 'proposer' | 'design';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens the provider served from its own prompt cache (billed cheaper). */
  cachedTokens: number;
}

export interface CompletionRequest {
  role: LlmRole;
  messages: ChatMessage[];
  maxTokens?: number;
  temperature?: number;
  /** Set false to skip memsteer's response cache for this call (read and write), e.g. when sampling for variety. */
  cache?: boolean;
}

export interface CompletionResult {
  text: string;
  usage: TokenUsage;
  /** True when served from memsteer's on-disk response cache (no call was made, nothing was paid). */
  cached: boolean;
  model: string;
  /** Dollars this call cost; null when the model has no price; 0 when served from the cache. Set by the real client. */
  cost?: number | null;
  /** Replies requested (HTTP retries and schema repairs included; a cache hit counts as one). Set by the real client. */
  attempts?: number;
}

export interface StructuredRequest<T> extends CompletionRequest {
  /** The reply must be JSON that this schema accepts; otherwise it is retried with the validation error. */
  schema: z.ZodType<T>;
  /** A short name for the schema, sent as the JSON-schema name. */
  schemaName: string;
}

export interface StructuredResult<T> extends Omit<CompletionResult, 'text'> {
  value: T;
  /** Attempts it took, including schema retries. */
  attempts: number;
}

/** The one LLM client every role goes through (any OpenAI-compatible endpoint). */
export interface LlmClient {
  complete(req: CompletionRequest): Promise<CompletionResult>;
  structured<T>(req: StructuredRequest<T>): Promise<StructuredResult<T>>;
  /** True when a model is configured for this role. */
  hasRole(role: LlmRole): boolean;
}
