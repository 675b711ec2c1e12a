/**
 * Reading an append-only log (generate's `<out>.progress.jsonl`, the archive's events) grows linearly with its size.
 * Writes synthetic generate journals of N, 2N and 4N bundle lines (each with three items, like the offline
 * generator's) and times ProgressStore.load() on each, in one run: the ratios should be ≈ 2 and ≈ 4. Until 991f77d
 * the reader re-measured the byte length of the whole prefix on every line, so doubling the journal quadrupled the
 * time (a 36 MB journal of all ten LoCoMo conversations took 173 s to load; now under 2 s).
 *
 *   npx tsx bench/journal-read.ts [--lines 5000]
 *
 * Not part of `npm test`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProgressStore } from '../src/supervision/progress-store.ts';
import { emptyStats } from '../src/supervision/summary.ts';
import { flag } from './args.ts';

const LINES = Number(flag('lines', '5000'));
const dir = mkdtempSync(join(tmpdir(), 'memsteer-journal-bench-'));

function item(k: number) {
  return {
    id: `h:gen-${k.toString(16).padStart(8, '0')}`,
    history: 'h',
    question: `When did Caroline talk about the support group number ${k}? — “quoted” café`,
    answer: '25 August 2023',
    answerType: 'date',
    category: 'temporal',
    evidence: [{ record: `D1:${k % 40}`, span: [0, 60], quote: 'I went to a LGBTQ support group yesterday and it was so powerful.' }],
    split: 'train',
    generator: 'rule-based@7',
    checks: { template: 'when', planChecks: 'pass', spansVerified: true },
    meta: { bundle: `b${k}`, seed: `D1:${k % 40}` },
  };
}

function journal(lines: number): string {
  const path = join(dir, `j-${lines}.jsonl`);
  const out: string[] = [];
  for (let b = 0; b < lines; b++) {
    const items = [0, 1, 2].map((j) => item(b * 3 + j));
    out.push(JSON.stringify({ bundle: `b${b}`, run: 'bench', status: 'done', types: ['temporal'], items, stats: emptyStats() }));
  }
  writeFileSync(path, `${out.join('\n')}\n`);
  return path;
}

try {
  const times: number[] = [];
  for (const lines of [LINES, 2 * LINES, 4 * LINES]) {
    const path = journal(lines);
    const t = performance.now();
    const loaded = new ProgressStore(path, 'bench').load();
    times.push(performance.now() - t);
    if (loaded.length !== lines) throw new Error(`read ${loaded.length} of ${lines} lines`);
    console.log(`${lines} lines: ${times.at(-1)!.toFixed(0)} ms`);
  }
  console.log(`ratio 2N/N ${(times[1]! / times[0]!).toFixed(2)}, 4N/N ${(times[2]! / times[0]!).toFixed(2)} (linear: 2, 4)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
