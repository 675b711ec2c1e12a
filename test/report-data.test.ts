/**
 * The report's data and HTML on a fixture archive with known numbers: trajectory, best-so-far, failure bars,
 * revisions and their diffs, per-category scores (validation and official test), cost by role, escaping of archive
 * text, and the CLI command writing the file atomically.
 */
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../src/archive/index.ts';
import { captureIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';
import {
  OFFICIAL_TRACES_DIR,
  buildReportData,
  escapeHtml,
  jsonForScript,
  renderReport,
  writeReport,
  type ReportData,
} from '../src/report/index.ts';
import { HOSTILE, writeReportFixture, type ReportFixture } from './report-fixture.ts';

let fx: ReportFixture;
let data: ReportData;
let html: string;
const NOW = () => new Date('2026-02-02T00:00:00Z');

beforeAll(async () => {
  fx = writeReportFixture('report-data');
  data = buildReportData(openArchive(fx.dir), { now: NOW });
  html = await renderReport(fx.dir, { now: NOW });
});

/** The JSON block, parsed as the page's script parses it. */
function embedded(page: string): ReportData {
  const m = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(page);
  if (!m) throw new Error('no report-data block');
  return JSON.parse(m[1]!) as ReportData;
}

describe('buildReportData', () => {
  it('summarises the run: seed, best, proposals by outcome', () => {
    expect(data.summary).toEqual({
      seed: { id: fx.ids.seed, score: 0.5 },
      best: { id: fx.ids.fused, score: 0.875 },
      programs: 6,
      proposals: 5,
      accepted: 2,
      rejected: 2,
      invalid: 1,
      failed: 0,
      lastIteration: 4,
    });
    expect(data.run.stopped?.reason).toBe('reached 4 iterations');
    expect(data.generatedAt).toBe('2026-02-02T00:00:00.000Z');
  });

  it('keeps every program with its status and score, and the best-so-far line steps only on acceptance', () => {
    const byId = Object.fromEntries(data.programs.map((p) => [p.id, p]));
    expect(byId[fx.ids.wider]).toMatchObject({ status: 'accepted', score: 0.75, delta: 0.25, parent: fx.ids.seed });
    expect(byId[fx.ids.narrow]).toMatchObject({ status: 'rejected', score: 0.25, delta: -0.5 });
    expect(byId[fx.ids.invalid]).toMatchObject({ status: 'invalid', score: null, failure: 'compile: line 3: <b>Type error</b> & more' });
    expect(data.programs.filter((p) => p.best).map((p) => p.id)).toEqual([fx.ids.fused]);
    expect(data.bestSoFar.map((b) => [b.iteration, b.score])).toEqual([
      [0, 0.5],
      [1, 0.75],
      [2, 0.75],
      [3, 0.875],
      [4, 0.875],
    ]);
  });

  it('shows, per iteration, the diagnosis of the program the search stood on', () => {
    expect(data.failures.categories).toEqual(['storage', 'retrieval', 'answering', 'error', 'unattributed', 'pass']);
    expect(data.failures.bars.map((b) => [b.iteration, b.program, b.counts?.retrieval, b.counts?.storage])).toEqual([
      [0, fx.ids.seed, 30, 10],
      [1, fx.ids.wider, 20, 10],
      [2, fx.ids.wider, 20, 10],
      [3, fx.ids.fused, 12, 8],
      [4, fx.ids.fused, 12, 8],
    ]);
  });

  it('lists each accepted revision with its diff against the parent, rationale and applied edits', () => {
    expect(data.revisions.map((r) => [r.id, r.parent, r.scoreBefore, r.scoreAfter])).toEqual([
      [fx.ids.wider, fx.ids.seed, 0.5, 0.75],
      [fx.ids.fused, fx.ids.wider, 0.75, 0.875],
    ]);
    const [wider, fused] = data.revisions;
    expect(wider!.diff).toContain('\n-const TOP_K = 10;\n+const TOP_K = 20;\n');
    expect(wider!.diff!.startsWith(`--- ${fx.ids.seed}\n+++ ${fx.ids.wider}\n@@`)).toBe(true);
    expect(wider!.rationale).toBe(`widen TOP_K ${HOSTILE}`);
    expect(wider!.applied).toEqual([{ op: 'set-constant', summary: 'set TOP_K = 20' }]);
    expect(fused!.diff).toContain('+const SESSION_WEIGHT = 0.6;');
    expect(fused!.diff).not.toContain('-const TOP_K');
  });

  it('scores seed and best per question category on validation traces and on the official test', () => {
    const entry = (split: string, role: string) => data.scores.entries.find((e) => e.split === split && e.role === role)!;
    expect(data.scores.metric).toBe('contextRecall');
    expect(entry('val', 'seed').perCategory['single-hop']).toMatchObject({ n: 2, contextRecall: 0.5, recallAt10: 0.5, accuracy: 0.5 });
    expect(entry('val', 'best').program).toBe(fx.ids.fused);
    expect(entry('val', 'best').perCategory.temporal).toMatchObject({ n: 2, contextRecall: 0.75, accuracy: 0.5 });
    expect(entry('val', 'best').overall.contextRecall).toBeCloseTo(0.875, 10);
    expect(entry('test', 'seed').perCategory.fact!.contextRecall).toBe(0.5);
    expect(entry('test', 'best').perCategory.fact!.contextRecall).toBe(1);
    expect(entry('test', 'best').perCategory.temporal!.contextRecall).toBe(0);
    expect(entry('test', 'best').overall.n).toBe(3);
    expect(entry('test', 'best').source).toBe('traces');
  });

  it('falls back to the recorded official-test aggregates when a program has no official traces', () => {
    const other = writeReportFixture('report-note');
    rmSync(join(other.dir, OFFICIAL_TRACES_DIR, `${other.ids.fused}.jsonl`));
    const d = buildReportData(openArchive(other.dir));
    const best = d.scores.entries.find((e) => e.split === 'test' && e.role === 'best')!;
    expect(best).toMatchObject({ program: other.ids.fused, source: 'summary', perCategory: {} });
    expect(best.overall).toEqual({
      n: 3,
      accuracy: 0.5,
      f1: 0.5,
      recallAt10: 0.95,
      contextRecall: 0.9,
      locomoF1: null,
      marginalUtility: null,
    });
    expect(d.scores.entries.find((e) => e.split === 'test' && e.role === 'seed')!.source).toBe('traces');
  });

  it('splits tokens between proposer and answerer, and calls unpriced dollars unknown', () => {
    expect(data.cost.roles).toEqual([
      { role: 'proposer', model: 'gpt-test', promptTokens: 500, completionTokens: 100, dollars: null, ms: 2000 },
      {
        role: 'answerer (validation runs)',
        model: 'extractive-reader, judge f1-threshold',
        promptTokens: 40,
        completionTokens: 8,
        dollars: null,
        ms: 10000,
      },
    ]);
    expect(data.cost.total).toMatchObject({ promptTokens: 540, completionTokens: 108, dollars: null });
    expect(data.cost.perIteration.map((r) => [r.iteration, r.tokens])).toEqual([
      [0, 0],
      [1, 0],
      [2, 648],
      [3, 0],
      [4, 0],
    ]);
    expect(data.cost.notes.some((n) => /dollars are unknown/.test(n))).toBe(true);
  });
});

describe('renderReport', () => {
  it('is one self-contained page: the library, the data and the script inline, nothing fetched', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('Chart.js v4.6.1');
    expect(html).not.toContain('sourceMappingURL');
    expect(html).not.toMatch(/<script[^>]+src=|<link\b|<img\b[^>]*src="?https?:|@import|url\(http/i);
    expect(html).toContain(`default-src 'none'`);
    // Three script elements and no other closing tag: archive text cannot end one early.
    expect(html.match(/<\/script>/g)).toHaveLength(3);
  });

  it('escapes archive text in the markup and round-trips it through the JSON block', () => {
    expect(html).not.toContain('<img src=x');
    expect(html).toContain(escapeHtml(`widen TOP_K ${HOSTILE}`));
    expect(html).toContain('line 3: &lt;b&gt;Type error&lt;/b&gt; &amp; more');
    const back = embedded(html);
    expect(back.revisions[0]!.rationale).toBe(`widen TOP_K ${HOSTILE}`);
    expect(back.summary).toEqual(data.summary);
  });

  it('renders every program in the lineage tree under its parent, and one diff block per accepted revision', () => {
    for (const id of Object.values(fx.ids)) expect(html).toContain(`data-program="${id}"`);
    const tree = /<div class="tree" id="lineage-tree">([\s\S]*?)<\/div>\n<\/section>/.exec(html)![1]!;
    // The invalid proposal sits inside the accepted parent's list item, after the parent's node.
    expect(tree.indexOf(`data-program="${fx.ids.invalid}"`)).toBeGreaterThan(tree.indexOf(`data-program="${fx.ids.wider}"`));
    expect(html.match(/<article class="revision"/g)).toHaveLength(2);
    expect(html.match(/<pre class="diff">/g)).toHaveLength(2);
    expect(html).toContain('<span class="d-del">-const TOP_K = 10;</span><span class="d-add">+const TOP_K = 20;</span>');
    expect(html).toContain('id="chart-scores-test"');
  });
});

describe('jsonForScript', () => {
  it('leaves no "<" in the output and parses back to the same value', () => {
    const value = { a: '</script><!-- x', b: 'line\u2028sep' };
    const out = jsonForScript(value);
    expect(out).not.toContain('<');
    expect(out).not.toContain('\u2028');
    expect(JSON.parse(out)).toEqual(value);
  });
});

describe('memsteer report', () => {
  it('writes the page atomically where --out says and reports its size', async () => {
    const out = join(dirname(fx.dir), 'site', 'report.html');
    const io = captureIO();
    expect(await main(['node', 'memsteer', 'report', fx.dir, '--out', out], io)).toBe(0);
    expect(io.stdout).toMatch(/^report: .*report\.html \(\d+ KiB\)/);
    expect(readFileSync(out, 'utf8')).toContain(`data-program="${fx.ids.fused}"`);
    expect(readdirSync(dirname(out))).toEqual(['report.html']);
    const r = await writeReport(fx.dir, out);
    expect(r.bytes).toBe(statSync(out).size);
  });

  it('defaults to <run>/report.html and fails with a one-line error on a directory that is not a run', async () => {
    const io = captureIO();
    expect(await main(['node', 'memsteer', 'report', fx.dir], io)).toBe(0);
    expect(existsSync(join(fx.dir, 'report.html'))).toBe(true);
    const bad = captureIO();
    expect(await main(['node', 'memsteer', 'report', dirname(fx.dir)], bad)).toBe(1);
    expect(bad.stderr).toMatch(/^memsteer: E_ARCHIVE_MISSING: .*no manifest\.json/);
  });
});
