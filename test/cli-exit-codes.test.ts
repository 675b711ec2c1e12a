/**
 * Exit codes when nothing worked: `eval` against an endpoint that refuses the key (401) exits non-zero with a coded
 * error (and the key the server echoes appears nowhere), and `generate` that keeps no item exits non-zero without
 * writing an empty file that looks like a result.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';
import { startOpenAiTestServer, type OpenAiTestServer, type ScriptedReply } from './helpers/openai-test-server.ts';
import { SEED_PATH } from './fixtures/optimize/default-run.ts';

const KEY = 'sk-live-0123456789abcdefghij';
const LLM_ENV = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'MEMSTEER_MODEL', 'MEMSTEER_LLM_RETRIES', 'MEMSTEER_LLM_CACHE'];
const saved = Object.fromEntries(LLM_ENV.map((k) => [k, process.env[k]]));
const dir = mkdtempSync(join(tmpdir(), 'memsteer-exit-codes-'));
let server: OpenAiTestServer;
let reply: () => ScriptedReply = () => ({ status: 500 });

beforeAll(async () => {
  server = await startOpenAiTestServer({ handler: () => reply() });
  // openLlmClient reads the environment: point it at the scripted server for these commands only
  Object.assign(process.env, {
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: server.baseURL,
    MEMSTEER_MODEL: 'test-model',
    MEMSTEER_LLM_RETRIES: '0',
    MEMSTEER_LLM_CACHE: 'off',
  });
});
afterEach(() => server.reset());
afterAll(async () => {
  for (const k of LLM_ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function memsteer(...args: string[]) {
  const io = captureIO();
  const code = await main(['node', 'memsteer', ...args], io);
  return { code, ...io };
}

describe('exit codes when nothing worked', () => {
  it('eval against an endpoint answering 401 exits non-zero with a coded error, and never relays the key', async () => {
    reply = () => ({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error' } } });
    const traces = join(dir, 'eval', 'traces.jsonl');
    const r = await memsteer(
      'eval',
      '--history',
      DEFAULT_SOURCE,
      '--design',
      SEED_PATH,
      '--limit',
      '12',
      '--jobs',
      '1',
      '--traces',
      traces,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^memsteer: E_LLM_CIRCUIT: .*E_LLM_AUTH HTTP 401/m);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    // the breaker stopped the calls after 5 failures in a row (plus those already in flight at 4 at a time), not 12
    expect(server.chatRequests().length).toBeGreaterThanOrEqual(5);
    expect(server.chatRequests().length).toBeLessThanOrEqual(8);
    for (const text of [r.stdout, r.stderr, readFileSync(traces, 'utf8')]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(KEY.slice(8, 20));
    }
    expect(readFileSync(traces, 'utf8')).toContain('Incorrect API key provided: ***');
  }, 120_000);

  it('eval where every question fails, with too few calls to trip the breaker, exits non-zero too', async () => {
    reply = () => ({ status: 401 });
    const r = await memsteer(
      'eval',
      '--history',
      DEFAULT_SOURCE,
      '--design',
      SEED_PATH,
      '--limit',
      '3',
      '--jobs',
      '1',
      '--traces',
      join(dir, 'eval3', 'traces.jsonl'),
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^memsteer: E_EVAL_FAILED: all 3 questions failed \(3 × answer\/throw/m);
  }, 120_000);

  it('generate that keeps no item exits non-zero and writes no empty output', async () => {
    reply = () => ({ json: { plan: null } });
    const out = join(dir, 'gen', 'supervision.jsonl');
    const r = await memsteer('generate', '--history', DEFAULT_SOURCE, '--out', out, '--n', '3', '--types', 'single-hop');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^memsteer: E_NO_ITEMS: no item was kept from \d+ bundles; see the rejections above/m);
    expect(r.stderr).toContain('planner:no-plan');
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});
