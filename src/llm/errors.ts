import { MemsteerError } from '../errors.ts';
import type { LlmRole, TokenUsage } from './types.ts';

/**
 * Stable codes of `LlmError`:
 * - `E_LLM_HTTP`: the endpoint answered with an error status (4xx other than auth/rate limit, or 5xx after all retries).
 * - `E_LLM_AUTH`: 401/403, the key or base URL is wrong.
 * - `E_LLM_RATE_LIMIT`: still 429 after all retries.
 * - `E_LLM_TIMEOUT`: no answer within `timeoutMs`, after all retries.
 * - `E_LLM_CONNECTION`: the endpoint could not be reached, after all retries.
 * - `E_LLM_SCHEMA`: the reply was not JSON the schema accepts, after all repair attempts.
 * - `E_LLM_NO_MODEL`: the role has no model configured (check `hasRole` first).
 * - `E_LLM_CONFIG`: the LLM configuration is invalid.
 * - `E_LLM_CIRCUIT`: the circuit breaker is open: calls kept failing the same way, so no more are sent (nothing was
 *   sent for this call). Work that stops on it can be resumed once the endpoint is healthy.
 */
export type LlmErrorCode =
  | 'E_LLM_HTTP'
  | 'E_LLM_AUTH'
  | 'E_LLM_RATE_LIMIT'
  | 'E_LLM_TIMEOUT'
  | 'E_LLM_CONNECTION'
  | 'E_LLM_SCHEMA'
  | 'E_LLM_NO_MODEL'
  | 'E_LLM_CONFIG'
  | 'E_LLM_CIRCUIT';

/** A model call failed for good (retries and repairs are already spent). */
export class LlmError extends MemsteerError {
  declare readonly code: LlmErrorCode;
  readonly role: LlmRole | undefined;
  readonly model: string | undefined;
  /** HTTP status when the endpoint answered. */
  readonly status: number | undefined;
  /** Requests sent for this call before giving up. */
  readonly attempts: number;
  /**
   * Tokens billed by this call before it failed (a reply that failed schema validation was still paid for); set
   * by the client. The ledger books them too.
   */
  billed: TokenUsage | undefined;

  constructor(
    code: LlmErrorCode,
    message: string,
    options: { role?: LlmRole; model?: string; status?: number; attempts?: number; cause?: unknown } = {},
  ) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'LlmError';
    this.role = options.role;
    this.model = options.model;
    this.status = options.status;
    this.attempts = options.attempts ?? 0;
  }
}

/** The call would cross the configured budget; nothing was sent. Callers should stop cleanly and keep what they have. */
export class BudgetExceededError extends MemsteerError {
  declare readonly code: 'E_BUDGET';
  readonly role: LlmRole;
  /** Which limit would be crossed. */
  readonly limit: 'tokens' | 'dollars';
  /** Spent (and reserved by calls in flight) before this call. */
  readonly spent: number;
  /** This call's estimate. */
  readonly estimate: number;
  readonly max: number;

  constructor(role: LlmRole, limit: 'tokens' | 'dollars', spent: number, estimate: number, max: number) {
    const fmt = (n: number): string => (limit === 'dollars' ? `$${n.toFixed(4)}` : `${Math.round(n)} tokens`);
    super(
      'E_BUDGET',
      `LLM budget reached: a ${role} call (estimated ${fmt(estimate)}) would bring spending from ${fmt(spent)} past the ` +
        `limit of ${fmt(max)}; raise the ${limit === 'dollars' ? 'dollar' : 'token'} budget to continue`,
    );
    this.name = 'BudgetExceededError';
    this.role = role;
    this.limit = limit;
    this.spent = spent;
    this.estimate = estimate;
    this.max = max;
  }
}
