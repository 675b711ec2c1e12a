import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openArchive } from '../archive/index.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import { loadChartLibrary } from './chart-library.ts';
import { buildReportData, type ReportDataOptions } from './report-data.ts';
import { renderHtml, type PageAssets } from './render-html.ts';

/** Options of {@link renderReport} and {@link writeReport}. */
export type ReportOptions = ReportDataOptions;

function pageAssets(): PageAssets {
  const asset = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
  return { chartLibrary: loadChartLibrary(), script: asset('report-page.js'), css: asset('report.css') };
}

/**
 * Renders a run archive as one self-contained HTML page: fitness over iterations, the lineage tree, failure
 * categories per iteration, each accepted revision's diff and rationale, scores per question category and cost by
 * role. Charting library, script, style and data are all inlined; opening the file needs no network.
 */
export async function renderReport(archiveDir: string, options: ReportOptions = {}): Promise<string> {
  const archive = openArchive(resolve(archiveDir));
  return renderHtml(buildReportData(archive, options), pageAssets());
}

/** Renders the report and writes it atomically to `outPath`; returns the absolute path and the size in bytes. */
export async function writeReport(
  archiveDir: string,
  outPath: string,
  options: ReportOptions = {},
): Promise<{ path: string; bytes: number }> {
  const html = await renderReport(archiveDir, options);
  const path = resolve(outPath);
  writeFileAtomic(path, html);
  return { path, bytes: Buffer.byteLength(html) };
}
