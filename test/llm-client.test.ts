import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BudgetExceededError,
  LedgerSnapshotSchema,
  LlmError,
  createLlmClient,
  loadLlmConfig,
  openLlmClient,
  type LlmClientDeps,
  type LlmConfigInput,
  type MeteredLlmClient,
} from '../src/llm/index.ts';
import { startOpenAiTestServer, type OpenAiTestServer, type OpenAiTestServerOptions } from './helpers/openai-test-server.ts';

const Answer = z.object({ answer: z.string(), confidence: z.number().min(0).max(1) });

let server: OpenAiTestServer;
let dir: string;
let sleeps: number[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memsteer-llm-'));
  sleeps = [];
});
afterEach(async () => {
  await server?.close();
  server = undefined as unknown as OpenAiTestServer;
  rmSync(dir, { recursive: true, force: true });
});

async function setup(script: OpenAiTestServerOptions, overrides: LlmConfigInput = {}, deps: LlmClientDeps = {}): Promise<MeteredLlmClient> {
  server = await startOpenAiTestServer(script);
  return client(overrides, deps);
}

function client(overrides: LlmConfigInput = {}, deps: LlmClientDeps = {}): MeteredLlmClient {
  const config = loadLlmConfig(
    {},
    { apiKey: 'sk-test', baseURL: server.baseURL, models: { answerer: 'gpt-4o-mini', judge: 'judge-model' }, backoffMs: 100, ...overrides },
  );
  return createLlmClient(config, {
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0,
    ...deps,
  });
}

const ask = [{ role: 'user' as const, content: 'What is the capital of France?' }];

async function rejection(p: Promise<unknown>): Promise<LlmError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LlmError);
  return err as LlmError;
}

describe('structured output', () => {
  it('repairs invalid JSON, then a schema failure, and returns the third reply', async () => {
    const llm = await setup({
      replies: [{ content: 'Paris, I think.' }, { json: { answer: 42, confidence: 0.9 } }, { json: { answer: 'Paris', confidence: 0.9 } }],
    });
    const r = await llm.structured({ role: 'answerer', messages: ask, schema: Answer, schemaName: 'answer' });
    expect(r.value).toEqual({ answer: 'Paris', confidence: 0.9 });
    expect(r.attempts).toBe(3);
    expect(r.cached).toBe(false);

    const sent = server.chatRequests().map((q) => q.body);
    expect(sent).toHaveLength(3);
    expect(sent[0].response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'answer', strict: true } });
    expect(sent[0].response_format.json_schema.schema.required).toEqual(['answer', 'confidence']);
    // the repair turns: the bad reply as the assistant's, then the validation error
    expect(sent[1].messages.slice(-2).map((m: { role: string }) => m.role)).toEqual(['assistant', 'user']);
    expect(sent[1].messages.at(-2).content).toBe('Paris, I think.');
    expect(sent[1].messages.at(-1).content).toContain('not valid JSON');
    expect(sent[2].messages).toHaveLength(5);
    expect(sent[2].messages.at(-1).content).toContain('answer: Invalid input: expected string, received number');

    const entry = llm.ledger.entries[0]!;
    expect(entry).toMatchObject({ role: 'answerer', kind: 'structured', attempts: 3, ok: true, cached: false });
  });

  it('fails with E_LLM_SCHEMA naming the role and the last error after the repairs run out', async () => {
    const llm = await setup({ handler: () => ({ json: { answer: 'Paris', confidence: 7 } }) }, { schemaRepairs: 2 });
    const err = await rejection(llm.structured({ role: 'judge', messages: ask, schema: Answer, schemaName: 'answer' }));
    expect(err.code).toBe('E_LLM_SCHEMA');
    expect(err.message).toContain('judge');
    expect(err.message).toContain('confidence: Too big');
    expect(err.attempts).toBe(3);
    expect(server.chatRequests()).toHaveLength(3);
    expect(llm.ledger.entries[0]).toMatchObject({ ok: false, error: 'E_LLM_SCHEMA', attempts: 3 });
  });

  it('falls back to json_object when the server refuses json_schema, and stays there', async () => {
    const llm = await setup({
      replies: [
        { status: 400, body: { error: { message: "response_format 'json_schema' is not supported", type: 'invalid_request_error' } } },
        { content: '```json\n{"answer":"Paris","confidence":1}\n```' },
        { json: { answer: 'Rome', confidence: 0.5 } },
      ],
    });
    const r = await llm.structured({ role: 'answerer', messages: ask, schema: Answer, schemaName: 'answer' });
    expect(r.value.answer).toBe('Paris');
    const again = await llm.structured({
      role: 'answerer',
      messages: [{ role: 'user', content: 'Italy?' }],
      schema: Answer,
      schemaName: 'answer',
    });
    expect(again.value.answer).toBe('Rome');
    const sent = server.chatRequests().map((q) => q.body);
    expect(sent.map((b) => b.response_format.type)).toEqual(['json_schema', 'json_object', 'json_object']);
    // plain JSON mode carries the schema in a system message (and the word JSON, which OpenAI requires)
    expect(sent[1].messages[0].role).toBe('system');
    expect(sent[1].messages[0].content).toContain('JSON Schema');
    expect(sent[1].messages[0].content).toContain('"confidence"');
    expect(sleeps).toEqual([]);
  });
});

