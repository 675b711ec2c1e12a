/**
 * The bench's rerun machinery: the supervision and feedback tables name each arm's design by content hash and say
 * which earlier arm had the same design, a fidelity table appears per optimized row when the bench computes
 * fidelity, `--exclude-dev` leaves the development histories out of every experiment, and the CLI flags reach the
 * config. The experiments run against a fake bench context (our own interface), so only the table logic runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/archive/index.ts';
import { benchConfigFromFlags } from '../src/cli/commands/bench.ts';
import { BenchConfigSchema } from '../src/experiments/bench-config.ts';
import type { CellResult } from '../src/experiments/cells.ts';
import { BenchContext, cellRef, type CellRequest } from '../src/experiments/context.ts';
import { designHash, fidelityTable, readmeMarkdown, sameDesignAs } from '../src/experiments/markdown.ts';
import type { BenchFidelity, DesignRef, Scores, Table } from '../src/experiments/schemas.ts';
import { runFeedbackExperiment } from '../src/experiments/tables/feedback.ts';
import { runSupervisionExperiment } from '../src/experiments/tables/supervision.ts';
import { openWorkspace } from '../src/experiments/workspace.ts';
import type { History, QAItem } from '../src/history/record.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function history(id: string): History {
  return { id, source: `test:${id}`, format: 'jsonl', records: [], qa: [], unresolvedEvidence: [] };
}

const METRICS = { n: 10, recallAt10: 0.5, contextRecall: 0.6, accuracy: 0.2, f1: 0.3, locomoF1: 0.25 };
const SCORES: Scores = { ...METRICS, perCategory: {}, split: { dev: null, heldout: { ...METRICS, perCategory: {} } } };

function fidelity(tau: number): BenchFidelity {
  const agreement = {
    n: 4,
    kendallTauB: tau,
    spearman: tau,
    regret: {
      chosen: 'i1',
      chosenOfficial: 0.5,
      bestOfficial: 'i2',
      bestOfficialScore: 0.55,
      regret: 0.05,
      tiedAtTop: 1,
      meanRegretOverTies: 0.05,
    },
  };
  // A ceiling above every row's τ-b except in the first row, which records none (a result written before it existed).
  const ceiling = tau < 0.15 ? undefined : 0.75;
  return {
    part: 'heldout',
    histories: 2,
    questions: 40,
    candidates: 5,
    distinct: 4,
    contextRecall: agreement,
    recallAt10: agreement,
    ceiling,
    ...(ceiling === undefined ? {} : { decisions: { agree: 3, disagree: 1, unclear: 4 } }),
  };
}

/**
 * A bench context whose cells end at designs chosen by the request name (arms listed in `same` share one source),
 * with fixed test scores and a fidelity that records which run it was asked about.
 */
function fakeContext(options: { fidelity: boolean; same: string[] }) {
  const config = BenchConfigSchema.parse({
    out: '/tmp/unused',
    datasets: [{ id: 'locomo', source: 'locomo:/nowhere.json' }],
    budgets: [10, 20],
    iterations: 1,
    fidelity: options.fidelity,
  });
  const asked: string[] = [];
  const ctx = {
    config,
    histories: async () => [history('conv-41'), history('conv-42')],
    generated: async (): Promise<QAItem[]> =>
      Array.from({ length: 40 }, (_, i) => ({
        id: `g${i}`,
        history: 'conv-41',
        question: `q${i}?`,
        answer: 'a',
        answerType: 'text' as const,
        evidence: [{ record: 'r' }],
        split: i % 4 === 0 ? ('val' as const) : ('train' as const),
      })),
    cell: async (r: CellRequest): Promise<CellResult> => {
      const source = options.same.some((s) => r.name.endsWith(s)) ? 'shared design' : `design of ${r.name}`;
      const hash = sha256(source);
      return {
        name: r.name,
        key: 'k',
        run: `work/runs/${r.name}`,
        seed: { id: 'i000-seed', valFitness: 0.4 },
        best: { id: `i003-${hash.slice(0, 12)}`, valFitness: 0.5 },
        bestSource: source,
        accepted: 1,
        proposals: 3,
        stopReason: 'done',
        train: 30,
        val: 10,
        seconds: 0,
        reused: true,
      };
    },
    evaluate: async () => ({ scores: SCORES, byHistory: new Map() }),
    fidelity: async (cell: CellResult) => {
      asked.push(cell.name);
      return fidelity(asked.length / 10);
    },
    testNote: () => 'LoCoMo: official categories 1–4',
    step: () => {},
  };
  return { ctx: ctx as unknown as BenchContext, asked };
}

const tableNamed = (tables: Table[], start: string) => tables.find((t) => t.title.startsWith(start));

