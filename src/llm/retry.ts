/** Backoff and `retry-after` arithmetic, kept pure so it can be tested without a server. */

/** Sleeps `ms`; injectable so tests can record the delay instead of waiting. */
export type SleepFn = (ms: number) => Promise<void>;

export const realSleep: SleepFn = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Something with a `get(name)` like the fetch `Headers` the openai SDK attaches to its errors. */
export interface HeaderLookup {
  get(name: string): string | null;
}

/**
 * The wait a server asked for, in ms, from `retry-after-ms` (ms) or `retry-after` (seconds, or an HTTP date);
 * undefined when absent or unreadable. Negative waits (a date in the past) become 0.
 */
export function parseRetryAfter(headers: HeaderLookup | undefined, nowMs: number): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n)) return Math.max(0, n);
  }
  const ra = headers.get('retry-after');
  if (ra === null || ra.trim() === '') return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * Delay before retry number `retry` (1-based): base·2^(retry−1), capped at `maxMs`, then shrunk by up to a quarter
 * at random so many clients that failed together do not come back together.
 */
export function backoffDelay(retry: number, baseMs: number, maxMs: number, random: () => number): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.max(0, retry - 1));
  return raw * (1 - 0.25 * random());
}
