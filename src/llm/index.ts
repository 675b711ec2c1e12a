/** The one LLM client every role goes through, and what comes with it (config, errors, ledger, budget, cache). */
export type {
  ChatMessage,
  CompletionRequest,
  CompletionResult,
  LlmClient,
  LlmRole,
  StructuredRequest,
  StructuredResult,
  TokenUsage,
} from './types.ts';
export {
  createLlmClient,
  openLlmClient,
  DEFAULT_BASE_URL,
  type LlmClientDeps,
  type MeteredLlmClient,
  type EmbedRequest,
  type EmbedResult,
} from './client.ts';
export {
  loadLlmConfig,
  parseLlmConfig,
  isLlmConfigured,
  redactLlmConfig,
  LLM_ROLES,
  LLM_ENV_VARS,
  LlmConfigSchema,
  ModelPriceSchema,
  BudgetLimitsSchema,
  type LlmConfig,
  type LlmConfigInput,
  type ModelPrice,
  type BudgetLimits,
} from './config.ts';
export { LlmError, BudgetExceededError, type LlmErrorCode } from './errors.ts';
export {
  Ledger,
  sumEntries,
  LedgerEntrySchema,
  LedgerTotalsSchema,
  LedgerSnapshotSchema,
  type LedgerEntry,
  type LedgerTotals,
  type LedgerSnapshot,
} from './ledger.ts';
export { Budget, estimateCall, type CallEstimate } from './budget.ts';
export { CircuitBreaker, type BreakerFailure } from './breaker.ts';
export { maskSecret, MASK } from './mask.ts';
export {
  ResponseCache,
  cacheKey,
  canonicalJson,
  CachedResponseSchema,
  type CacheKeyInput,
  type EmbeddingKeyInput,
  type CachedResponse,
} from './cache.ts';
export { costOf } from './pricing.ts';
export { Limiter } from './limiter.ts';
export { parseRetryAfter, backoffDelay, realSleep, type SleepFn } from './retry.ts';
export { toResponseSchema, parseStructured, type ResponseSchema } from './structured.ts';
