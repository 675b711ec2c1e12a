import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BudgetExceededError,
  Budget,
  Ledger,
  Limiter,
  backoffDelay,
  cacheKey,
  costOf,
  estimateCall,
  parseRetryAfter,
  parseStructured,
  redactLlmConfig,
  loadLlmConfig,
  toResponseSchema,
} from '../src/llm/index.ts';
import { isStrictCompatible } from '../src/llm/structured.ts';
import { countTokens } from '../src/text/text.ts';

const headers = (h: Record<string, string>) => new Headers(h);

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-03-01T12:00:00Z');
  it('reads ms, seconds and HTTP dates, ms first', () => {
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(parseRetryAfter(headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(parseRetryAfter(headers({ 'retry-after-ms': '40', 'retry-after': '7' }), now)).toBe(40);
    expect(parseRetryAfter(headers({ 'retry-after': 'Sat, 01 Mar 2025 12:00:10 GMT' }), now)).toBe(10_000);
  });
  it('ignores what it cannot read and clamps the past to 0', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after': 'Sat, 01 Mar 2025 11:00:00 GMT' }), now)).toBe(0);
  });
});

describe('backoffDelay', () => {
  it('doubles per retry, caps, and jitters down by at most a quarter', () => {
    expect([1, 2, 3, 4].map((r) => backoffDelay(r, 500, 30_000, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffDelay(10, 500, 30_000, () => 0)).toBe(30_000);
    expect(backoffDelay(1, 500, 30_000, () => 1)).toBe(375);
  });
});

describe('costOf', () => {
  it('prices prompt, cached and completion tokens per million, null when unpriced', () => {
    const u = { promptTokens: 2_000_000, completionTokens: 1_000_000, cachedTokens: 1_000_000 };
    expect(costOf(u, { prompt: 2, completion: 8, cached: 0.5 })).toBeCloseTo(2 + 0.5 + 8, 10);
    expect(costOf(u, { prompt: 2, completion: 8 })).toBeCloseTo(4 + 8, 10);
    expect(costOf(u, undefined)).toBeNull();
  });
});

describe('cacheKey', () => {
  const base = { baseURL: 'http://x/v1', model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0 };
  it('is stable under key order and undefined fields, and changes with any request field', () => {
    const k = cacheKey(base);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(
      cacheKey({ temperature: 0, messages: [{ content: 'hi', role: 'user' }], model: 'm', baseURL: 'http://x/v1', maxTokens: undefined }),
    ).toBe(k);
    expect(cacheKey({ ...base, model: 'n' })).not.toBe(k);
    expect(cacheKey({ ...base, baseURL: 'http://y/v1' })).not.toBe(k);
    expect(cacheKey({ ...base, maxTokens: 5 })).not.toBe(k);
    expect(cacheKey({ ...base, responseFormat: { type: 'json_schema' } })).not.toBe(k);
  });
});

describe('structured helpers', () => {
  it('marks schemas with optional fields as non-strict', () => {
    expect(toResponseSchema(z.object({ a: z.string(), b: z.array(z.object({ c: z.number() })) }), 'x').strict).toBe(true);
    expect(toResponseSchema(z.object({ a: z.string(), b: z.number().optional() }), 'x').strict).toBe(false);
    expect(isStrictCompatible({ type: 'object', properties: { a: {} }, required: ['a'] })).toBe(false);
    const rs = toResponseSchema(z.object({ a: z.string() }), 'my schema!');
    expect(rs.name).toBe('my_schema_');
    expect(rs.schema.$schema).toBeUndefined();
  });
  it('parses fenced JSON and explains failures', () => {
    const s = z.object({ n: z.number() });
    expect(parseStructured('```json\n{"n": 3}\n```', s)).toEqual({ ok: true, value: { n: 3 } });
    expect(parseStructured('  {"n": 3}  ', s)).toEqual({ ok: true, value: { n: 3 } });
    const bad = parseStructured('{"n": "3"}', s);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toContain('n: Invalid input: expected number, received string');
    expect(parseStructured('', s)).toEqual({ ok: false, error: 'the reply was empty' });
    const notJson = parseStructured('{n: 3}', s);
    expect(!notJson.ok && notJson.error).toMatch(/^the reply is not valid JSON/);
  });
});

describe('Limiter', () => {
  it('runs at most `limit` tasks at once, in arrival order', async () => {
    const lim = new Limiter(2);
    const started: number[] = [];
    const gates: Array<() => void> = [];
    const tasks = [0, 1, 2, 3].map((i) =>
      lim.run(async () => {
        started.push(i);
        await new Promise<void>((r) => gates.push(r));
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(lim.queued).toBe(2);
    gates[0]!();
    await tasks[0];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    expect(lim.running).toBe(2);
    gates[1]!();
    await new Promise((r) => setImmediate(r));
    gates[2]!();
    await new Promise((r) => setImmediate(r));
    gates[3]!();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3]);
    expect(lim.running).toBe(0);
  });
  it('frees the slot when a task throws', async () => {
    const lim = new Limiter(1);
    await expect(lim.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lim.run(async () => 7)).toBe(7);
  });
});

describe('Budget', () => {
  it('counts reservations of calls in flight, then settles them to the real spend', () => {
    const b = new Budget({ maxTokens: 100 });
    const settleA = b.reserve('judge', { tokens: 60, dollars: null });
    expect(() => b.reserve('judge', { tokens: 50, dollars: null })).toThrow(BudgetExceededError);
    settleA({ tokens: 20, dollars: null });
    expect(b.spent.tokens).toBe(20);
    const settleB = b.reserve('judge', { tokens: 50, dollars: null });
    expect(b.remaining.tokens).toBe(30);
    settleB({ tokens: 50, dollars: null });
    settleB({ tokens: 50, dollars: null }); // settling twice changes nothing
    expect(b.spent.tokens).toBe(70);
  });
  it('estimates prompt tokens with countTokens plus framing, and completion with maxTokens', () => {
    const msgs = [{ role: 'user' as const, content: 'How many cats live with Melanie?' }];
    const est = estimateCall(msgs, '', 100, { prompt: 1_000_000, completion: 0 });
    expect(est.tokens).toBe(countTokens(msgs[0]!.content) + 4 + 100);
    expect(est.dollars).toBeCloseTo(countTokens(msgs[0]!.content) + 4, 10);
    expect(estimateCall(msgs, '', 100, undefined).dollars).toBeNull();
  });
});

describe('Ledger', () => {
  it('keeps cost null in totals once any billed call is unpriced', () => {
    const l = new Ledger();
    const base = {
      model: 'm',
      kind: 'complete' as const,
      completionTokens: 1,
      cachedTokens: 0,
      latencyMs: 1,
      cached: false,
      attempts: 1,
      ok: true,
      at: new Date(0).toISOString(),
    };
    l.record({ ...base, role: 'judge', promptTokens: 10, cost: 0.5 });
    expect(l.totals().cost).toBe(0.5);
    l.record({ ...base, role: 'reader', promptTokens: 10, cost: null });
    expect(l.totals()).toMatchObject({ cost: null, knownCost: 0.5, unknownCostCalls: 1 });
    expect(l.totals('judge').cost).toBe(0.5);
    expect(() => l.record({ ...base, role: 'judge', promptTokens: -1, cost: 0 })).toThrow();
  });
});

describe('redactLlmConfig', () => {
  it('never lets the key out', () => {
    const cfg = loadLlmConfig({ OPENAI_API_KEY: 'sk-secret' });
    expect(JSON.stringify(redactLlmConfig(cfg))).not.toContain('sk-secret');
    expect(redactLlmConfig(cfg).apiKey).toBe('<set>');
  });
});
