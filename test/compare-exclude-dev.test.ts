/**
 * `memsteer compare --exclude-dev` on a two-conversation LoCoMo file where one conversation carries a development id:
 * the arms search and are tested on the held-out conversation only, compare.json lists it, and every arm's best
 * design is named by content hash with the earlier arm it duplicates.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.ts';
import { renderDesigns, runCompareCommand } from '../src/cli/commands/compare.ts';
import { captureIO } from '../src/cli/io.ts';
import { QAItemSchema, type QAItem } from '../src/history/record.ts';
import { CompareReportSchema, type CompareReport } from '../src/optimize/compare.ts';
import { CompareSeedsReportSchema } from '../src/optimize/compare-seeds.ts';
import { writeJsonl } from '../src/util/jsonl.ts';

let dir: string;
let source: string;
let devOnly: string;
let supervision: string;

const item = (id: string, history: string, question: string, record: string, split: 'train' | 'val'): QAItem => ({
  id,
  history,
  question,
  answer: 'x',
  answerType: 'text',
  evidence: [{ record }],
  split,
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memsteer-compare-dev-'));
  const data = JSON.parse(readFileSync(resolve('test/fixtures/history/locomo-mini.json'), 'utf8')) as Array<{ sample_id: string }>;
  // conv-2 becomes conv-26, a LoCoMo development conversation (src/experiments/dev-subsets.ts).
  data[1]!.sample_id = 'conv-26';
  writeFileSync(join(dir, 'locomo.json'), JSON.stringify(data));
  writeFileSync(join(dir, 'dev-only.json'), JSON.stringify([data[1]]));
  source = `locomo:${join(dir, 'locomo.json')}`;
  devOnly = `locomo:${join(dir, 'dev-only.json')}`;
  supervision = join(dir, 'supervision.jsonl');
  writeJsonl(
    supervision,
    [
      item('t1', 'conv-1', 'Who ran a charity race?', 'D1:1', 'train'),
      item('t2', 'conv-1', 'What is new and black?', 'D1:2', 'train'),
      item('v1', 'conv-1', 'What race did Ann run?', 'D1:1', 'val'),
      item('v2', 'conv-1', 'Whose bowl is new?', 'D1:2', 'val'),
      item('d1', 'conv-26', 'What did they wish?', 'D1:1', 'train'),
      item('d2', 'conv-26', 'Which new year?', 'D1:1', 'val'),
    ],
    QAItemSchema,
  );
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('memsteer compare --exclude-dev', () => {
  let report: CompareReport;
  let io: ReturnType<typeof captureIO>;

  beforeAll(async () => {
    io = captureIO();
    report = await runCompareCommand(
      {
        history: source,
        supervision,
        out: join(dir, 'cmp'),
        iterations: 1,
        offline: true,
        jobs: 1,
        excludeDev: true,
      },
      io,
    );
  }, 300_000);

  it('searches and tests on the held-out histories only', () => {
    expect(report.histories).toEqual(['conv-1']);
    for (const a of report.arms) {
      // conv-1's five official questions; conv-26's validation item is not used.
      expect(a.best.test!.n).toBe(5);
      expect(a.seed.val.n).toBe(2);
    }
    const onDisk = CompareReportSchema.parse(JSON.parse(readFileSync(join(dir, 'cmp', 'compare.json'), 'utf8')));
    expect(onDisk.histories).toEqual(['conv-1']);
    expect(io.stdout).toContain('held-out histories only (--exclude-dev): conv-1');
  });

  it('names each arm’s best design by content hash and the earlier arm it duplicates', () => {
    const [code, config] = report.arms;
    expect(code!.bestHash).toMatch(/^[0-9a-f]{64}$/);
    expect(code!.sameDesignAs).toBeNull();
    expect(config!.sameDesignAs).toBe(config!.bestHash === code!.bestHash ? 'code' : null);
    const text = renderDesigns(report);
    expect(text).toContain(code!.bestHash.slice(0, 12));
    expect(text).toContain('same design as');
    expect(io.stdout).toContain(text);
  });

  it('refuses a source whose histories are all development ones', async () => {
    await expect(
      runCompareCommand({ history: devOnly, supervision, out: join(dir, 'cmp2'), offline: true, excludeDev: true }, captureIO()),
    ).rejects.toMatchObject({ code: 'E_NO_HISTORIES' });
  });
});

describe('memsteer compare --rng-seeds', () => {
  it('runs one comparison per seed and pools them over seeds and questions', async () => {
    const io = captureIO();
    const out = join(dir, 'seeds');
    const args = ['--history', source, '--supervision', supervision, '--out', out, '--iterations', '1', '--offline', '--jobs', '1'];
    expect(await main(['node', 'memsteer', 'compare', ...args, '--exclude-dev', '--rng-seeds', '1,2'], io)).toBe(0);
    const pooled = CompareSeedsReportSchema.parse(JSON.parse(readFileSync(join(out, 'compare-seeds.json'), 'utf8')));
    expect(pooled.rngSeeds).toEqual([1, 2]);
    expect(pooled.runs.map((r) => [r.rngSeed, r.dir])).toEqual([
      [1, join(out, 'seed-1')],
      [2, join(out, 'seed-2')],
    ]);
    for (const seed of [1, 2]) {
      const one = CompareReportSchema.parse(JSON.parse(readFileSync(join(out, `seed-${seed}`, 'compare.json'), 'utf8')));
      expect(one.rngSeed).toBe(seed);
      // The questions the paired difference was computed over (those with evidence, the objective's).
      expect(Object.keys(one.perQuestion!.code!)).toHaveLength(one.differences[0]!.n);
      expect(one.differences[0]!.n).toBe(4);
    }
    const d = pooled.pooled[0]!;
    expect([d.a, d.b, d.runs, d.n]).toEqual(['code', 'config', 2, 4]);
    // Each run's mean over the pooled questions is that seed's own paired difference.
    pooled.runs.forEach((r, i) => expect(d.runMeans[i]).toBeCloseTo(r.differences[0]!.mean, 12));
    expect(io.stdout).toMatch(/code − config pooled over 2 RNG seeds on official QA \(test\), 4 questions: mean [+-]\d/);
    expect(io.stdout).toContain('held-out histories only (--exclude-dev): conv-1');
  }, 300_000);

  it('refuses --rng-seed with --rng-seeds, and a single seed', async () => {
    const base = ['node', 'memsteer', 'compare', '--history', source, '--supervision', supervision, '--offline'];
    const both = captureIO();
    expect(await main([...base, '--out', join(dir, 's2'), '--rng-seed', '3', '--rng-seeds', '1,2'], both)).not.toBe(0);
    expect(both.stderr).toMatch(/--rng-seed and --rng-seeds/);
    const one = captureIO();
    expect(await main([...base, '--out', join(dir, 's3'), '--rng-seeds', '4'], one)).not.toBe(0);
    expect(one.stderr).toMatch(/--rng-seeds/);
  });
});
