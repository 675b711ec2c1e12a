import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startOpenAiTestServer, type OpenAiTestServer } from './helpers/openai-test-server.ts';

let server: OpenAiTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('openai test server', () => {
  it('serves queued replies, then the handler, and records requests', async () => {
    server = await startOpenAiTestServer({
      replies: [{ content: 'first', usage: { prompt_tokens: 11, completion_tokens: 3, cached_tokens: 5 } }],
      handler: (body, i) => ({ json: { echo: body.messages[0].content, i } }),
    });
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.baseURL, maxRetries: 0 });
    const a = await client.chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'hi' }] });
    expect(a.choices[0]!.message.content).toBe('first');
    expect(a.usage).toMatchObject({
      prompt_tokens: 11,
      completion_tokens: 3,
      total_tokens: 14,
      prompt_tokens_details: { cached_tokens: 5 },
    });
    const b = await client.chat.completions.create({ model: 'm2', messages: [{ role: 'user', content: 'yo' }] });
    expect(JSON.parse(b.choices[0]!.message.content!)).toEqual({ echo: 'yo', i: 1 });
    expect(b.model).toBe('m2');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', callIndex: 0 });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(server.requests[1]!.body.model).toBe('m2');
  });

  it('sends raw status replies with headers, and 500 when the script runs out', async () => {
    server = await startOpenAiTestServer({ replies: [{ status: 429, headers: { 'retry-after': '3' } }] });
    const client = new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 0 });
    const err = await client.chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('3');
    const err2 = await client.chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e);
    expect((err2 as InstanceType<typeof OpenAI.APIError>).status).toBe(500);
    expect(String((err2 as Error).message)).toContain('no scripted reply left for chat call 1');
  });

  it('delays past a client timeout and counts concurrent requests', async () => {
    server = await startOpenAiTestServer({ handler: () => ({ delayMs: 150, content: 'late' }) });
    const fast = new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 0, timeout: 30 });
    const err = await fast.chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    const slow = new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 0 });
    const all = await Promise.all([1, 2, 3].map(() => slow.chat.completions.create({ model: 'm', messages: [] })));
    expect(all.map((r) => r.choices[0]!.message.content)).toEqual(['late', 'late', 'late']);
    expect(server.maxInFlight).toBe(3);
    expect(server.inFlight).toBe(0);
  });

  it('resets the connection on a destroy reply', async () => {
    server = await startOpenAiTestServer({ replies: [{ destroy: true }] });
    const client = new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 0 });
    const err = await client.chat.completions.create({ model: 'm', messages: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it('answers embeddings deterministically', async () => {
    server = await startOpenAiTestServer();
    const client = new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 0 });
    const a = await client.embeddings.create({ model: 'e', input: ['x', 'y', 'x'], dimensions: 4, encoding_format: 'float' });
    expect(a.data).toHaveLength(3);
    expect(a.data[0]!.embedding).toHaveLength(4);
    expect(a.data[0]!.embedding).toEqual(a.data[2]!.embedding);
    expect(a.data[0]!.embedding).not.toEqual(a.data[1]!.embedding);
    expect(Math.hypot(...a.data[1]!.embedding)).toBeCloseTo(1, 6);
    expect(server.embeddingRequests()).toHaveLength(1);
    // the SDK's default base64 encoding decodes to the same vectors (as float32)
    const b = await client.embeddings.create({ model: 'e', input: ['x'], dimensions: 4 });
    expect(server.embeddingRequests()[1]!.body.encoding_format).toBe('base64');
    expect(Array.from(b.data[0]!.embedding)[0]).toBeCloseTo(a.data[0]!.embedding[0]!, 6);
  });
});
