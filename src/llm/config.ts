import { z } from 'zod';
import { describeZodIssues } from '../errors.ts';
import { LlmError } from './errors.ts';
import type { LlmRole } from './types.ts';

/** Every role, in ledger order. */
export const LLM_ROLES = [
  'answerer',
  'judge',
  'planner',
  'questioner',
  'auditor',
  'reader',
  'proposer',
  'design',
] as const satisfies readonly LlmRole[];

/** Dollars per 1M tokens. `cached` (prompt tokens served from the provider's prompt cache) defaults to `prompt`. */
export const ModelPriceSchema = z.object({
  prompt: z.number().nonnegative(),
  completion: z.number().nonnegative(),
  cached: z.number().nonnegative().optional(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** A hard limit on spending across the client's life; either or both. */
export const BudgetLimitsSchema = z.object({
  maxTokens: z.number().int().positive().optional(),
  maxDollars: z.number().positive().optional(),
});
export type BudgetLimits = z.infer<typeof BudgetLimitsSchema>;

const RoleModelsSchema = z.object(
  Object.fromEntries(LLM_ROLES.map((r) => [r, z.string().min(1).optional()])) as Record<LlmRole, z.ZodOptional<z.ZodString>>,
);

/** The validated LLM configuration. Build it with `loadLlmConfig`. */
export const LlmConfigSchema = z.object({
  /** Sent as the Bearer token; never written to the cache or the ledger. */
  apiKey: z.string().min(1).optional(),
  /** Any OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1`. Default: the OpenAI API. */
  baseURL: z.url().optional(),
  /** The model per role; a role without one has `hasRole(role) === false`. */
  models: RoleModelsSchema.default({}),
  /** The embedding model (`embed`); absent = `hasEmbeddings() === false`, and designs use a local embedding. */
  embeddingModel: z.string().min(1).optional(),
  /** Requested vector size, for models that can shorten their embeddings. */
  embeddingDimensions: z.number().int().positive().optional(),
  /** Prices per model name (embedding models use the `prompt` price); a model without a price has unknown (null) cost. */
  prices: z.record(z.string(), ModelPriceSchema).default({}),
  /** Retries after the first attempt for 429/5xx/timeouts/connection errors. 0 = one attempt only. */
  retries: z.number().int().nonnegative().default(3),
  /** First backoff delay; doubled each retry, with jitter, capped by `maxBackoffMs`. */
  backoffMs: z.number().nonnegative().default(500),
  maxBackoffMs: z.number().nonnegative().default(30_000),
  /** A server's `retry-after` is honoured up to this long. */
  maxRetryAfterMs: z.number().nonnegative().default(120_000),
  /** Requests in flight at once. */
  concurrency: z.number().int().positive().default(4),
  /** Per request. */
  timeoutMs: z.number().int().positive().default(60_000),
  /**
   * The circuit breaker: after this many calls in a row fail the same way (same code and HTTP status, retries
   * spent), no more calls are sent and each is refused with `E_LLM_CIRCUIT`. 0 disables it.
   */
  breakerFailures: z.number().int().nonnegative().default(5),
  /** How many times a reply that fails the schema is sent back with the error before giving up. */
  schemaRepairs: z.number().int().nonnegative().default(2),
  /** The on-disk response cache directory; absent = no cache. */
  cacheDir: z.string().min(1).optional(),
  /** Turns the cache off even when `cacheDir` is set. */
  cache: z.boolean().default(true),
  budget: BudgetLimitsSchema.default({}),
  /** Completion tokens assumed for the budget estimate when a request sets no `maxTokens`. */
  defaultMaxTokens: z.number().int().positive().default(1024),
  /**
   * Which request field carries `maxTokens`: OpenAI's reasoning models accept only `max_completion_tokens`; many
   * OpenAI-compatible servers only `max_tokens`.
   */
  maxTokensParam: z.enum(['max_tokens', 'max_completion_tokens']).default('max_tokens'),
});
export type LlmConfig = z.infer<typeof LlmConfigSchema>;
/** What `loadLlmConfig` accepts as overrides (every field optional; `models`, `prices`, `budget` merge key by key). */
export type LlmConfigInput = z.input<typeof LlmConfigSchema>;

/**
 * Environment variables read by `loadLlmConfig` (empty values count as unset):
 * `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `MEMSTEER_MODEL` (every role without its own), `MEMSTEER_MODEL_<ROLE>`
 * (e.g. `MEMSTEER_MODEL_ANSWERER`), `MEMSTEER_LLM_RETRIES`, `MEMSTEER_LLM_CONCURRENCY`, `MEMSTEER_LLM_TIMEOUT_MS`,
 * `MEMSTEER_LLM_CACHE_DIR`, `MEMSTEER_LLM_CACHE` (`0`/`off`/`false` turns it off), `MEMSTEER_LLM_BUDGET_TOKENS`,
 * `MEMSTEER_LLM_BUDGET_USD`, `MEMSTEER_EMBEDDING_MODEL`, `MEMSTEER_LLM_BREAKER` (consecutive identical failures that stop LLM
 * work; 0 disables).
 */
export const LLM_ENV_VARS = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'MEMSTEER_MODEL',
  ...LLM_ROLES.map((r) => `MEMSTEER_MODEL_${r.toUpperCase()}`),
  'MEMSTEER_LLM_RETRIES',
  'MEMSTEER_LLM_CONCURRENCY',
  'MEMSTEER_LLM_TIMEOUT_MS',
  'MEMSTEER_LLM_CACHE_DIR',
  'MEMSTEER_LLM_CACHE',
  'MEMSTEER_LLM_BUDGET_TOKENS',
  'MEMSTEER_LLM_BUDGET_USD',
  'MEMSTEER_EMBEDDING_MODEL',
  'MEMSTEER_LLM_BREAKER',
] as const;

/**
 * Reads the LLM configuration from environment variables (see `LLM_ENV_VARS`), then applies `overrides` on top
 * (explicit settings win). Throws LlmError `E_LLM_CONFIG` naming the bad setting.
 */
export function loadLlmConfig(env: Record<string, string | undefined> = process.env, overrides: LlmConfigInput = {}): LlmConfig {
  const get = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const num = (name: string): number | undefined => {
    const v = get(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n))
      throw new LlmError('E_LLM_CONFIG', `${name}=${JSON.stringify(v)} is not a number; set it to a number or unset it`);
    return n;
  };

  const fallbackModel = get('MEMSTEER_MODEL');
  const envModels: Partial<Record<LlmRole, string>> = {};
  for (const role of LLM_ROLES) {
    const m = get(`MEMSTEER_MODEL_${role.toUpperCase()}`) ?? fallbackModel;
    if (m) envModels[role] = m;
  }
  const cacheFlag = get('MEMSTEER_LLM_CACHE');
  const fromEnv: LlmConfigInput = {
    apiKey: get('OPENAI_API_KEY'),
    baseURL: get('OPENAI_BASE_URL'),
    retries: num('MEMSTEER_LLM_RETRIES'),
    concurrency: num('MEMSTEER_LLM_CONCURRENCY'),
    timeoutMs: num('MEMSTEER_LLM_TIMEOUT_MS'),
    breakerFailures: num('MEMSTEER_LLM_BREAKER'),
    cacheDir: get('MEMSTEER_LLM_CACHE_DIR'),
    embeddingModel: get('MEMSTEER_EMBEDDING_MODEL'),
    cache: cacheFlag === undefined ? undefined : !/^(0|off|false|no)$/i.test(cacheFlag),
    budget: { maxTokens: num('MEMSTEER_LLM_BUDGET_TOKENS'), maxDollars: num('MEMSTEER_LLM_BUDGET_USD') },
  };

  const merged: Record<string, unknown> = {
    ...dropUndefined(fromEnv as Record<string, unknown>),
    ...dropUndefined(overrides as Record<string, unknown>),
  };
  merged.models = { ...envModels, ...dropUndefined(overrides.models ?? {}) };
  merged.prices = { ...(overrides.prices ?? {}) };
  merged.budget = { ...dropUndefined(fromEnv.budget ?? {}), ...dropUndefined(overrides.budget ?? {}) };
  return parseLlmConfig(merged);
}

/** Validates a complete configuration object (e.g. one read back from a run manifest). */
export function parseLlmConfig(input: unknown): LlmConfig {
  const r = LlmConfigSchema.safeParse(input);
  if (!r.success) throw new LlmError('E_LLM_CONFIG', `invalid LLM configuration: ${describeZodIssues(r.error.issues)}`);
  return r.data;
}

/**
 * True when there is an endpoint to call: an API key, or a base URL (local OpenAI-compatible servers often need
 * no key). Without either, callers use their offline algorithm.
 */
export function isLlmConfigured(config: LlmConfig): boolean {
  return config.apiKey !== undefined || config.baseURL !== undefined;
}

/** The configuration as it may be written to a manifest: everything except the API key. */
export function redactLlmConfig(config: LlmConfig): Omit<LlmConfig, 'apiKey'> & { apiKey?: '<set>' } {
  const { apiKey, ...rest } = config;
  return apiKey === undefined ? rest : { ...rest, apiKey: '<set>' };
}

function dropUndefined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
