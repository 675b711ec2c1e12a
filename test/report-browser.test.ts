/**
 * The HTML report in a real headless Chromium (Debian's package, driven by playwright-core): a report of a real
 * offline optimization run on the embedded default history, and one of the fixture archive (hostile rationale,
 * official-test traces). The page must load from file:// with no console or page errors and no request leaving the
 * file, draw every chart, and show the lineage, the diffs and the failure categories.
 *
 * Needs /usr/bin/chromium (`apt-get install chromium`; .ci/run installs it). MEMSTEER_CHROMIUM points elsewhere.
 * Without a browser the file is skipped with a one-line notice, so `npm test` passes on a fresh machine; under
 * CI=true a missing browser fails, because CI installs one and a silent skip there would hide a broken install.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../src/archive/index.ts';
import { readTestScores } from '../src/export/test-scores.ts';
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';
import { loadHistories } from '../src/history/load.ts';
import { QAItemSchema } from '../src/history/record.ts';
import { runOptimize } from '../src/optimize/run-optimize.ts';
import { renderReport } from '../src/report/index.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { writeJsonl } from '../src/util/jsonl.ts';
import { tempDir } from './helpers/temp-dir.ts';
import { HOSTILE, writeReportFixture, type ReportFixture } from './report-fixture.ts';

const CHROMIUM = process.env.MEMSTEER_CHROMIUM ?? '/usr/bin/chromium';
/** Run the browser checks: a browser is here, or CI says there must be one (and the checks then fail loudly). */
const RUN = existsSync(CHROMIUM) || process.env.CI === 'true';
if (!RUN) console.warn(`report-browser: skipped, no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set MEMSTEER_CHROMIUM)`);
const describeBrowser = RUN ? describe : describe.skip;
const SEED = resolve(fileURLToPath(new URL('..', import.meta.url)), 'seeds', 'base-bm25.ts');
/** Supervision items per split: enough that this run accepts a proposal (one of three, measured). */
const LIMIT = 60;
const SCREENSHOT = join(tmpdir(), 'memsteer-report-browser.png');
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Opened {
  page: Page;
  /** Console errors and warnings, uncaught page errors, and any request that is not the file itself. */
  problems: string[];
}

interface CanvasState {
  id: string;
  width: number;
  height: number;
  /** Pixels with any opacity: a chart that drew something has thousands. */
  painted: number;
  hasChart: boolean;
  labels: string[];
  datasets: Array<{ label: string; points: number; sum: number }>;
}

/**
 * The page globals the checks read. The project compiles without the DOM library (it is a Node tool), so the few
 * browser shapes used inside `page.evaluate` are declared here and reached through `globalThis`.
 */
interface CanvasLike {
  id: string;
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}
interface ChartLike {
  data: { labels?: unknown[]; datasets: Array<{ label?: string; data: unknown[] }> };
}
interface PageGlobals {
  document: {
    querySelectorAll(selector: string): Iterable<unknown> & { length: number };
    querySelector(selector: string): { textContent: string | null } | null;
  };
  Chart: { getChart(canvas: CanvasLike): ChartLike | undefined };
  memsteerReport?: { ready: boolean };
  __xss?: number;
}

let work: string;
let runDir: string;
/** Training items the optimizer diagnosed (`limit` of the generated train split). */
let trainItems: number;
let fx: ReportFixture;
let context: BrowserContext;

