import { LlmError } from './errors.ts';

/** What the breaker knows about one failed call. */
export interface BreakerFailure {
  code: string;
  status?: number | undefined;
  message: string;
}

/**
 * Stops LLM work against an endpoint that keeps failing the same way (a hung server, a revoked key, a dead model):
 * after `threshold` consecutive final failures (retries already spent) with the same code and HTTP status, it opens
 * and every later call is refused with `E_LLM_CIRCUIT` before anything is sent. Any success closes the count again.
 * Failures of the reply itself (schema) and of our own configuration say nothing about the endpoint and are not
 * counted. It never closes by itself once open: a run that stopped on it is meant to be resumed later, not to
 * probe the endpoint for hours.
 */
export class CircuitBreaker {
  private streak: { key: string; count: number } | undefined;
  private opened: LlmError | undefined;

  /** `threshold` 0 disables the breaker. */
  constructor(readonly threshold: number) {}

  /** The error calls are refused with, once open. */
  get openError(): LlmError | undefined {
    return this.opened;
  }

  /** True for the error {@link check} throws once the breaker is open (a call refused, never sent). */
  isOpenError(err: unknown): boolean {
    return this.opened !== undefined && err === this.opened;
  }

  /** Throws when open. */
  check(): void {
    if (this.opened) throw this.opened;
  }

  success(): void {
    this.streak = undefined;
  }

  /** Books a final failure; returns the breaker's error when this failure opened it. */
  failure(f: BreakerFailure): LlmError | undefined {
    if (this.threshold <= 0 || !COUNTED.has(f.code)) return undefined;
    const key = `${f.code}:${f.status ?? '-'}`;
    this.streak = this.streak?.key === key ? { key, count: this.streak.count + 1 } : { key, count: 1 };
    if (this.streak.count < this.threshold) return undefined;
    this.opened ??= new LlmError(
      'E_LLM_CIRCUIT',
      `stopped calling the LLM endpoint after ${this.streak.count} calls in a row failed the same way ` +
        `(${f.code}${f.status === undefined ? '' : ` HTTP ${f.status}`}): ${f.message}; ` +
        'fix the endpoint, then run the same command again to resume (MEMSTEER_LLM_BREAKER sets the count, 0 disables it)',
      f.status === undefined ? {} : { status: f.status },
    );
    return this.opened;
  }
}

/** Endpoint failures: the same one over and over means the endpoint, not the request, is the problem. */
const COUNTED = new Set(['E_LLM_HTTP', 'E_LLM_AUTH', 'E_LLM_RATE_LIMIT', 'E_LLM_TIMEOUT', 'E_LLM_CONNECTION']);
