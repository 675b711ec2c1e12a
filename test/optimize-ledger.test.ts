/**
 * Every token the client billed during `optimize` is in the reported cost: the final official test, and a proposer
 * call that failed schema validation (it was paid for). A budget that runs out during the final test is reported
 * (in the result and the archive's test-scores note), not passed off as lower scores.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../src/archive/index.ts';
import { readTestScores } from '../src/export/test-scores.ts';
import { createLlmClient, loadLlmConfig, type MeteredLlmClient } from '../src/llm/index.ts';
import { runOptimize, type OptimizeReport } from '../src/optimize/run-optimize.ts';
import { startOpenAiTestServer, type OpenAiTestServer } from './helpers/openai-test-server.ts';
import { SEED_PATH, prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';

const ANSWER_USAGE = { prompt_tokens: 5000, completion_tokens: 10 };
const PROPOSER_USAGE = { prompt_tokens: 1200, completion_tokens: 80 };

let run: DefaultRun;
let server: OpenAiTestServer;
/** When set, the proposer's endpoint answers every call with this HTTP status. */
let proposerDown: number | null = null;

beforeAll(async () => {
  run = await prepareDefaultRun('optimize-ledger', 60);
  server = await startOpenAiTestServer({
    handler: (body) =>
      body.model !== 'proposer-m'
        ? { content: 'Lisbon', usage: ANSWER_USAGE }
        : proposerDown
          ? { status: proposerDown }
          : { content: 'no edits today', usage: PROPOSER_USAGE },
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

async function optimize(
  name: string,
  maxTokens?: number,
  extra: { iterations?: number; breakerFailures?: number } = {},
): Promise<{ report: OptimizeReport; client: MeteredLlmClient }> {
  server.reset();
  const client = createLlmClient(
    loadLlmConfig(
      {},
      {
        apiKey: 'sk-test',
        baseURL: server.baseURL,
        models: { proposer: 'proposer-m', answerer: 'answer-m' },
        retries: 0,
        schemaRepairs: 1,
        concurrency: 1,
        ...(extra.breakerFailures ? { breakerFailures: extra.breakerFailures } : {}),
        ...(maxTokens ? { budget: { maxTokens } } : {}),
      },
    ),
    { sleep: async () => {} },
  );
  const report = await runOptimize({
    out: join(run.dir, name),
    llm: client,
    config: {
      history: run.source,
      supervision: run.supervisionPath,
      seed: SEED_PATH,
      iterations: extra.iterations ?? 1,
      offline: false,
      limit: 8,
      testCategories: [],
      jobs: 1,
    },
  });
  return { report, client };
}

describe('optimize books every billed token', () => {
  let full: { report: OptimizeReport; client: MeteredLlmClient };
  beforeAll(async () => {
    full = await optimize('full');
  }, 180_000);

  it('reports what the ledger billed: failed proposer replies and the official test included', () => {
    const { report, client } = full;
    const billed = client.ledger.totals();
    // the proposer's two replies failed validation: billed, booked to no program
    expect(client.ledger.entries.filter((e) => e.role === 'proposer' && !e.ok)).toHaveLength(1);
    expect(billed.failures).toBeGreaterThanOrEqual(1);
    expect(report.cost.promptTokens).toBe(billed.promptTokens);
    expect(report.cost.completionTokens).toBe(billed.completionTokens);
    expect(report.cost.breakdown.unbooked.promptTokens).toBeGreaterThanOrEqual(2 * PROPOSER_USAGE.prompt_tokens);
    expect(report.cost.breakdown.finalTest.promptTokens).toBeGreaterThan(0);
    expect(report.best.test!.n).toBeGreaterThan(4);
    expect(report.testBudgetExhausted).toBe(false);
  });

  it('flags a budget that ran out during the final test, in the result and in the archive', async () => {
    const { breakdown } = full.report.cost;
    const beforeTest = full.report.cost.promptTokens + full.report.cost.completionTokens;
    const testTokens = breakdown.finalTest.promptTokens + breakdown.finalTest.completionTokens;
    // enough for everything before the final test, and for about half of it
    const { report } = await optimize('short', beforeTest - testTokens + Math.floor(testTokens / 2));
    expect(report.testBudgetExhausted).toBe(true);
    const archive = openArchive(report.dir);
    expect(readTestScores(archive, report.best.id)).toMatchObject({ budgetExhausted: true });
  }, 180_000);

  it('stops with E_LLM_CIRCUIT when the proposer endpoint keeps failing, instead of running every iteration', async () => {
    proposerDown = 503;
    try {
      await expect(optimize('dead', undefined, { iterations: 6, breakerFailures: 2 })).rejects.toMatchObject({ code: 'E_LLM_CIRCUIT' });
    } finally {
      proposerDown = null;
    }
    expect(server.chatRequests().filter((r) => r.body.model === 'proposer-m')).toHaveLength(2);
    expect(existsSync(join(run.dir, 'dead', 'manifest.json'))).toBe(true);
  }, 180_000);
});