beforeAll(async () => {
  if (!RUN) return;
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium) or set MEMSTEER_CHROMIUM`);
  work = tempDir('memsteer-report-browser-');
  const [history] = await loadHistories(DEFAULT_SOURCE);
  const generated = await generateSupervision(history!, { mode: 'offline', n: 120, val: 0.5, seed: 1 });
  const supervision = join(work, 'supervision.jsonl');
  writeJsonl(supervision, generated.items, QAItemSchema);
  trainItems = Math.min(LIMIT, generated.items.filter((q) => q.split === 'train').length);
  runDir = join(work, 'run');
  await runOptimize({
    out: runDir,
    config: { history: DEFAULT_SOURCE, supervision, seed: SEED, iterations: 3, offline: true, limit: LIMIT, testCategories: ['fact'] },
  });
  fx = writeReportFixture('report-browser');
  context = await chromium.launchPersistentContext(mkdtempSync(join(work, 'profile-')), {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  });
}, 240_000);

afterAll(async () => {
  await context?.close();
});

async function open(archiveDir: string, name: string): Promise<Opened> {
  const file = join(work, name);
  writeFileSync(file, await renderReport(archiveDir));
  const url = pathToFileURL(file).href;
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (r.url() !== url) problems.push(`request: ${r.url()}`);
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).memsteerReport?.ready === true, undefined, { timeout: 10_000 });
  return { page, problems };
}

function canvases(page: Page): Promise<CanvasState[]> {
  return page.evaluate(() => {
    const g = globalThis as unknown as PageGlobals;
    return ([...g.document.querySelectorAll('canvas')] as CanvasLike[]).map((c) => {
      const pixels = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let painted = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
      const chart = g.Chart.getChart(c);
      const value = (v: unknown) =>
        typeof v === 'number' ? v : v && typeof v === 'object' && 'y' in v ? Number((v as { y: number }).y) : 0;
      return {
        id: c.id,
        width: c.width,
        height: c.height,
        painted,
        hasChart: chart !== undefined,
        labels: (chart?.data.labels ?? []).map(String),
        datasets: (chart?.data.datasets ?? []).map((d) => ({
          label: d.label ?? '',
          points: d.data.filter((v) => v !== null).length,
          sum: d.data.reduce<number>((a, v) => a + value(v), 0),
        })),
      };
    });
  });
}

describeBrowser('report of a real offline run, in headless Chromium', () => {
  let opened: Opened;
  let charts: CanvasState[];

  beforeAll(async () => {
    opened = await open(runDir, 'run-report.html');
    charts = await canvases(opened.page);
    await opened.page.screenshot({ path: SCREENSHOT, fullPage: true });
  }, 60_000);

  it('loads with no console errors, no page errors and no request beyond the file', () => {
    expect(opened.problems).toEqual([]);
  });

  it('draws every chart: a Chart.js instance on a sized canvas with painted pixels', () => {
    // The official-test chart appears when the run recorded official-test scores (it tests on category 'fact').
    const state = openArchive(runDir).loadState();
    const tested = readTestScores(openArchive(runDir), state.seeds[0]!.id) !== null;
    const expected = ['chart-cost', 'chart-failures', 'chart-fitness', 'chart-scores-val', ...(tested ? ['chart-scores-test'] : [])];
    expect(charts.map((c) => c.id).sort()).toEqual(expected.sort());
    for (const c of charts) {
      expect(c.hasChart, c.id).toBe(true);
      expect(c.width, c.id).toBeGreaterThan(300);
      expect(c.height, c.id).toBeGreaterThan(150);
      expect(c.painted, c.id).toBeGreaterThan(2000);
    }
  });

  it('plots accepted and rejected candidates as separate series, plus the best-so-far line', () => {
    const state = openArchive(runDir).loadState();
    const fitness = charts.find((c) => c.id === 'chart-fitness')!;
    const series = Object.fromEntries(fitness.datasets.map((d) => [d.label, d.points]));
    expect(series.accepted).toBe(state.accepted.length);
    expect(series.rejected).toBe(state.programs.filter((p) => p.status === 'rejected').length);
    expect(series['best so far']).toBe(state.lastIteration + 1);
    expect(state.lastIteration).toBe(3);
  });

  it('shows every program in the lineage, a diff per accepted revision, and the failure categories', async () => {
    const archive = openArchive(runDir);
    const state = archive.loadState();
    const shown = await opened.page.$$eval('#lineage-tree [data-program]', (els) => els.map((e) => e.getAttribute('data-program')));
    expect(shown.sort()).toEqual(state.programs.map((p) => p.id).sort());
    const revisions = state.accepted.filter((p) => p.parent !== null).length;
    expect(await opened.page.locator('article.revision').count()).toBe(revisions);
    expect(await opened.page.locator('article.revision pre.diff').count()).toBe(revisions);
    const failures = charts.find((c) => c.id === 'chart-failures')!;
    expect(failures.labels).toEqual(['0', '1', '2', '3']);
    expect(failures.datasets.map((d) => d.label)).toEqual(['storage', 'retrieval', 'answering', 'error', 'unattributed', 'pass']);
    // Each bar is one diagnosis of all training questions; the seed's is the first.
    const seedDiagnosis = archive.diagnosis(state.seeds[0]!.id)!;
    expect(seedDiagnosis.total).toBe(trainItems);
    expect(failures.datasets.reduce((a, d) => a + d.sum, 0)).toBe(4 * trainItems);
    const retrieval = failures.datasets.find((d) => d.label === 'retrieval')!;
    expect(retrieval.sum).toBeGreaterThan(0);
  });
});

describeBrowser('report of the fixture archive, in headless Chromium', () => {
  let opened: Opened;

  beforeAll(async () => {
    opened = await open(fx.dir, 'fixture-report.html');
  }, 60_000);

  it('shows hostile archive text as text and runs none of it', async () => {
    expect(opened.problems).toEqual([]);
    const result = await opened.page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      return {
        xss: g.__xss ?? null,
        images: g.document.querySelectorAll('img').length,
        rationale: g.document.querySelector('.revision .rationale')?.textContent ?? '',
      };
    });
    expect(result).toEqual({ xss: null, images: 0, rationale: `widen TOP_K ${HOSTILE}` });
  });

  it('draws the official-test chart and both diffs', async () => {
    const charts = await canvases(opened.page);
    const test = charts.find((c) => c.id === 'chart-scores-test')!;
    expect(test.hasChart).toBe(true);
    expect(test.painted).toBeGreaterThan(2000);
    expect(test.labels).toEqual(['fact', 'temporal', 'all']);
    // Seed and best, in % of context recall: fact 50 → 100, temporal 0 → 0, all 33.3 → 66.7.
    expect(test.datasets.map((d) => Math.round(d.sum))).toEqual([83, 167]);
    expect(await opened.page.locator('pre.diff .d-add').count()).toBeGreaterThanOrEqual(3);
  });
});
