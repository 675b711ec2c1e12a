import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBench } from '../src/experiments/run-bench.ts';
import type { BenchEvent } from '../src/experiments/context.ts';
import { ExperimentResultSchema, type ExperimentResult } from '../src/experiments/schemas.ts';
import { ArtefactIndexSchema } from '../src/experiments/artefacts.ts';
import { DEFAULT_DATA_DIR } from '../src/history/default-source.ts';
import { main } from '../src/cli/main.ts';
import { captureIO } from '../src/cli/io.ts';
import { tempDir } from './helpers/temp-dir.ts';

const tmp = () => tempDir('memsteer-bench-');

function readResult(out: string, name: string): ExperimentResult {
  return ExperimentResultSchema.parse(JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')));
}

/** Markdown table rows (lines starting with `|`, without header and separator) under a `### title` heading. */
function tableRows(md: string, titleStart: string): string[][] {
  const lines = md.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`### ${titleStart}`));
  expect(at, `table "${titleStart}" in:\n${md}`).toBeGreaterThanOrEqual(0);
  const body: string[] = [];
  for (let i = at + 2; i < lines.length && lines[i]!.startsWith('|'); i++) body.push(lines[i]!);
  expect(body[1]).toMatch(/^\|( -{3}:? \|)+$/);
  return body.slice(2).map((l) => l.slice(2, -2).split(' | '));
}

// One persona of RHELM (the embedded default history), tiny settings: the whole pipeline, not the numbers.
const TINY = {
  iterations: 1,
  perHistory: 20,
  budgets: [10],
  ablationPersonas: 1,
  ablationPerHistory: 30,
  rhelmTestPerPersona: 15,
};

