/**
 * `generate` with a model, against the scripted OpenAI-compatible server: bundles whose calls fail during an
 * outage are journaled as failed, not finished, so a re-run against a healthy server completes them (and ends with
 * the items of a run that never saw the outage); a server that keeps failing trips the circuit breaker, which stops
 * the run with a coded error instead of grinding through every bundle.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import type { History } from '../src/history/record.ts';
import { createLlmClient } from '../src/llm/client.ts';
import { loadLlmConfig } from '../src/llm/config.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { BundleProgressSchema } from '../src/supervision/progress-store.ts';
import { startOpenAiTestServer, type OpenAiTestServer, type ScriptedReply } from './helpers/openai-test-server.ts';

const records = JSON.parse(readFileSync(new URL('./fixtures/supervision/mini-history.json', import.meta.url), 'utf8')) as SourceRecord[];
const history: History = { id: 'mini', source: 'test', format: 'test', records, qa: [], unresolvedEvidence: [] };

type Role = 'planner' | 'questioner' | 'auditor' | 'reader';
const good: Record<Role, unknown> = {
  planner: {
    plan: {
      questionType: 'multi-hop',
      intent: 'how far the greyhound adopted from Riverside Shelter runs each morning',
      answer: '5 miles',
      answerType: 'number',
      facts: [
        {
          record: 'D1:1',
          quote: 'I finally adopted a greyhound from the Riverside Shelter',
          statement: 'Evan adopted a greyhound from Riverside Shelter',
        },
        { record: 'D1:3', quote: 'she already runs 5 miles with me every morning', statement: 'the greyhound runs 5 miles every morning' },
      ],
      evidence: [
        { record: 'D1:1', contribution: 'identifies the greyhound' },
        { record: 'D1:3', contribution: 'gives the distance' },
      ],
      operations: ['lookup'],
    },
  },
  questioner: { question: 'How far does the greyhound Evan adopted from the Riverside Shelter run with him each morning?' },
  auditor: {
    judgments: [
      { aspect: 'answer-support', verdict: 'supported', rationale: 'D1:3 says 5 miles' },
      { aspect: 'question-plan-consistency', verdict: 'supported', rationale: 'asks for the distance' },
      { aspect: 'fact-support', target: 'fact:1', verdict: 'supported', rationale: 'D1:1 says so' },
      { aspect: 'fact-support', target: 'fact:2', verdict: 'supported', rationale: 'D1:3 says so' },
      { aspect: 'contribution', target: 'D1:1', verdict: 'supported', rationale: 'names the shelter' },
      { aspect: 'contribution', target: 'D1:3', verdict: 'supported', rationale: 'gives the distance' },
    ],
  },
  reader: { answerable: true, answer: 'five miles', citations: ['D1:3', 'D1:1'] },
};

function roleOf(body: { messages?: Array<{ content?: string }> }): Role {
  const m = /version: (planner|questioner|auditor|reader)@/.exec(body.messages?.[0]?.content ?? '');
  if (!m) throw new Error('request without a versioned prompt');
  return m[1] as Role;
}

let server: OpenAiTestServer;
/** What the server does now: answer as scripted, or fail every call. */
let outage: ScriptedReply | null = null;
const dir = mkdtempSync(join(tmpdir(), 'memsteer-generate-outage-'));

beforeAll(async () => {
  server = await startOpenAiTestServer({ handler: (body) => outage ?? { json: good[roleOf(body)] } });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(progressFile: string | undefined, breakerFailures = 0) {
  server.reset();
  const config = loadLlmConfig(
    {},
    {
      apiKey: 'test-key',
      baseURL: server.baseURL,
      models: { planner: 'test-model', questioner: 'test-model', auditor: 'test-model', reader: 'test-model' },
      retries: 1,
      breakerFailures,
      cache: false,
    },
  );
  const llm = createLlmClient(config, { sleep: async () => {} });
  return generateSupervision(history, {
    mode: 'llm',
    llm,
    n: 1,
    types: ['multi-hop'],
    bundleTokens: 4000,
    seed: 2,
    ...(progressFile ? { progressFile } : {}),
  });
}

const journal = (path: string) =>
  readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => BundleProgressSchema.parse(JSON.parse(l)));

describe('generate: outage, then recovery', () => {
  it('journals bundles that failed during an outage as failed, and a re-run against a healthy server completes them', async () => {
    outage = null;
    const healthy = await run(undefined);
    expect(healthy.items).toHaveLength(1);

    const progress = join(dir, 'outage.progress.jsonl');
    outage = { status: 503 };
    const down = await run(progress);
    expect(down.items).toHaveLength(0);
    expect(down.summary.failedBundles).toBeGreaterThan(0);
    expect(down.summary.bundles).toBe(0);
    expect(down.summary.rejections['llm:failed-E_LLM_HTTP']).toBe(down.summary.failedBundles);
    const lines = journal(progress);
    expect(lines.length).toBe(down.summary.failedBundles);
    expect(lines.every((l) => l.status === 'failed' && l.error === 'E_LLM_HTTP')).toBe(true);

    outage = null;
    const back = await run(progress);
    expect(server.chatRequests().length).toBeGreaterThan(0);
    expect(back.items.map((q) => [q.id, q.split])).toEqual(healthy.items.map((q) => [q.id, q.split]));
    expect(back.summary.failedBundles).toBe(0);
    expect(journal(progress).some((l) => l.status === 'done' && l.items.length === 1)).toBe(true);
  });

  it('stops with E_LLM_CIRCUIT after repeated identical failures, and the next run resumes', async () => {
    const progress = join(dir, 'breaker.progress.jsonl');
    outage = { status: 500 };
    await expect(run(progress, 3)).rejects.toMatchObject({ code: 'E_LLM_CIRCUIT' });
    // 3 calls, each tried twice (retries: 1), then nothing more was sent
    expect(server.chatRequests()).toHaveLength(6);
    expect(journal(progress).filter((l) => l.status === 'failed')).toHaveLength(2);
    outage = null;
    const back = await run(progress, 3);
    expect(back.items).toHaveLength(1);
  });
});
