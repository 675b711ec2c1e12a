import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import type { History } from '../src/history/record.ts';
import { createLlmClient } from '../src/llm/client.ts';
import { loadLlmConfig } from '../src/llm/config.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { buildRecordGraph, userVoiceOf } from '../src/supervision/record-graph.ts';
import { sampleBundles } from '../src/supervision/bundles.ts';
import { createLlmProcessor, gapAsked, LLM_GAP_SHARE } from '../src/supervision/llm-generator.ts';
import { askedDayOf } from '../src/supervision/rule-based/asked-dates.ts';
import { wordsToAvoid } from '../src/supervision/rule-based/lexical-gap.ts';
import { emptyStats } from '../src/supervision/summary.ts';
import { startOpenAiTestServer, type OpenAiTestServer } from './helpers/openai-test-server.ts';

const records = JSON.parse(readFileSync(new URL('./fixtures/supervision/mini-history.json', import.meta.url), 'utf8')) as SourceRecord[];
const history: History = { id: 'mini', source: 'test', format: 'test', records, qa: [], unresolvedEvidence: [] };

type Role = 'planner' | 'questioner' | 'auditor' | 'reader';
type Script = Partial<Record<Role, unknown>>;

const plan = {
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
};
const question = { question: 'How far does the greyhound Evan adopted from the Riverside Shelter run with him each morning?' };
const audit = {
  judgments: [
    { aspect: 'answer-support', verdict: 'supported', rationale: 'D1:3 says 5 miles' },
    { aspect: 'question-plan-consistency', verdict: 'supported', rationale: 'asks for the distance' },
    { aspect: 'fact-support', target: 'fact:1', verdict: 'supported', rationale: 'D1:1 says so' },
    { aspect: 'fact-support', target: 'fact:2', verdict: 'supported', rationale: 'D1:3 says so' },
    { aspect: 'contribution', target: 'D1:1', verdict: 'supported', rationale: 'names the shelter' },
    { aspect: 'contribution', target: 'D1:3', verdict: 'supported', rationale: 'gives the distance' },
  ],
};
const reading = { answerable: true, answer: 'five miles', citations: ['D1:3', 'D1:1'] };
const good: Script = { planner: plan, questioner: question, auditor: audit, reader: reading };

let server: OpenAiTestServer;
let script: Script = good;

function roleOf(body: { messages?: Array<{ content?: string }> }): Role {
  const system = body.messages?.[0]?.content ?? '';
  const m = /version: (planner|questioner|auditor|reader)@/.exec(system);
  if (!m) throw new Error('request without a versioned prompt');
  return m[1] as Role;
}

beforeAll(async () => {
  server = await startOpenAiTestServer({
    handler: (body) => {
      const role = roleOf(body);
      const reply = script[role];
      return typeof reply === 'string' ? { content: reply } : { json: reply };
    },
  });
});
afterAll(async () => server.close());

async function run(s: Script, n = 1, on: History = history) {
  script = s;
  server.reset();
  const config = loadLlmConfig(
    {},
    {
      apiKey: 'test-key',
      baseURL: server.baseURL,
      models: { planner: 'test-model', questioner: 'test-model', auditor: 'test-model', reader: 'test-model' },
      retries: 0,
      schemaRepairs: 1,
      cache: false,
    },
  );
  const llm = createLlmClient(config, { sleep: async () => {} });
  return generateSupervision(on, { mode: 'llm', llm, n, types: ['multi-hop'], bundleTokens: 4000, seed: 2 });
}

