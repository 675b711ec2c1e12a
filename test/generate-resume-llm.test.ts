/**
 * With a model, too, a resumed `generate` keeps exactly the items and splits of an uninterrupted run, and pays
 * for no journaled bundle again. A kill leaves the journal cut after some bundle (and maybe a torn line): the
 * test builds those states from an uninterrupted run's journal. The scripted model reads the bundle it is given
 * and answers with a checkable single-hop item about one of its records, so different bundles make different items.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';
import { loadHistories } from '../src/history/load.ts';
import type { History } from '../src/history/record.ts';
import { createLlmClient } from '../src/llm/client.ts';
import { loadLlmConfig } from '../src/llm/config.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { startOpenAiTestServer, type OpenAiTestServer, type ScriptedReply } from './helpers/openai-test-server.ts';

type Role = 'planner' | 'questioner' | 'auditor' | 'reader';
const roleOf = (body: { messages: Array<{ content: string }> }): Role =>
  /version: (planner|questioner|auditor|reader)@/.exec(body.messages[0]!.content)![1] as Role;

/** `[id] (head)\ntext` blocks of a rendered bundle. */
function blocks(material: string): Array<{ id: string; text: string }> {
  const heads = [...material.matchAll(/^\[([^\]\n]+)\] \([^\n]*\)\n/gm)];
  return heads.map((h, i) => ({ id: h[1]!, text: material.slice(h.index! + h[0].length, heads[i + 1]?.index ?? material.length) }));
}

const WORDS = 12;
/** The record's first 12 words as they stand in its text, when the 12th is a plain word the first 11 do not contain. */
function pick(text: string): { quote: string; cue: string; answer: string } | undefined {
  const m = new RegExp(`^\\s*(?:\\S+\\s+){${WORDS - 1}}\\S+`).exec(text);
  if (!m) return undefined;
  const quote = m[0].trim();
  const words = quote.split(/\s+/);
  const answer = words[WORDS - 1]!.replace(/[^\p{L}]/gu, '');
  const cue = words.slice(0, WORDS - 1).join(' ');
  if (answer.length < 4 || !/^[\p{L}]+$/u.test(words[WORDS - 1]!.replace(/[.,;:!]$/, '')) || /["?[\]]/.test(cue)) return undefined;
  if (cue.toLowerCase().includes(answer.toLowerCase())) return undefined;
  return { quote, cue, answer };
}

/** A deterministic "model" that makes one checkable item per bundle. */
function model(body: { messages: Array<{ content: string }> }): ScriptedReply {
  const user = body.messages[1]!.content;
  const role = roleOf(body);
  if (role === 'planner') {
    const candidates = blocks(user.slice(user.indexOf('Records:\n') + 9)).flatMap((b) => {
      const p = pick(b.text);
      return p ? [{ ...p, id: b.id }] : [];
    });
    if (!candidates.length) return { json: { plan: null } };
    const c = candidates[user.length % candidates.length]!;
    return {
      json: {
        plan: {
          questionType: 'single-hop',
          intent: `the word after "${c.cue}"`,
          answer: c.answer,
          answerType: 'text',
          facts: [{ record: c.id, quote: c.quote, statement: `the passage goes on with ${c.answer}` }],
          evidence: [{ record: c.id, contribution: 'holds the words' }],
          operations: ['lookup'],
        },
      },
    };
  }
  if (role === 'questioner') {
    const plan = JSON.parse(user.slice(user.indexOf('{'), user.indexOf('\n\nRecords:'))) as { facts: Array<{ quote: string }> };
    const cue = plan.facts[0]!.quote.split(/\s+/)
      .slice(0, WORDS - 1)
      .join(' ');
    return { json: { question: `Which word comes right after "${cue}"?` } };
  }
  if (role === 'auditor') {
    const record = /"record": "([^"]+)"/.exec(user)![1]!;
    const ok = (aspect: string, target?: string) => ({
      aspect,
      ...(target ? { target } : {}),
      verdict: 'supported',
      rationale: 'it says so',
    });
    return {
      json: {
        judgments: [ok('answer-support'), ok('question-plan-consistency'), ok('fact-support', 'fact:1'), ok('contribution', record)],
      },
    };
  }
  const cue = /"(.*)"\?/.exec(user)![1]!;
  for (const b of blocks(user.slice(user.indexOf('Records:\n') + 9))) {
    const p = pick(b.text);
    if (p?.cue === cue) return { json: { answerable: true, answer: p.answer, citations: [b.id] } };
  }
  return { json: { answerable: false, answer: '', citations: [] } };
}

let server: OpenAiTestServer;
let history: History;
const dir = mkdtempSync(join(tmpdir(), 'memsteer-generate-resume-llm-'));

beforeAll(async () => {
  server = await startOpenAiTestServer({ handler: (body) => model(body) });
  [history] = (await loadHistories(DEFAULT_SOURCE)) as [History];
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(progressFile: string) {
  server.reset();
  const config = loadLlmConfig(
    {},
    {
      apiKey: 'test-key',
      baseURL: server.baseURL,
      models: { planner: 'm', questioner: 'm', auditor: 'm', reader: 'm' },
      retries: 0,
      cache: false,
    },
  );
  const llm = createLlmClient(config, { sleep: async () => {} });
  return generateSupervision(history, { mode: 'llm', llm, n: 10, types: ['single-hop'], seed: 3, progressFile });
}

const planners = () => server.chatRequests().filter((r) => roleOf(r.body) === 'planner').length;

describe('generate with a model: resume', () => {
  it('a journal cut after k bundles (plus a torn line) resumes to the same items and splits, paying for no journaled bundle', async () => {
    const wholeJournal = join(dir, 'whole.progress.jsonl');
    const whole = await run(wholeJournal);
    expect(whole.items.length).toBe(10);
    const wholePlanners = planners();
    const lines = readFileSync(wholeJournal, 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(10);
    for (const k of [3, 8]) {
      const cut = join(dir, `cut-${k}.progress.jsonl`);
      writeFileSync(cut, `${lines.slice(0, k).join('\n')}\n{"bundle":"b1234","run":"x","sta`);
      const resumed = await run(cut);
      expect(resumed.items.map((q) => [q.id, q.split])).toEqual(whole.items.map((q) => [q.id, q.split]));
      expect(resumed.summary.resumedBundles).toBe(k);
      // one planner call per bundle: exactly the journaled ones were not asked again
      expect(planners()).toBe(wholePlanners - k);
    }
  }, 120_000);
});