describe('retries', () => {
  it('honours retry-after (seconds) on 429', async () => {
    const llm = await setup({ replies: [{ status: 429, headers: { 'retry-after': '2' } }, { content: 'Paris' }] });
    const r = await llm.complete({ role: 'answerer', messages: ask });
    expect(r.text).toBe('Paris');
    expect(r.attempts).toBe(2);
    expect(sleeps).toEqual([2000]);
    expect(llm.ledger.entries[0]).toMatchObject({ attempts: 2, ok: true });
  });

  it('honours retry-after-ms and retry-after as an HTTP date', async () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    const llm = await setup(
      {
        replies: [
          { status: 429, headers: { 'retry-after-ms': '1500', 'retry-after': '9' } },
          { status: 503, headers: { 'retry-after': new Date(now + 3000).toUTCString() } },
          { content: 'ok' },
        ],
      },
      {},
      { now: () => now },
    );
    await llm.complete({ role: 'answerer', messages: ask });
    expect(sleeps).toEqual([1500, 3000]);
  });

  it('caps a long retry-after at maxRetryAfterMs', async () => {
    const llm = await setup(
      { replies: [{ status: 429, headers: { 'retry-after': '3600' } }, { content: 'ok' }] },
      { maxRetryAfterMs: 5000 },
    );
    await llm.complete({ role: 'answerer', messages: ask });
    expect(sleeps).toEqual([5000]);
  });

  it('retries a 500 with exponential backoff, then succeeds', async () => {
    const llm = await setup({ replies: [{ status: 500 }, { status: 502 }, { content: 'Paris' }] });
    const r = await llm.complete({ role: 'answerer', messages: ask });
    expect(r.text).toBe('Paris');
    expect(sleeps).toEqual([100, 200]);
    expect(server.chatRequests()).toHaveLength(3);
  });

  it('jitters the backoff downwards by up to a quarter', async () => {
    const llm = await setup({ replies: [{ status: 500 }, { status: 500 }, { content: 'x' }] }, {}, { random: () => 0.999 });
    await llm.complete({ role: 'answerer', messages: ask });
    expect(sleeps[0]).toBeCloseTo(75.025, 3);
    expect(sleeps[1]).toBeCloseTo(150.05, 3);
  });

  it('gives up after the last retry with E_LLM_HTTP and the status', async () => {
    const llm = await setup({ handler: () => ({ status: 500 }) }, { retries: 3 });
    const err = await rejection(llm.complete({ role: 'answerer', messages: ask }));
    expect(err.code).toBe('E_LLM_HTTP');
    expect(err.status).toBe(500);
    expect(err.attempts).toBe(4);
    expect(sleeps).toEqual([100, 200, 400]);
    expect(llm.ledger.entries[0]).toMatchObject({ ok: false, error: 'E_LLM_HTTP', attempts: 4, cost: 0 });
  });

  it('gives up on the last 429 with E_LLM_RATE_LIMIT', async () => {
    const llm = await setup({ handler: () => ({ status: 429, headers: { 'retry-after': '1' } }) }, { retries: 1 });
    const err = await rejection(llm.complete({ role: 'answerer', messages: ask }));
    expect(err.code).toBe('E_LLM_RATE_LIMIT');
    expect(sleeps).toEqual([1000]);
  });

  it('does not retry with retries 0, nor a 400, and maps 401 to E_LLM_AUTH', async () => {
    const llm = await setup({ replies: [{ status: 500 }, { status: 400 }, { status: 401 }] }, { retries: 0 });
    expect((await rejection(llm.complete({ role: 'answerer', messages: ask }))).code).toBe('E_LLM_HTTP');
    const llm2 = client({ retries: 5 });
    const bad = await rejection(llm2.complete({ role: 'answerer', messages: ask }));
    expect(bad).toMatchObject({ code: 'E_LLM_HTTP', status: 400, attempts: 1 });
    const auth = await rejection(llm2.complete({ role: 'answerer', messages: ask }));
    expect(auth.code).toBe('E_LLM_AUTH');
    expect(auth.message).toContain('OPENAI_API_KEY');
    expect(auth.message).not.toContain('sk-test');
    expect(sleeps).toEqual([]);
  });

  it('retries a timeout and finally fails with E_LLM_TIMEOUT', async () => {
    const llm = await setup({ handler: () => ({ delayMs: 2000, content: 'too late' }) }, { timeoutMs: 50, retries: 2 });
    const err = await rejection(llm.complete({ role: 'answerer', messages: ask }));
    expect(err.code).toBe('E_LLM_TIMEOUT');
    expect(err.attempts).toBe(3);
    expect(server.chatRequests()).toHaveLength(3);
    expect(sleeps).toEqual([100, 200]);
  });

  it('recovers from a timeout when the next attempt is fast', async () => {
    const llm = await setup({ replies: [{ delayMs: 2000, content: 'late' }, { content: 'on time' }] }, { timeoutMs: 100 });
    expect((await llm.complete({ role: 'answerer', messages: ask })).text).toBe('on time');
  });

  it('retries a dropped connection, and reports an unreachable server as E_LLM_CONNECTION', async () => {
    const llm = await setup({ replies: [{ destroy: true }, { content: 'back' }] });
    expect((await llm.complete({ role: 'answerer', messages: ask })).text).toBe('back');
    const port = server.port;
    await server.close();
    const dead = createLlmClient(loadLlmConfig({}, { baseURL: `http://127.0.0.1:${port}/v1`, models: { answerer: 'm' }, retries: 1 }), {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0,
    });
    const err = await rejection(dead.complete({ role: 'answerer', messages: ask }));
    expect(err.code).toBe('E_LLM_CONNECTION');
    expect(err.attempts).toBe(2);
  });
});

