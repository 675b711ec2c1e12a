/**
 * The LLM client stops cleanly against an endpoint that keeps failing (circuit breaker), never relays the API key
 * a server echoes back, and books every billed token, failed calls included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmClient, type MeteredLlmClient } from '../src/llm/client.ts';
import { loadLlmConfig, type LlmConfigInput } from '../src/llm/config.ts';
import { LlmError } from '../src/llm/errors.ts';
import { maskSecret } from '../src/llm/mask.ts';
import { z } from 'zod';
import { startOpenAiTestServer, type OpenAiTestServer, type ScriptedReply } from './helpers/openai-test-server.ts';

const KEY = 'sk-test-9f8e7d6c5b4a39281706abcdef';
let server: OpenAiTestServer;
let next: (i: number) => ScriptedReply = () => ({ content: 'ok' });

beforeAll(async () => {
  server = await startOpenAiTestServer({ handler: (_body, i) => next(i) });
});
afterAll(async () => server.close());

function client(overrides: LlmConfigInput = {}): MeteredLlmClient {
  server.reset();
  const config = loadLlmConfig(
    {},
    { apiKey: KEY, baseURL: server.baseURL, models: { answerer: 'm' }, retries: 0, cache: false, ...overrides },
  );
  return createLlmClient(config, { sleep: async () => {} });
}

const ask = (llm: MeteredLlmClient) => llm.complete({ role: 'answerer', messages: [{ role: 'user', content: 'hi' }] });
const codeOf = async (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (err: unknown) => (err as LlmError).code,
  );

describe('circuit breaker', () => {
  it('opens after N identical failures in a row, then refuses calls without sending them', async () => {
    next = () => ({ status: 503 });
    const llm = client({ breakerFailures: 3 });
    expect(await codeOf(ask(llm))).toBe('E_LLM_HTTP');
    expect(await codeOf(ask(llm))).toBe('E_LLM_HTTP');
    const third = await ask(llm).catch((e: unknown) => e as LlmError);
    expect(third).toBeInstanceOf(LlmError);
    expect((third as LlmError).code).toBe('E_LLM_CIRCUIT');
    expect((third as LlmError).message).toMatch(/3 calls in a row.*HTTP 503.*run the same command again to resume/);
    expect(await codeOf(ask(llm))).toBe('E_LLM_CIRCUIT');
    expect(await codeOf(ask(llm))).toBe('E_LLM_CIRCUIT');
    expect(server.chatRequests()).toHaveLength(3);
    expect(llm.breaker.openError?.code).toBe('E_LLM_CIRCUIT');
    // the refused calls were never sent: they are not in the ledger
    expect(llm.ledger.totals().calls).toBe(3);
    expect(llm.ledger.totals().failures).toBe(3);
  });

  it('does not open on failures that differ, nor across a success', async () => {
    next = (i) => (i % 3 === 2 ? { content: 'fine' } : { status: i % 2 ? 500 : 502 });
    const llm = client({ breakerFailures: 2 });
    const codes = [];
    for (let i = 0; i < 9; i++) codes.push(await codeOf(ask(llm)));
    expect(codes).not.toContain('E_LLM_CIRCUIT');
    expect(codes.filter((c) => c === 'ok')).toHaveLength(3);
    expect(server.chatRequests()).toHaveLength(9);
  });

  it('counts final failures only (retries first), and 0 disables it', async () => {
    next = () => ({ status: 500 });
    const retried = client({ breakerFailures: 2, retries: 2 });
    expect(await codeOf(ask(retried))).toBe('E_LLM_HTTP');
    expect(await codeOf(ask(retried))).toBe('E_LLM_CIRCUIT');
    expect(server.chatRequests()).toHaveLength(6);
    const off = client({ breakerFailures: 0 });
    for (let i = 0; i < 6; i++) expect(await codeOf(ask(off))).toBe('E_LLM_HTTP');
  });
});

describe('the API key is never relayed', () => {
  it('masks a key a server echoes in its error message, whole or cut short, in the message and the cause', async () => {
    next = () => ({
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${KEY} (also seen as ${KEY.slice(0, 14)}…${KEY.slice(-4)})`, code: 'bad' } },
    });
    const llm = client();
    const err = (await ask(llm).catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('E_LLM_AUTH');
    expect(err.message).toContain('Incorrect API key provided: ***');
    expect(err.message).not.toContain(KEY);
    expect(err.message).not.toContain(KEY.slice(0, 14));
    const cause = err.cause as Error;
    expect(cause.message).not.toContain(KEY);
    expect(JSON.stringify({ message: err.message, cause: cause.message, stack: err.stack })).not.toContain(KEY.slice(3, 12));
  });

  it('maskSecret leaves text without the key alone', () => {
    expect(maskSecret('HTTP 500: upstream sk-other-key-000000 failed', KEY)).toBe('HTTP 500: upstream sk-other-key-000000 failed');
    expect(maskSecret(`Bearer ${KEY}.`, KEY)).toBe('Bearer ***.');
    expect(maskSecret(`key=${KEY.slice(0, 20)}`, KEY)).toBe('key=***');
    expect(maskSecret('anything', undefined)).toBe('anything');
  });
});

describe('ledger', () => {
  it('books the tokens of a structured call that failed validation (it was billed), on the ledger, the budget and the error', async () => {
    next = () => ({ content: 'not json at all', usage: { prompt_tokens: 100, completion_tokens: 20 } });
    const llm = client({ schemaRepairs: 1 });
    const err = (await llm
      .structured({ role: 'answerer', messages: [{ role: 'user', content: 'hi' }], schema: z.object({ a: z.string() }), schemaName: 'a' })
      .catch((e: unknown) => e)) as LlmError;
    expect(err.code).toBe('E_LLM_SCHEMA');
    expect(server.chatRequests()).toHaveLength(2);
    expect(err.billed).toEqual({ promptTokens: 200, completionTokens: 40, cachedTokens: 0 });
    const t = llm.ledger.totals();
    expect(t).toMatchObject({ calls: 1, failures: 1, promptTokens: 200, completionTokens: 40 });
    expect(llm.budget.spent.tokens).toBe(240);
  });
});
