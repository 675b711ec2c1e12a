import { describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.ts';
import { captureIO } from '../src/cli/io.ts';
import { EvalReportSchema } from '../src/cli/commands/eval.ts';
import { QuestionTraceSchema } from '../src/scoring/trace-schema.ts';
import { loadHistories } from '../src/history/load.ts';
import { readJsonl } from '../src/util/jsonl.ts';
import { tempDir } from './helpers/temp-dir.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const SEED = resolve(REPO, 'seeds', 'base-bm25.ts');
// The shared benchmark data sits next to the repository (<repo>/../shared/data); not every checkout has it.
const LOCOMO = resolve(REPO, '..', 'shared', 'data', 'locomo', 'locomo10.json');
const RHELM_DEFAULT = resolve(REPO, 'data', 'default', 'rhelm');

async function memsteer(...args: string[]) {
  const io = captureIO();
  const code = await main(['node', 'memsteer', ...args], io);
  return { code, ...io };
}

const tmp = () => tempDir('memsteer-eval-');

describe.skipIf(!existsSync(LOCOMO))('memsteer eval on one LoCoMo conversation', () => {
  it('--json: scores the slice, reports R@k, context recall, LoCoMo F1 per category, and writes valid traces', async () => {
    const traces = join(tmp(), 'traces.jsonl');
    const r = await memsteer(
      'eval',
      '--history',
      `locomo:${LOCOMO}#conv-26`,
      '--design',
      SEED,
      '--categories',
      '1,2,3,4',
      '--limit',
      '30',
      '--json',
      '--traces',
      traces,
      '--jobs',
      '2',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = EvalReportSchema.parse(JSON.parse(r.stdout));
    expect(report.questions).toBe(30);
    expect(report.answerer).toBe('extractive-reader@2');
    const s = report.summary;
    expect(s.n).toBe(30);
    expect(s.errors).toEqual({});
    expect(Object.keys(s.recallAt)).toEqual(['1', '5', '10']);
    expect(s.recallAt['10']!).toBeGreaterThan(0.3);
    expect(s.recallAt['10']!).toBeGreaterThanOrEqual(s.recallAt['1']!);
    expect(s.contextRecall!).toBeGreaterThan(0.3);
    expect(Object.keys(s.locomo!.byCategory).every((c) => ['1', '2', '3', '4'].includes(c))).toBe(true);
    expect(s.accuracy).toBeGreaterThan(0);
    const lines = readJsonl(traces, QuestionTraceSchema);
    expect(lines).toHaveLength(30);
    for (const t of lines) {
      expect(t.history).toBe('conv-26');
      expect(t.rankedRecords.every((id) => /^D\d+:\d+$/.test(id))).toBe(true);
      expect(t.contextTokens).toBeLessThanOrEqual(2000);
    }
    expect(existsSync(join(traces, '..', 'traces.summary.json'))).toBe(true);
  });

  it('prints a summary table and where the traces went', async () => {
    const traces = join(tmp(), 't.jsonl');
    const r = await memsteer(
      'eval',
      '--history',
      `locomo:${LOCOMO}#conv-30`,
      '--design',
      SEED,
      '--categories',
      '2',
      '--limit',
      '8',
      '--budget',
      '500',
      '--traces',
      traces,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/R@1\s*│\s*R@5\s*│\s*R@10/);
    expect(r.stdout).toContain('budget 500 tokens');
    expect(r.stdout).toContain(`traces: ${traces}`);
    expect(readJsonl(traces, QuestionTraceSchema).every((t) => t.contextTokens <= 500 && t.category === '2')).toBe(true);
  });
});

describe.skipIf(!existsSync(RHELM_DEFAULT))('memsteer eval on RHELM respects question dates', () => {
  it('no ranked or delivered record is dated after its question', async () => {
    const traces = join(tmp(), 'traces.jsonl');
    const r = await memsteer(
      'eval',
      '--history',
      `rhelm:${RHELM_DEFAULT}`,
      '--design',
      SEED,
      '--limit',
      '10',
      '--json',
      '--traces',
      traces,
    );
    expect(r.code).toBe(0);
    const report = EvalReportSchema.parse(JSON.parse(r.stdout));
    expect(report.summary.n).toBe(10);
    const [history] = await loadHistories(`rhelm:${RHELM_DEFAULT}`);
    const timeOf = new Map(history!.records.map((x) => [x.id, x.time]));
    const dateOf = new Map(history!.qa.map((q) => [q.id, q.date]));
    let checked = 0;
    for (const t of readJsonl(traces, QuestionTraceSchema)) {
      const date = dateOf.get(t.question);
      expect(date).toBeDefined();
      for (const id of [...t.rankedRecords, ...t.deliveredRecords]) {
        expect(timeOf.get(id)!.slice(0, 10) <= date!, `${id} (${timeOf.get(id)}) for ${t.question} on ${date}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});

describe('memsteer eval with a question file', () => {
  it('--questions <supervision.jsonl> evaluates those questions on the histories they name', async () => {
    const dir = tmp();
    const records = join(REPO, 'test', 'fixtures', 'history', 'records.jsonl');
    const items = [
      {
        id: 's1',
        history: 'alice',
        question: 'What is the name of the cat alice adopted?',
        answer: 'Miso',
        answerType: 'text',
        evidence: [{ record: 'a1' }],
        split: 'val',
      },
      {
        id: 's2',
        history: 'bob',
        question: 'What does Bob prefer over coffee?',
        answer: 'tea',
        answerType: 'text',
        evidence: [{ record: 'b1' }],
        split: 'val',
      },
      { id: 's3', history: 'carol', question: 'Not loaded?', answer: 'x', answerType: 'text', evidence: [] },
    ];
    const file = join(dir, 'supervision.jsonl');
    writeFileSync(file, `${items.map((i) => JSON.stringify(i)).join('\n')}\n`);
    const traces = join(dir, 't.jsonl');
    const r = await memsteer('eval', '--history', `jsonl:${records}`, '--design', SEED, '--questions', file, '--json', '--traces', traces);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = EvalReportSchema.parse(JSON.parse(r.stdout));
    // The question about a history that is not loaded is left out.
    expect(report.questions).toBe(2);
    const lines = readJsonl(traces, QuestionTraceSchema);
    expect(lines.map((t) => [t.question, t.rankedRecords[0]])).toEqual([
      ['s1', 'a1'],
      ['s2', 'b1'],
    ]);
    expect(report.summary.recallAt['1']).toBe(1);
  });
});

describe('memsteer eval input errors', () => {
  it('a design with a type error is reported with its file and line, and nothing runs', async () => {
    const dir = tmp();
    const design = join(dir, 'broken.ts');
    writeFileSync(
      design,
      "import type { MemoryDesign } from '../sandbox/contract.ts';\nconst n: number = 'text';\nexport default {} as MemoryDesign;\n",
    );
    const r = await memsteer(
      'eval',
      '--history',
      `jsonl:${join(REPO, 'test', 'fixtures', 'history', 'records.jsonl')}`,
      '--design',
      design,
      '--traces',
      join(dir, 't.jsonl'),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/E_COMPILE: .*broken\.ts:\d+:\d+/);
    expect(existsSync(join(dir, 't.jsonl'))).toBe(false);
  });

  it('a bad --budget is an input error', async () => {
    const r = await memsteer('eval', '--history', 'x', '--design', SEED, '--budget', 'lots');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('E_BAD_FLAG');
  });

  it('official questions are required when no question file is given', async () => {
    const dir = tmp();
    const records = join(REPO, 'test', 'fixtures', 'history', 'records.jsonl');
    const r = await memsteer('eval', '--history', `jsonl:${records}`, '--design', SEED, '--traces', join(dir, 't.jsonl'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('E_NO_QUESTIONS');
  });
});
