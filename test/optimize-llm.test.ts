/**
 * The LLM proposer end to end against the local OpenAI-compatible test server, with the real client: a reply whose
 * edit names a constant the design does not have goes back to the model with the error; the corrected reply is
 * applied, compiled, evaluated and archived with the model's rationale. Only the proposer role has a model, so
 * answering and judging stay offline.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type ProgramRecord } from '../src/archive/index.ts';
import { createLlmClient, loadLlmConfig, type MeteredLlmClient } from '../src/llm/index.ts';
import { runOptimize, type OptimizeReport } from '../src/optimize/run-optimize.ts';
import { startOpenAiTestServer, type OpenAiTestServer } from './helpers/openai-test-server.ts';
import { LIMIT, SEED_PATH, prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';

const PROPOSER_MODEL = 'proposer-test-model';
const USAGE = { prompt_tokens: 1200, completion_tokens: 80 };
const BAD_RATIONALE = 'Retrieval failures dominate: rank more candidates.';
const GOOD_RATIONALE = 'Retrieval failures dominate: rank 80 candidates so packing can reach evidence ranked below 50.';

let run: DefaultRun;
let server: OpenAiTestServer;
let client: MeteredLlmClient;
let report: OptimizeReport;

beforeAll(async () => {
  run = await prepareDefaultRun('optimize-llm');
  server = await startOpenAiTestServer({
    replies: [
      { json: { target: 'retrieval', rationale: BAD_RATIONALE, edits: [{ op: 'set-constant', name: 'TOP_KK', value: 80 }] }, usage: USAGE },
      { json: { target: 'retrieval', rationale: GOOD_RATIONALE, edits: [{ op: 'set-constant', name: 'TOP_K', value: 80 }] }, usage: USAGE },
    ],
  });
  // The environment is ignored ({}): only the proposer role has a model.
  client = createLlmClient(
    loadLlmConfig({}, { apiKey: 'sk-test', baseURL: server.baseURL, models: { proposer: PROPOSER_MODEL }, retries: 0 }),
  );
  report = await runOptimize({
    out: join(run.dir, 'run'),
    llm: client,
    config: {
      history: run.source,
      supervision: run.supervisionPath,
      seed: SEED_PATH,
      iterations: 1,
      offline: false,
      limit: LIMIT,
      testCategories: ['misleading'],
    },
  });
}, 180_000);

afterAll(async () => {
  await server?.close();
});

describe('the LLM proposer through runOptimize', () => {
  it('uses a model for the proposer only: answerer and judge stay offline', () => {
    expect(client.hasRole('proposer')).toBe(true);
    expect(client.hasRole('answerer')).toBe(false);
    expect(client.hasRole('judge')).toBe(false);
    // No answerer model: the objective is context recall of the generated evidence.
    expect(report.objective).toBe('evidence');
    const manifest = openArchive(report.dir).manifest;
    expect(manifest.models).toEqual({ proposer: PROPOSER_MODEL, answerer: 'offline', judge: 'offline' });
    expect(manifest.config).toMatchObject({ offline: false, objective: 'evidence' });
    expect(manifest.promptVersions).toEqual({ proposer: 'proposer@3' });
  });

  it('sends exactly the proposer calls, with the proposer model, showing the design and its diagnosis', () => {
    const calls = server.chatRequests();
    expect(calls).toHaveLength(2);
    for (const c of calls) expect(c.body.model).toBe(PROPOSER_MODEL);
    const text = (i: number) => (calls[i]!.body.messages as Array<{ content: string }>).map((m) => m.content).join('\n');
    expect(text(0)).toContain('const TOP_K = 50;');
    expect(text(0)).toMatch(/retrieval/);
    // The richer case view: the profile of why evidence was lost, and per case what ranked instead and why.
    expect(text(0)).toMatch(/Why the evidence was lost \(profile of the failure cases\): \d+ cases with missing evidence: /);
    expect(text(0)).toMatch(/"instead":\[\{"record":/);
    expect(text(0)).toMatch(/"why":\["/);
    // Storage failures are described by what the host reads in unit text, with no invitation to declare sources.
    expect(text(0)).not.toMatch(/ids in `sources`/);
    expect(text(0)).not.toContain('E_EDIT_UNKNOWN_NAME');
  });

  it('returns an edit with an unknown name to the model with the error text, and records it as invalid', () => {
    const repair = (server.chatRequests()[1]!.body.messages as Array<{ content: string }>).map((m) => m.content).join('\n');
    expect(repair).toContain('E_EDIT_UNKNOWN_NAME');
    expect(repair).toContain('TOP_KK');
    expect(repair).toMatch(/did not work \(attempt 1\)/);

    const bad = program(1, 0);
    expect(bad.status).toBe('invalid');
    expect(bad.proposer).toBe('llm');
    expect(bad.rationale).toBe(BAD_RATIONALE);
    expect(bad.failure).toMatchObject({ stage: 'apply', code: 'E_EDIT_UNKNOWN_NAME' });
    expect(bad.failure!.message).toContain('TOP_KK');
    expect(bad.edits).toEqual([{ op: 'set-constant', name: 'TOP_KK', value: 80 }]);
  });

  it('applies, compiles and evaluates the corrected edit, recorded with proposer llm and the rationale', () => {
    const archive = openArchive(report.dir);
    const good = program(1, 1);
    expect(['accepted', 'rejected']).toContain(good.status);
    expect(good.proposer).toBe('llm');
    expect(good.rationale).toBe(GOOD_RATIONALE);
    expect(good.targets).toBe('retrieval');
    expect(good.parent).toBe(report.seed.id);
    expect(good.applied).toEqual([expect.objectContaining({ op: 'set-constant', targets: ['TOP_K'], summary: 'TOP_K: 50 → 80' })]);
    const source = archive.source(good.id);
    expect(source).toContain('const TOP_K = 80;');
    expect(source).not.toContain('const TOP_K = 50;');
    expect(good.scores!.n).toBe(run.scoredVal);
    expect(good.scores!.value).toBeGreaterThan(0);
    expect(archive.traces(good.id)).toHaveLength(run.splits.val.length);
    expect(good.decision!.against).toBe(report.seed.id);
    expect(good.cost).toMatchObject({ promptTokens: USAGE.prompt_tokens, completionTokens: USAGE.completion_tokens });

    const r = report.trajectory.find((t) => t.program === good.id)!;
    expect(r).toMatchObject({ proposer: 'llm', rationale: GOOD_RATIONALE, accepted: good.status === 'accepted' });
    // Both replies were paid for and counted.
    expect(report.cost.promptTokens).toBe(2 * USAGE.prompt_tokens);
    expect(report.cost.completionTokens).toBe(2 * USAGE.completion_tokens);
    expect(report.proposals).toBe(2);
  });
});

function program(iteration: number, attempt: number): ProgramRecord {
  const p = openArchive(report.dir)
    .loadState()
    .programs.find((x) => x.iteration === iteration && x.attempt === attempt);
  if (!p) throw new Error(`no program for iteration ${iteration} attempt ${attempt}`);
  return p;
}
