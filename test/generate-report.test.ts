import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';
import { CalibrationReportSchema } from '../src/supervision/calibration.ts';
import { GenerationSummarySchema } from '../src/supervision/summary.ts';
import { z } from 'zod';

const dir = mkdtempSync(join(tmpdir(), 'memsteer-generate-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MINI = `locomo:${join(import.meta.dirname, 'fixtures', 'history', 'locomo-mini.json')}`;

async function memsteer(...args: string[]) {
  const io = captureIO();
  const code = await main(['node', 'memsteer', ...args], io);
  return { code, ...io };
}

describe('generate --report', () => {
  it('prints and writes the calibration report, and records each history’s part in the summary', async () => {
    const out = join(dir, 'sup.jsonl');
    const r = await memsteer('generate', '--history', MINI, '--out', out, '--offline', '--report', '--json', '--n', '20', '--val', '0.5');
    expect(r.code, r.stderr).toBe(0);
    const printed = z.object({ summary: z.unknown(), calibration: CalibrationReportSchema }).parse(JSON.parse(r.stdout));
    const written = CalibrationReportSchema.parse(JSON.parse(readFileSync(`${out}.calibration.json`, 'utf8')));
    expect(written).toEqual(printed.calibration);
    const items = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { history: string; split: string; evidence: unknown[] });
    const report = printed.calibration;
    expect(report.all.generated.items).toBe(items.length);
    expect(report.dev).toBeNull(); // the fixture's conversations are no development histories
    expect(report.heldout!.histories.length).toBe(report.byHistory.length);
    expect(report.all.official!.items).toBeGreaterThan(0);
    expect(report.all.formDistance).not.toBeNull();
    // The seed design was run on the official questions (and the generated validation items when there are some).
    expect(report.all.seed).toMatchObject({ design: 'seeds/base-bm25.ts' });
    expect(report.all.seed!.officialScored).toBeGreaterThan(0);
    expect(report.all.seed!.generatedScored).toBe(items.filter((i) => i.split === 'val').length);
    // …and on every generated item for the whole set's figure.
    expect(report.all.seed!.generatedAllScored).toBe(items.filter((i) => i.evidence.length > 0).length);
    expect(report.all.seed!.gapAll).toBeCloseTo(report.all.seed!.generatedAll! - report.all.seed!.official!);
    const { gap, gapInterval } = report.all.seed!;
    expect(gapInterval!.lower).toBeLessThanOrEqual(gap!);
    expect(gapInterval!.upper).toBeGreaterThanOrEqual(gap!);
    const summaries = z.array(GenerationSummarySchema).parse(JSON.parse(readFileSync(`${out}.summary.json`, 'utf8')));
    for (const s of summaries) expect(s.calibration).toEqual(report.byHistory.find((p) => p.histories[0] === s.history));
  }, 120_000);

  it('prints the report as a table, development and held-out histories apart', async () => {
    const out = join(dir, 'table.jsonl');
    const r = await memsteer('generate', '--history', MINI, '--out', out, '--offline', '--report', '--n', '20', '--val', '0.5');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/calibration \(content words: stopword@3\.1\.5:eng\+nltk-core; seed: seeds\/base-bm25\.ts\)/);
    expect(r.stdout).toMatch(/held-out \(\d+\)\s*│ generated/);
    expect(r.stdout).toMatch(/│ difference │.*TVD \d\.\d\d/);
    // The difficulty gap with its bootstrap interval.
    expect(r.stdout).toMatch(/│ difference │.*-?\d+\.\d pts \[-?\d+\.\d, -?\d+\.\d\] \(whole set -?\d+\.\d pts\)/);
  }, 120_000);
});
