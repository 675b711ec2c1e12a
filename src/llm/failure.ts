import OpenAI from 'openai';
import type { LlmErrorCode } from './errors.ts';
import { parseRetryAfter } from './retry.ts';

/** A failed request, sorted: which code it ends as, and whether another attempt can help. */
export interface Failure {
  code: LlmErrorCode;
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  detail: string;
}

/** Sorts an error from the openai SDK into our codes and decides whether another attempt can help. */
export function classify(err: unknown, nowMs: number): Failure {
  const detail = oneLine(err instanceof Error ? err.message : String(err));
  if (err instanceof OpenAI.APIConnectionTimeoutError) return { code: 'E_LLM_TIMEOUT', retryable: true, detail };
  if (err instanceof OpenAI.APIUserAbortError) return { code: 'E_LLM_CONNECTION', retryable: false, detail };
  if (err instanceof OpenAI.APIConnectionError) {
    const cause = err.cause instanceof Error ? `: ${oneLine(err.cause.message)}` : '';
    return { code: 'E_LLM_CONNECTION', retryable: true, detail: detail + cause };
  }
  if (err instanceof OpenAI.APIError && err.status !== undefined) {
    const status = err.status;
    const retryAfterMs = parseRetryAfter(err.headers, nowMs);
    const base = { status, detail, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    if (status === 429) return { code: 'E_LLM_RATE_LIMIT', retryable: true, ...base };
    if (status === 401 || status === 403) return { code: 'E_LLM_AUTH', retryable: false, ...base };
    return { code: 'E_LLM_HTTP', retryable: status === 408 || status === 409 || status >= 500, ...base };
  }
  return { code: 'E_LLM_HTTP', retryable: false, detail };
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