describe('LLM generation pipeline against a scripted OpenAI-compatible server', () => {
  it('keeps an item that passes every gate, with verified spans and token accounting', async () => {
    const { items, summary } = await run(good);
    expect(items).toHaveLength(1);
    const item = items[0]!;
    expect(item.answer).toBe('5 miles');
    expect(item.generator).toBe('llm:test-model');
    expect(item.evidence.map((e) => e.record)).toEqual(['D1:1', 'D1:3']);
    for (const e of item.evidence) {
      const text = records.find((r) => r.id === e.record)!.text;
      expect(text.slice(e.span![0], e.span![1])).toBe(e.quote);
    }
    expect(summary.stages.find((s) => s.stage === 'audit')).toMatchObject({ in: 1, out: 1 });
    expect(summary.tokens.calls).toBe(4);
    expect(summary.tokens.prompt).toBeGreaterThan(0);
    expect(summary.tokens.promptPerKept).toBe(summary.tokens.prompt);
    expect(summary.prompts).toEqual({
      planner: 'planner@10',
      questioner: 'questioner@6',
      auditor: 'auditor@2',
      reader: 'reader@2',
      'lexical-gap': `lexical-gap@4 share ${LLM_GAP_SHARE}`,
    });
    // The questioner is asked to avoid the evidence's words exactly for the bundles the seeded draw picks.
    const questionerPrompt = JSON.stringify(server.chatRequests()[1]!.body.messages);
    const asked = gapAsked(String(item.meta!.bundle));
    expect(questionerPrompt.includes('Words to avoid')).toBe(asked);
    expect(item.checks!.lexicalGap !== undefined).toBe(asked);
    const roles = server.chatRequests().map((r) => roleOf(r.body));
    expect(roles).toEqual(['planner', 'questioner', 'auditor', 'reader']);
    // The blind reader sees the question and the records, never the plan.
    const readerPrompt = JSON.stringify(server.chatRequests()[3]!.body.messages);
    expect(readerPrompt).toContain(question.question);
    expect(readerPrompt).not.toContain('gives the distance');
    expect(readerPrompt).not.toContain('identifies the greyhound');
    // Asked the day after the last record, like the offline items: the questioner, the auditor and the reader are told.
    const day = askedDayOf(records);
    expect(day).toBeDefined();
    expect(item.date).toBe(day);
    for (const i of [1, 2, 3]) expect(JSON.stringify(server.chatRequests()[i]!.body.messages)).toContain(`Asked on: ${day}`);
  });

  it("asks a user's question on its own day after its evidence, and tells the questioner, auditor and reader that day", async () => {
    // The same history as a user's with an assistant: most turns are the user's.
    const own: History = { ...history, records: records.map((r) => (r.kind === 'turn' ? { ...r, text: `User: ${r.text}` } : r)) };
    const { items } = await run(good, 1, own);
    expect(items).toHaveLength(1);
    const day = items[0]!.date!;
    // The evidence (D1:1, D1:3) is dated 2023-05-08: asked 1 to 345 days later (a drawn delay, to the monthly grid).
    expect(day > '2023-05-08').toBe(true);
    expect(day <= '2024-04-17').toBe(true);
    expect(userVoiceOf(own)).toBe(true);
    expect(day).not.toBe(askedDayOf(own.records));
    for (const i of [1, 2, 3]) expect(JSON.stringify(server.chatRequests()[i]!.body.messages)).toContain(`Asked on: ${day}`);
  });

  it('rejects a plan whose quoted span is not in its record, before any question is written', async () => {
    const bad = structuredClone(plan);
    bad.plan.facts[1]!.quote = 'she runs 10 miles every evening';
    const { items, summary } = await run({ ...good, planner: bad });
    expect(items).toHaveLength(0);
    expect(summary.rejections['plan:quote-not-in-record']).toBeGreaterThan(0);
    expect(server.chatRequests().every((r) => roleOf(r.body) === 'planner')).toBe(true);
  });

  it('drops a question that leaks the answer', async () => {
    const { items, summary } = await run({
      ...good,
      questioner: { question: 'Does the greyhound Evan adopted run 5 miles every morning?' },
    });
    expect(items).toHaveLength(0);
    expect(summary.rejections['question:answer-leak']).toBeGreaterThan(0);
    expect(server.chatRequests().some((r) => roleOf(r.body) === 'auditor')).toBe(false);
  });

  it('drops an item the audit does not support', async () => {
    const failing = structuredClone(audit);
    failing.judgments[3]!.verdict = 'unsupported';
    const { items, summary } = await run({ ...good, auditor: failing });
    expect(items).toHaveLength(0);
    expect(summary.rejections['audit:unsupported']).toBeGreaterThan(0);
    expect(server.chatRequests().some((r) => roleOf(r.body) === 'reader')).toBe(false);
  });

  it('drops an item when the blind reader answers differently or misses a cited record', async () => {
    const wrong = await run({ ...good, reader: { ...reading, answer: '3 miles' } });
    expect(wrong.items).toHaveLength(0);
    expect(wrong.summary.rejections['blind:answer-mismatch']).toBeGreaterThan(0);
    const missing = await run({ ...good, reader: { ...reading, citations: ['D1:3'] } });
    expect(missing.items).toHaveLength(0);
    expect(missing.summary.rejections['blind:missing-citation']).toBeGreaterThan(0);
  });

  it('retries malformed model output, then counts it as a failure', async () => {
    const { items, summary } = await run({ ...good, planner: 'this is not JSON' });
    expect(items).toHaveLength(0);
    const failures = summary.rejections['llm:planner-failed']!;
    expect(failures).toBeGreaterThan(0);
    // one repair per call (schemaRepairs: 1): two requests for every failed planner call
    expect(server.chatRequests().length).toBe(failures * 2);
  });

  it('asks the questioner to avoid the evidence words of the plan when the bundle is drawn for the lexical gap', async () => {
    script = good;
    server.reset();
    const config = loadLlmConfig(
      {},
      {
        apiKey: 'test-key',
        baseURL: server.baseURL,
        models: { planner: 'test-model', questioner: 'test-model', auditor: 'test-model', reader: 'test-model' },
        retries: 0,
        schemaRepairs: 1,
        cache: false,
      },
    );
    const llm = createLlmClient(config, { sleep: async () => {} });
    const graph = buildRecordGraph(records);
    const [bundle] = sampleBundles(graph, { count: 1, tokenBudget: 4000, seed: 2 });
    for (const gapShare of [1, 0]) {
      server.reset();
      const p = createLlmProcessor({ graph, llm, history: 'mini', gapShare });
      const out = await p.process(bundle!, ['multi-hop'], emptyStats());
      expect(out).toHaveLength(1);
      const questioner = JSON.stringify(server.chatRequests()[1]!.body.messages);
      if (gapShare === 1) {
        expect(questioner).toContain("Words to avoid (the evidence's own words): finally, adopted, greyhound");
        expect(out[0]!.checks.lexicalGap).toMatch(/^avoid: finally, adopted, greyhound/);
      } else {
        expect(questioner).not.toContain('Words to avoid');
        expect(out[0]!.checks.lexicalGap).toBeUndefined();
      }
    }
  });
});

describe('wordsToAvoid', () => {
  it('lists the quotes’ content words once, without names, stop words or the answer’s words', () => {
    expect(
      wordsToAvoid(
        ['I finally adopted a greyhound named Biscuit', 'she runs 5 miles with Evan every morning'],
        '5 miles',
        new Set(['evan']),
      ),
    ).toEqual(['finally', 'adopted', 'greyhound', 'named', 'runs', 'every', 'morning']);
  });
});