describe('memsteer bench on the embedded default history', () => {
  it('writes valid JSON and Markdown tables for main, supervision and feedback, and reuses its work on a rerun', async () => {
    const out = tmp();
    const events: BenchEvent[] = [];
    const config = {
      out,
      datasets: [{ id: 'rhelm' as const, source: `rhelm:${DEFAULT_DATA_DIR}` }],
      experiments: ['main' as const, 'supervision' as const, 'feedback' as const, 'transfer' as const],
      ...TINY,
    };
    const report = await runBench(config, (e) => events.push(e));
    expect(report.files.map((f) => f.slice(out.length + 1)).sort()).toEqual(
      [
        'README.md',
        'artefacts/README.md',
        'artefacts/index.json',
        'feedback.json',
        'feedback.md',
        'main.json',
        'main.md',
        'supervision.json',
        'supervision.md',
        'transfer.json',
        'transfer.md',
      ].sort(),
    );

    // main: three methods on the same 15 sampled official questions.
    const mainResult = readResult(out, 'main');
    if (mainResult.experiment !== 'main') throw new Error('wrong experiment');
    expect(mainResult.rows.map((r) => r.method)).toEqual(['base-bm25', 'generated', 'official-qa']);
    for (const r of mainResult.rows) {
      expect(r.test.n).toBe(15);
      expect(r.test.recallAt10).not.toBeNull();
      expect(Object.values(r.test.perCategory).reduce((n, c) => n + c.n, 0)).toBe(15);
    }
    const [base, gen, off] = mainResult.rows;
    expect(base!.design.run).toBeNull();
    expect(gen!.supervision.kind).toBe('generated');
    expect(gen!.supervision.train + gen!.supervision.val).toBe(20);
    // Official-QA trains on every official item of the persona (87), split by id hash.
    expect(off!.supervision.train + off!.supervision.val).toBe(87);
    expect(off!.supervision.val).toBeGreaterThan(15);
    expect(existsSync(join(out, gen!.design.run!, 'manifest.json'))).toBe(true);
    // Every optimized row's run has its artefacts: best design (the tested one), manifest, seed and best val scores.
    const artefacts = ArtefactIndexSchema.parse(JSON.parse(readFileSync(join(out, 'artefacts', 'index.json'), 'utf8')));
    for (const r of mainResult.rows.filter((x) => x.design.run)) {
      const a = artefacts.runs.find((x) => `work/runs/${x.run}` === r.design.run)!;
      expect(a.best.id).toBe(r.design.program);
      expect(a.best.valFitness).toBe(r.design.valFitness);
      expect(a.seedFrom).toBe('seeds/base-bm25.ts');
      expect(readdirSync(join(out, 'artefacts', a.run)).sort()).toEqual(['best.ts', 'manifest.json', 'run.json']);
    }
    expect(report.artefacts).toHaveLength(2 + 3 * artefacts.runs.length);
    expect(mainResult.notes.join(' ')).toMatch(/reference, not a fair comparison/);

    const mainMd = readFileSync(join(out, 'main.md'), 'utf8');
    const overall = tableRows(mainMd, 'RHELM: official test');
    expect(overall.map((r) => r[0])).toEqual(['Base-BM25', 'MemSteer (generated supervision)', 'Official-QA (reference)']);
    // Elena_Morales is no development persona: one held-out row per method, its R@10 the JSON value as a percentage.
    expect(base!.test.split.dev).toBeNull();
    expect(base!.test.split.heldout?.n).toBe(15);
    expect(overall[0]!.slice(4, 6)).toEqual(['held-out', '15']);
    expect(overall[0]![6]).toBe((base!.test.split.heldout!.recallAt10! * 100).toFixed(1));
    expect(mainMd).toContain('dev = Jonas_Richter, Justice_Arvind_Prakash_Mehra, held-out = the others');
    expect(overall[1]![1]).toBe(gen!.design.program);
    const perType = tableRows(mainMd, 'RHELM: F1 per question type');
    expect(perType).toHaveLength(3);

    // supervision: with / without checks and the 10-item budget on the same validation set.
    const sup = readResult(out, 'supervision');
    if (sup.experiment !== 'supervision') throw new Error('wrong experiment');
    expect(sup.rows.map((r) => r.variant)).toEqual([
      'with checks (all training items)',
      'without checks (all training items)',
      'budget 10',
    ]);
    const [checked, unchecked, budget] = sup.rows;
    expect(checked!.checks).toBe(true);
    expect(unchecked!.checks).toBe(false);
    expect(budget!.trainItems).toBe(10);
    expect(budget!.valItems).toBe(checked!.valItems);
    expect(tableRows(readFileSync(join(out, 'supervision.md'), 'utf8'), 'RHELM: official test of each arm')).toHaveLength(3);

    // feedback: three modes; stratified is the supervision ablation's "with checks" run (same supervision and settings).
    const fb = readResult(out, 'feedback');
    if (fb.experiment !== 'feedback') throw new Error('wrong experiment');
    expect(fb.rows.map((r) => r.mode)).toEqual(['random', 'diagnosis', 'stratified']);
    expect(fb.rows[2]!.design.run).toBe(checked!.design.run);
    expect(fb.rows[2]!.test).toEqual(checked!.test);

    // transfer needs two personas: written, with a note saying why it did not run.
    const tr = readResult(out, 'transfer');
    expect(tr.rows).toEqual([]);
    expect(tr.notes[0]).toMatch(/at least two personas/);

    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    for (const name of ['main', 'supervision', 'feedback', 'transfer']) expect(readme).toContain(`(${name}.md)`);
    expect(readme).toContain('### RHELM: official test');

    // The rerun reads every optimization back instead of searching again, and reports the same numbers.
    const again: BenchEvent[] = [];
    const second = await runBench(config, (e) => again.push(e));
    expect(again.filter((e) => e.type === 'search')).toEqual([]);
    expect(again.some((e) => e.type === 'step' && e.message.startsWith('reused'))).toBe(true);
    expect(second.results.find((r) => r.experiment === 'main')!.rows).toEqual(mainResult.rows);
    expect(events.some((e) => e.type === 'search')).toBe(true);
  }, 600_000);
});