describe('response cache', () => {
  it('serves an identical second call from disk without a request, at no cost', async () => {
    const llm = await setup(
      { handler: () => ({ content: 'Paris', usage: { prompt_tokens: 50, completion_tokens: 5 } }) },
      { cacheDir: dir, prices: { 'gpt-4o-mini': { prompt: 1, completion: 2 } } },
    );
    const a = await llm.complete({ role: 'answerer', messages: ask, temperature: 0, maxTokens: 20 });
    const b = await llm.complete({ role: 'answerer', messages: ask, temperature: 0, maxTokens: 20 });
    expect(server.chatRequests()).toHaveLength(1);
    expect(a).toMatchObject({ text: 'Paris', cached: false, cost: (50 * 1 + 5 * 2) / 1e6 });
    expect(b).toMatchObject({ text: 'Paris', cached: true, cost: 0, usage: { promptTokens: 50, completionTokens: 5 } });
    expect(llm.ledger.entries[1]).toMatchObject({ cached: true, cost: 0, attempts: 0, promptTokens: 0, completionTokens: 0 });
    expect(llm.ledger.totals()).toMatchObject({ calls: 2, cacheHits: 1, promptTokens: 50, cost: (50 + 10) / 1e6 });

    // a different key (or none) reads the same cache: the key is not part of the cache key
    const other = client({ apiKey: 'sk-someone-else', cacheDir: dir });
    expect((await other.complete({ role: 'answerer', messages: ask, temperature: 0, maxTokens: 20 })).cached).toBe(true);
    expect(server.chatRequests()).toHaveLength(1);

    // but anything that changes the request is a new key
    await llm.complete({ role: 'answerer', messages: ask, temperature: 0.7, maxTokens: 20 });
    await llm.complete({ role: 'answerer', messages: ask, temperature: 0, maxTokens: 21 });
    await llm.complete({ role: 'judge', messages: ask, temperature: 0, maxTokens: 20 });
    expect(server.chatRequests()).toHaveLength(4);
    const files = readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.json'));
    expect(files).toHaveLength(4);
    expect(readdirSync(dir, { recursive: true }).some((f) => String(f).endsWith('.tmp'))).toBe(false);
  });

  it('never caches errors', async () => {
    const llm = await setup({ replies: [{ status: 400 }, { content: 'fine' }] }, { cacheDir: dir });
    expect((await rejection(llm.complete({ role: 'answerer', messages: ask }))).code).toBe('E_LLM_HTTP');
    const r = await llm.complete({ role: 'answerer', messages: ask });
    expect(r).toMatchObject({ text: 'fine', cached: false });
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('caches a repaired structured reply under the original request, and not the invalid replies', async () => {
    const llm = await setup({ replies: [{ content: 'nope' }, { json: { answer: 'Paris', confidence: 1 } }] }, { cacheDir: dir });
    await llm.structured({ role: 'answerer', messages: ask, schema: Answer, schemaName: 'answer' });
    const again = await llm.structured({ role: 'answerer', messages: ask, schema: Answer, schemaName: 'answer' });
    expect(again).toMatchObject({ value: { answer: 'Paris', confidence: 1 }, cached: true, attempts: 1, cost: 0 });
    expect(server.chatRequests()).toHaveLength(2);
    // a plain completion of the same messages is a different request (no response format)
    server.enqueue({ content: 'plain' });
    expect((await llm.complete({ role: 'answerer', messages: ask })).text).toBe('plain');
  });

  it('can be turned off, globally or per call', async () => {
    const llm = await setup({ handler: () => ({ content: 'x' }) }, { cacheDir: dir, cache: false });
    await llm.complete({ role: 'answerer', messages: ask });
    await llm.complete({ role: 'answerer', messages: ask });
    expect(server.chatRequests()).toHaveLength(2);
    expect(readdirSync(dir)).toEqual([]);

    const on = client({ cacheDir: dir });
    await on.complete({ role: 'answerer', messages: ask, cache: false });
    await on.complete({ role: 'answerer', messages: ask, cache: false });
    expect(server.chatRequests()).toHaveLength(4);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('ledger', () => {
  it('records tokens, cost (null when unpriced), attempts and per-role totals, and serialises', async () => {
    const llm = await setup(
      {
        handler: (body) => ({
          content: 'ok',
          usage:
            body.model === 'gpt-4o-mini'
              ? { prompt_tokens: 1000, completion_tokens: 200, cached_tokens: 400 }
              : { prompt_tokens: 10, completion_tokens: 1 },
        }),
      },
      { prices: { 'gpt-4o-mini': { prompt: 0.15, completion: 0.6, cached: 0.075 } } },
    );
    const a = await llm.complete({ role: 'answerer', messages: ask });
    const j = await llm.complete({ role: 'judge', messages: ask });
    expect(a.cost).toBeCloseTo((600 * 0.15 + 400 * 0.075 + 200 * 0.6) / 1e6, 12);
    expect(j.cost).toBeNull();
    expect(a.usage).toEqual({ promptTokens: 1000, completionTokens: 200, cachedTokens: 400 });

    const totals = llm.ledger.totals();
    expect(totals).toMatchObject({
      calls: 2,
      promptTokens: 1010,
      completionTokens: 201,
      cachedTokens: 400,
      cost: null,
      unknownCostCalls: 1,
      failures: 0,
    });
    expect(totals.knownCost).toBeCloseTo(240e-6, 12);
    const byRole = llm.ledger.byRole();
    expect(Object.keys(byRole)).toEqual(['answerer', 'judge']);
    expect(byRole.answerer!.cost).toBeCloseTo(240e-6, 12);
    expect(byRole.judge).toMatchObject({ calls: 1, cost: null, promptTokens: 10 });
    expect(llm.ledger.entries[1]).toMatchObject({ role: 'judge', model: 'judge-model', cost: null, attempts: 1, cached: false });

    const back = LedgerSnapshotSchema.parse(JSON.parse(JSON.stringify(llm.ledger.snapshot())));
    expect(back.entries).toHaveLength(2);
    expect(back.totals.cost).toBeNull();
    expect(JSON.stringify(back)).not.toContain('sk-test');
  });

  it('reports each entry to onLedgerEntry as it is recorded', async () => {
    const seen: string[] = [];
    const llm = await setup({ handler: () => ({ content: 'x' }) }, {}, { onLedgerEntry: (e) => seen.push(`${e.role}:${e.ok}`) });
    await llm.complete({ role: 'judge', messages: ask });
    expect(seen).toEqual(['judge:true']);
  });
});

describe('budget', () => {
  it('refuses a call that would cross the token budget, without sending it', async () => {
    const llm = await setup(
      { handler: () => ({ content: 'ok', usage: { prompt_tokens: 150, completion_tokens: 50 } }) },
      { budget: { maxTokens: 250 } },
    );
    await llm.complete({ role: 'answerer', messages: ask, maxTokens: 20 });
    expect(llm.budget.spent.tokens).toBe(200);
    const err = await llm.complete({ role: 'answerer', messages: ask, maxTokens: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err).toMatchObject({ code: 'E_BUDGET', limit: 'tokens', spent: 200, max: 250 });
    expect(server.chatRequests()).toHaveLength(1);
    expect(llm.ledger.entries).toHaveLength(1);
  });

  it('refuses by dollars using the price and maxTokens', async () => {
    // $1000 per 1M tokens = $0.001 a token; 100 completion tokens alone are $0.10
    const llm = await setup(
      { handler: () => ({ content: 'ok' }) },
      { prices: { 'gpt-4o-mini': { prompt: 1000, completion: 1000 } }, models: { answerer: 'gpt-4o-mini' }, budget: { maxDollars: 0.05 } },
    );
    const err = await llm.complete({ role: 'answerer', messages: ask, maxTokens: 100 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_BUDGET', limit: 'dollars' });
    expect(server.chatRequests()).toHaveLength(0);
    // a small call fits
    await llm.complete({ role: 'answerer', messages: ask, maxTokens: 10 });
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('refuses a dollar budget with an unpriced model at creation', async () => {
    server = await startOpenAiTestServer();
    expect(() => client({ budget: { maxDollars: 1 }, prices: { 'gpt-4o-mini': { prompt: 1, completion: 1 } } })).toThrow(
      /model judge-model \(role judge\) has no price/,
    );
  });

  it('stops schema repairs at the budget and records what was spent', async () => {
    const llm = await setup(
      { handler: () => ({ content: 'not json', usage: { prompt_tokens: 100, completion_tokens: 100 } }) },
      { budget: { maxTokens: 300 } },
    );
    const err = await llm
      .structured({ role: 'answerer', messages: ask, schema: Answer, schemaName: 'answer', maxTokens: 50 })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_BUDGET' });
    expect(server.chatRequests()).toHaveLength(1);
    expect(llm.ledger.entries[0]).toMatchObject({ ok: false, error: 'E_BUDGET', promptTokens: 100, attempts: 1 });
  });
});

describe('concurrency and requests', () => {
  it('keeps at most `concurrency` requests in flight', async () => {
    const llm = await setup({ handler: (_b, i) => ({ delayMs: 40, content: `r${i}` }) }, { concurrency: 2 });
    const out = await Promise.all(
      Array.from({ length: 7 }, (_, i) => llm.complete({ role: 'answerer', messages: [{ role: 'user', content: `q${i}` }] })),
    );
    expect(out).toHaveLength(7);
    expect(server.chatRequests()).toHaveLength(7);
    expect(server.maxInFlight).toBe(2);
  });

  it('sends the configured model per role, the bearer key, temperature and max tokens', async () => {
    const llm = await setup({ handler: () => ({ content: 'x' }) }, { maxTokensParam: 'max_completion_tokens' });
    await llm.complete({ role: 'answerer', messages: ask, temperature: 0.2, maxTokens: 64 });
    await llm.complete({ role: 'judge', messages: ask });
    const [a, j] = server.chatRequests();
    expect(a!.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.2, max_completion_tokens: 64, messages: ask });
    expect(a!.body.response_format).toBeUndefined();
    expect(j!.body.model).toBe('judge-model');
    expect(j!.body.temperature).toBeUndefined();
    expect(a!.headers.authorization).toBe('Bearer sk-test');
    expect(llm.hasRole('answerer')).toBe(true);
    expect(llm.hasRole('planner')).toBe(false);
    const err = await rejection(llm.complete({ role: 'planner', messages: ask }));
    expect(err.code).toBe('E_LLM_NO_MODEL');
    expect(err.message).toContain('MEMSTEER_MODEL_PLANNER');
  });
});

describe('configuration', () => {
  it('is offline (null) without a key or base URL', () => {
    expect(openLlmClient({})).toBeNull();
    expect(openLlmClient({ OPENAI_API_KEY: '  ' })).toBeNull();
    expect(() => createLlmClient(loadLlmConfig({}))).toThrow(LlmError);
    const c = openLlmClient({ OPENAI_API_KEY: 'sk-x', MEMSTEER_MODEL: 'base', MEMSTEER_MODEL_JUDGE: 'strong' });
    expect(c).not.toBeNull();
    expect(c!.modelFor('judge')).toBe('strong');
    expect(c!.modelFor('answerer')).toBe('base');
    expect(openLlmClient({ OPENAI_BASE_URL: 'http://localhost:11434/v1' })).not.toBeNull();
  });

  it('reads settings from the environment, lets overrides win, and rejects bad values', () => {
    const cfg = loadLlmConfig(
      {
        OPENAI_API_KEY: 'k',
        MEMSTEER_LLM_RETRIES: '0',
        MEMSTEER_LLM_CONCURRENCY: '8',
        MEMSTEER_LLM_CACHE: 'off',
        MEMSTEER_LLM_BUDGET_TOKENS: '5000',
        MEMSTEER_MODEL_READER: 'r',
      },
      { concurrency: 2, budget: { maxDollars: 3 }, models: { proposer: 'p' } },
    );
    expect(cfg).toMatchObject({
      apiKey: 'k',
      retries: 0,
      concurrency: 2,
      cache: false,
      budget: { maxTokens: 5000, maxDollars: 3 },
      models: { reader: 'r', proposer: 'p' },
    });
    expect(cfg.timeoutMs).toBe(60_000);
    expect(() => loadLlmConfig({ MEMSTEER_LLM_RETRIES: 'three' })).toThrow(/MEMSTEER_LLM_RETRIES/);
    expect(() => loadLlmConfig({}, { concurrency: 0 })).toThrow(expect.objectContaining({ code: 'E_LLM_CONFIG' }));
    expect(() => loadLlmConfig({ OPENAI_BASE_URL: 'not a url' })).toThrow(/baseURL/);
  });
});

describe('embeddings', () => {
  it('embeds in order, caches per text, and books the call', async () => {
    const llm = await setup(
      { embeddingDimensions: 6 },
      { embeddingModel: 'text-embedding-3-small', cacheDir: dir, prices: { 'text-embedding-3-small': { prompt: 0.02, completion: 0 } } },
    );
    expect(llm.hasEmbeddings()).toBe(true);
    const a = await llm.embed({ texts: ['alpha', 'beta'] });
    expect(a.vectors).toHaveLength(2);
    expect(a.vectors[0]).toHaveLength(6);
    expect(a.vectors[0]).not.toEqual(a.vectors[1]);
    expect(a.cached).toBe(false);
    expect(a.cost).toBeGreaterThan(0);
    const b = await llm.embed({ texts: ['beta', 'gamma', 'alpha'], role: 'reader' });
    expect(b.vectors[0]).toEqual(a.vectors[1]);
    expect(b.vectors[2]).toEqual(a.vectors[0]);
    // only the new text was sent
    expect(server.embeddingRequests().map((r) => r.body.input)).toEqual([['alpha', 'beta'], ['gamma']]);
    expect(server.embeddingRequests()[0]!.body).toMatchObject({ model: 'text-embedding-3-small', encoding_format: 'float' });
    const c = await llm.embed({ texts: ['gamma'] });
    expect(c).toMatchObject({ cached: true, cost: 0 });
    expect(llm.ledger.entries.map((e) => [e.kind, e.role, e.cached])).toEqual([
      ['embed', 'design', false],
      ['embed', 'reader', false],
      ['embed', 'design', true],
    ]);
  });

  it('retries embedding errors like completions and is absent without a model', async () => {
    const llm = await setup({ embeddingReplies: [{ status: 503 }] }, { embeddingModel: 'e' });
    expect((await llm.embed({ texts: ['x'] })).vectors).toHaveLength(1);
    expect(sleeps).toEqual([100]);
    const none = client();
    expect(none.hasEmbeddings()).toBe(false);
    expect((await rejection(none.embed({ texts: ['x'] }))).code).toBe('E_LLM_NO_MODEL');
  });
});