describe('ablation tables state whether the designs differ', () => {
  it('designHash and sameDesignAs: content hash first, program id otherwise; the first earlier row with the same hash', () => {
    const ref = (program: string, contentHash?: string): DesignRef => ({
      program,
      run: null,
      valFitness: null,
      accepted: null,
      proposals: null,
      ...(contentHash ? { contentHash } : {}),
    });
    const h = 'a'.repeat(64);
    expect(designHash(ref('i004-abcdef012345', h))).toBe('aaaaaaaaaaaa');
    expect(designHash(ref('i004-abcdef012345'))).toBe('abcdef012345');
    const rows = [
      { label: 'A', design: ref('i1-x', h) },
      { label: 'B', design: ref('i2-y', 'b'.repeat(64)) },
      { label: 'C', design: ref('i3-z', h) },
      { label: 'D', design: ref('i5-aaaaaaaaaaaa') },
    ];
    expect(sameDesignAs(rows)).toEqual(['–', '–', 'A', 'A']);
  });

  it('supervision: a design-hash and a same-design-as column per arm, and no fidelity table unless asked', async () => {
    const { ctx, asked } = fakeContext({ fidelity: false, same: ['no-checks', 'budget-20'] });
    const result = await runSupervisionExperiment(ctx);
    const t = tableNamed(result.tables, 'LoCoMo: official test of each arm')!;
    const col = (name: string) => t.columns.indexOf(name);
    expect(col('design hash')).toBeGreaterThan(0);
    expect(col('same design as')).toBe(col('design hash') + 1);
    const byVariant = new Map(t.rows.map((r) => [r[0], r]));
    const shared = sha256('shared design').slice(0, 12);
    expect(byVariant.get('without checks (all training items)')![col('design hash')]).toBe(shared);
    expect(byVariant.get('with checks (all training items)')![col('same design as')]).toBe('–');
    expect(byVariant.get('without checks (all training items)')![col('same design as')]).toBe('–');
    expect(byVariant.get('budget 20')![col('same design as')]).toBe('without checks (all training items)');
    expect(byVariant.get('budget 10')![col('same design as')]).toBe('–');
    const row = (variant: string) => result.rows.find((r) => r.variant === variant)!;
    expect(row('budget 20').design.contentHash).toBe(sha256('shared design'));
    expect(row('budget 10').design.contentHash).toBe(sha256('design of locomo-ablation-budget-10'));
    expect(tableNamed(result.tables, 'LoCoMo: supervision fidelity')).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('feedback: the same columns, and with fidelity on a fidelity table per optimized row', async () => {
    const { ctx, asked } = fakeContext({ fidelity: true, same: ['diagnosis', 'stratified'] });
    const result = await runFeedbackExperiment(ctx);
    const t = tableNamed(result.tables, 'LoCoMo: official test by feedback mode')!;
    const same = t.rows.map((r) => r[t.columns.indexOf('same design as')]);
    expect(same).toEqual(['–', '–', 'diagnosis']);
    expect(asked).toEqual(['locomo-feedback-random', 'locomo-feedback-diagnosis', 'locomo-feedback-stratified']);
    const f = tableNamed(result.tables, 'LoCoMo: supervision fidelity of each mode')!;
    expect(f.columns).toContain('τ-b ctx recall');
    expect(f.columns).toContain('regret R@10');
    expect(f.rows).toHaveLength(3);
    expect(f.rows[0]!.slice(0, 8)).toEqual([
      'random failure samples (no diagnosis)',
      result.rows[0]!.design.program,
      'held-out (2)',
      '40',
      '4 distinct of 5',
      '0.10',
      '0.10',
      '5.0',
    ]);
    expect(f.rows[2]![f.columns.indexOf('τ-b ctx recall')]).toBe('0.30');
    expect(f.rows.map((r) => r[f.columns.indexOf('ceiling τ-b ctx recall')])).toEqual(['–', '0.75', '0.75']);
    expect(f.rows.map((r) => r[f.columns.indexOf('decisions confirmed / contradicted / unclear')])).toEqual([
      '–',
      '3 / 1 / 4',
      '3 / 1 / 4',
    ]);
    expect(result.rows.map((r) => r.design.fidelity?.contextRecall.kendallTauB)).toEqual([0.1, 0.2, 0.3]);
    expect(result.notes.join(' ')).toMatch(/Fidelity: every candidate/);
  });

  it('fidelityTable is null when no row has fidelity', () => {
    const cell = { best: { id: 'i1-x', valFitness: 0.5 }, run: 'r', accepted: 1, proposals: 1, bestSource: 's' } as CellResult;
    expect(fidelityTable('t', [{ label: 'a', design: cellRef(cell) }])).toBeNull();
  });
});

describe('--exclude-dev', () => {
  it('leaves the development histories out of every experiment the context serves', async () => {
    const out = mkdtempSync(join(tmpdir(), 'memsteer-bench-dev-'));
    dirs.push(out);
    const preloaded = new Map([['locomo' as const, ['conv-30', 'conv-41', 'conv-26', 'conv-43'].map(history)]]);
    const make = (excludeDev: boolean) =>
      new BenchContext(
        BenchConfigSchema.parse({ out, datasets: [{ id: 'locomo', source: 'locomo:/x.json' }], excludeDev }),
        openWorkspace(out),
        () => {},
        preloaded,
      );
    const kept = make(true);
    const all = make(false);
    try {
      expect((await kept.histories('locomo')).map((h) => h.id)).toEqual(['conv-41', 'conv-43']);
      expect((await all.histories('locomo')).map((h) => h.id)).toEqual(['conv-26', 'conv-30', 'conv-41', 'conv-43']);
    } finally {
      await kept.close();
      await all.close();
    }
    const readme = readmeMarkdown([], BenchConfigSchema.parse({ out, datasets: [{ id: 'locomo', source: 'x' }], excludeDev: true }), 1);
    expect(readme).toMatch(/ran with --exclude-dev/);
  });

  it('the CLI flags reach the config', () => {
    const cfg = benchConfigFromFlags({ dataset: 'rhelm', data: 'data/default', out: '/tmp/x', excludeDev: true, fidelity: true });
    expect(cfg.excludeDev).toBe(true);
    expect(cfg.fidelity).toBe(true);
    const off = benchConfigFromFlags({ dataset: 'rhelm', data: 'data/default', out: '/tmp/x' });
    expect(off.excludeDev).toBe(false);
    expect(off.fidelity).toBe(false);
  });
});
