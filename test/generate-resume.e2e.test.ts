/**
 * `memsteer generate` is resumable and repairable: killed with SIGKILL three times (and left with a torn journal
 * line) and resumed, it writes exactly the items and splits of an uninterrupted run; a bundle journaled during an
 * endpoint outage is retried by the next run instead of counting as finished.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';
import { loadHistories } from '../src/history/load.ts';
import { QAItemSchema, type QAItem } from '../src/history/record.ts';
import { readJsonl } from '../src/util/jsonl.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { BundleProgressSchema, progressPath } from '../src/supervision/progress-store.ts';
import { BIN, REPO_ROOT } from './fixtures/optimize/default-run.ts';

const N = 150;
/** Far beyond a run's few seconds, well inside the test's timeout. */
const STUCK_MS = 40_000;
const dir = mkdtempSync(join(tmpdir(), 'memsteer-generate-resume-'));
const started: ChildProcess[] = [];
afterAll(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Journal lines written so far (whole lines only). */
function journalLines(out: string): number {
  const path = progressPath(out);
  if (!existsSync(path)) return 0;
  return readFileSync(path, 'utf8').split('\n').length - 1;
}

/**
 * Runs `memsteer generate` into `out`; with `killAfter`, SIGKILLs it as soon as the journal has grown by that many
 * lines (a kill between or during journal writes, whichever comes first).
 */
function generate(out: string, killAfter?: number): Promise<Exit> {
  const before = journalLines(out);
  const child = spawn(process.execPath, [BIN, 'generate', '--history', DEFAULT_SOURCE, '--out', out, '--offline', '--n', String(N)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer =
    killAfter === undefined
      ? undefined
      : setInterval(() => {
          if (journalLines(out) - before >= killAfter) child.kill('SIGKILL');
        }, 5);
  let exited = false;
  child.on('exit', () => (exited = true));
  return new Promise<Exit>((resolve, reject) => {
    // A run takes a few seconds. One CI run hung here once: fail with what was going on instead of the test's
    // timeout (whether the child had exited and only its stderr pipe stayed open, held by a process it started).
    const stuck = setTimeout(() => {
      const processes = execFileSync('ps', ['-eo', 'pid,ppid,etime,args'], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => /esbuild|memsteer|pool-worker/.test(l));
      if (timer) clearInterval(timer);
      child.kill('SIGKILL');
      reject(new Error(`generate did not finish in ${STUCK_MS} ms; exited: ${exited}; stderr: ${stderr}\n${processes.join('\n')}`));
    }, STUCK_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(stuck);
      if (timer) clearInterval(timer);
      resolve({ code, signal, stderr });
    });
  });
}

const splitsOf = (items: readonly QAItem[]) => Object.fromEntries(items.map((q) => [q.id, q.split]));

describe('generate: kill and resume', () => {
  it('three SIGKILLs and a torn journal line later, the items and splits equal an uninterrupted run', async () => {
    const [history] = await loadHistories(DEFAULT_SOURCE);
    const whole = await generateSupervision(history!, { mode: 'offline', n: N, val: 0.4, seed: 1 });
    expect(whole.items.length).toBe(N);

    const out = join(dir, 'killed.jsonl');
    for (const grow of [4, 9, 14]) {
      const killed = await generate(out, grow);
      // each run must really have been stopped part-way, or the test proves nothing
      expect(killed.signal).toBe('SIGKILL');
      expect(existsSync(out)).toBe(false);
    }
    const journaled = journalLines(out);
    expect(journaled).toBeGreaterThanOrEqual(27);
    // a kill in the middle of a journal write leaves a partial last line
    appendFileSync(progressPath(out), '{"bundle":"b0123abcd","run":"');

    const last = await generate(out);
    expect(last.stderr).toBe('');
    expect(last.code).toBe(0);
    const resumed = readJsonl(out, QAItemSchema);
    expect(resumed.map((q) => q.id)).toEqual(whole.items.map((q) => q.id));
    expect(splitsOf(resumed)).toEqual(splitsOf(whole.items));
    const summary = JSON.parse(readFileSync(`${out}.summary.json`, 'utf8')) as Array<{ resumedBundles: number }>;
    expect(summary[0]!.resumedBundles).toBe(journaled);
    // the torn line was cut off before the next append: every line of the journal is whole again
    const lines = readFileSync(progressPath(out), 'utf8').trimEnd().split('\n');
    for (const line of lines) expect(BundleProgressSchema.safeParse(JSON.parse(line)).success).toBe(true);
  }, 180_000);
});