/** Two small personas cut from the default history's conversations (no e-mails or documents), with the official QA they can answer. */
function twoPersonaRhelm(): string {
  const data = tmp();
  const root = join(data, 'rhelm');
  const src = join(DEFAULT_DATA_DIR, 'conversations', 'Elena_Morales');
  const files = readdirSync(src)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const qa = readFileSync(join(DEFAULT_DATA_DIR, 'QA_final', 'low_score_qa_Elena_Morales_all_validated.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean);
  mkdirSync(join(root, 'QA_final'), { recursive: true });
  const personas = { Persona_A: files.slice(0, 8), Persona_B: files.slice(8, 16) };
  for (const [persona, chosen] of Object.entries(personas)) {
    const dir = join(root, 'conversations', persona);
    mkdirSync(dir, { recursive: true });
    const dates = new Set<string>();
    for (const f of chosen) {
      writeFileSync(join(dir, f), readFileSync(join(src, f)));
      dates.add(f.replace(/^conversation_|\.json$/g, '').replace(/_/g, '-'));
    }
    const lines = qa.filter((l) => {
      const ev = (JSON.parse(l) as { supporting_evidence: string[] }).supporting_evidence;
      return ev.length > 0 && ev.every((e) => dates.has(e.split(':')[0]!));
    });
    expect(lines.length, `official QA answerable from ${persona}`).toBeGreaterThan(2);
    writeFileSync(join(root, 'QA_final', `low_score_qa_${persona}_all_validated.jsonl`), `${lines.join('\n')}\n`);
  }
  return data;
}

describe('memsteer bench transfer', () => {
  it('optimizes on the source persona, applies the design frozen to the target, continues there, and tabulates all three', async () => {
    const data = twoPersonaRhelm();
    const out = tmp();
    const io = captureIO();
    const code = await main(
      [
        'node',
        'memsteer',
        'bench',
        '--dataset',
        'rhelm',
        '--data',
        data,
        '--experiments',
        'transfer',
        '--iterations',
        '2',
        // The source run must beat its seed for the continued run to start from it: on 15 generated items (6 in
        // validation) its one proposal no longer did at rule-based@11, nor on 30 at rule-based@26, so it gets two.
        '--per-history',
        '30',
        '--transfer-sources',
        '1',
        '--out',
        out,
      ],
      io,
    );
    expect(io.stderr).toContain('── transfer');
    expect(code).toBe(0);
    expect(io.stdout).toContain('wrote 5 files');
    const tr = readResult(out, 'transfer');
    if (tr.experiment !== 'transfer') throw new Error('wrong experiment');
    expect(tr.sources).toEqual(['Persona_A']);
    expect(tr.targets).toEqual(['Persona_B']);
    expect(tr.rows.map((r) => `${r.persona}:${r.stage}`)).toEqual([
      'Persona_B:base-bm25',
      'Persona_B:frozen',
      'Persona_B:continued',
      'all targets:base-bm25',
      'all targets:frozen',
      'all targets:continued',
    ]);
    const [base, frozen, continued] = tr.rows;
    // Every stage is tested on the same target questions; frozen is the source run's best design.
    expect(frozen!.test.n).toBe(base!.test.n);
    expect(continued!.test.n).toBe(base!.test.n);
    expect(frozen!.design.run).toMatch(/rhelm-transfer-source/);
    expect(continued!.design.run).toMatch(/rhelm-transfer-continue-Persona_B/);
    expect(continued!.supervision.train + continued!.supervision.val).toBe(30);
    // The continued run's artefact names its seed: the source run's best design.
    const artefacts = ArtefactIndexSchema.parse(JSON.parse(readFileSync(join(out, 'artefacts', 'index.json'), 'utf8')));
    const cont = artefacts.runs.find((r) => `work/runs/${r.run}` === continued!.design.run)!;
    expect(cont.seedFrom).toBe(`../${frozen!.design.run!.replace('work/runs/', '')}/best.ts`);
    expect(readFileSync(join(out, 'artefacts', cont.run, 'best.ts'), 'utf8')).toContain('retrieve');
    // With one target, the pooled rows are that target's rows.
    expect(tr.rows[4]!.test).toEqual(frozen!.test);
    const md = readFileSync(join(out, 'transfer.md'), 'utf8');
    expect(tableRows(md, 'Target personas')).toHaveLength(6);
  }, 600_000);
});
