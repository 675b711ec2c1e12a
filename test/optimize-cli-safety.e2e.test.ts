/**
 * `memsteer optimize` end to end through the CLI: user mistakes are coded one-line errors (never "internal error",
 * exit 70) that leave no run folder behind, and two `optimize --resume` of one run started together cannot both
 * write it: one is refused with E_RUN_LOCKED naming the other's pid, and the run stays readable and resumable.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RUN_LOCK_FILE, openArchive } from '../src/archive/index.ts';
import { captureIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';
import { QAItemSchema } from '../src/history/record.ts';
import { runOptimize } from '../src/optimize/run-optimize.ts';
import { writeJsonl } from '../src/util/jsonl.ts';
import { BIN, REPO_ROOT, SEED_PATH, prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';

let run: DefaultRun;

beforeAll(async () => {
  run = await prepareDefaultRun('optimize-cli-safety', 60);
}, 120_000);

async function memsteer(...args: string[]) {
  const io = captureIO();
  const code = await main(['node', 'memsteer', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

interface Exit {
  code: number | null;
  pid: number;
  stdout: string;
  stderr: string;
}

/** The real bin in a child process (so two can race for one run). */
function memsteerProcess(args: string[]): Promise<Exit> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, pid: child.pid!, stdout, stderr }));
  });
}

/** Options every optimize here shares: small splits, and no official test (a category no item has). */
const QUICK = ['--limit', '20', '--test-categories', 'none', '--offline', '--jobs', '1'];

describe('user mistakes are coded errors', () => {
  it('a seed with a type error: E_SEED_COMPILE naming file, line and column, exit 1, no run folder', async () => {
    const seed = join(run.dir, 'broken-seed.ts');
    const source = readFileSync(SEED_PATH, 'utf8');
    const lines = source.split('\n');
    const line = lines.findIndex((l) => l.startsWith('const TOP_K = ')) + 1;
    expect(line).toBeGreaterThan(0);
    lines[line - 1] = "const TOP_K: number = 'fifty';";
    writeFileSync(seed, lines.join('\n'));
    const out = join(run.dir, 'broken-seed-run');
    const r = await memsteer(
      'optimize',
      '--history',
      run.source,
      '--supervision',
      run.supervisionPath,
      '--seed',
      seed,
      '--out',
      out,
      ...QUICK,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^memsteer: E_SEED_COMPILE: ${seed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}:7: TS2322 `));
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('a seed with a syntax error: E_SEED_COMPILE naming the line', async () => {
    const seed = join(run.dir, 'unparsable-seed.ts');
    writeFileSync(seed, `${readFileSync(SEED_PATH, 'utf8')}\nconst broken = {;\n`);
    const out = join(run.dir, 'unparsable-seed-run');
    const r = await memsteer(
      'optimize',
      '--history',
      run.source,
      '--supervision',
      run.supervisionPath,
      '--seed',
      seed,
      '--out',
      out,
      ...QUICK,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^memsteer: E_SEED_COMPILE: .*unparsable-seed\.ts:\d+:\d+: /);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('supervision without a val split: E_NO_SPLIT, exit 1, no run folder', async () => {
    const trainOnly = join(run.dir, 'train-only.jsonl');
    writeJsonl(
      trainOnly,
      run.items.filter((q) => q.split === 'train'),
      QAItemSchema,
    );
    const out = join(run.dir, 'no-split-run');
    const r = await memsteer('optimize', '--history', run.source, '--supervision', trainOnly, '--out', out, ...QUICK);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^memsteer: E_NO_SPLIT: .*train-only\.jsonl: needs items with split "train" and "val".*found \d+ train, 0 val/,
    );
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});

describe('two optimize --resume of one run started together', () => {
  let dir: string;
  let results: Exit[];

  beforeAll(async () => {
    dir = join(run.dir, 'shared-run');
    // A run stopped after its first of three iterations (as if killed), so a resume has real work to do.
    const stopped = runOptimize({
      out: dir,
      config: {
        history: run.source,
        supervision: run.supervisionPath,
        seed: SEED_PATH,
        iterations: 3,
        offline: true,
        limit: 20,
        jobs: 1,
        testCategories: ['none'],
      },
      llm: null,
      onEvent: (e) => {
        if (e.type === 'iteration') throw new Error('stopped after iteration 1');
      },
    });
    await expect(stopped).rejects.toThrow(/stopped after iteration 1/);
    expect(existsSync(join(dir, RUN_LOCK_FILE))).toBe(false);
    results = await Promise.all([
      memsteerProcess(['optimize', '--resume', dir, '--json']),
      memsteerProcess(['optimize', '--resume', dir, '--json']),
    ]);
  }, 240_000);

  it('refuses one with a coded one-line error naming the pid of the other', () => {
    const ok = results.filter((r) => r.code === 0);
    const refused = results.filter((r) => r.code !== 0);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.code).toBe(1);
    expect(refused[0]!.stderr.trim()).toMatch(new RegExp(`^memsteer: E_RUN_LOCKED: .* pid ${ok[0]!.pid} \\(optimize --resume, since `));
    expect(refused[0]!.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(ok[0]!.stdout)).toMatchObject({ stopReason: expect.stringMatching(/3 iterations/) });
    expect(existsSync(join(dir, RUN_LOCK_FILE))).toBe(false);
  });

  it('leaves the run readable: one story in the event log, and `archive` lists it', async () => {
    const archive = openArchive(dir);
    const state = archive.loadState();
    expect(state.warnings).toEqual([]);
    expect(state.iterationsDone).toBe(3);
    const seqs = archive.events().map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(archive.events().filter((e) => e.type === 'run-resumed')).toHaveLength(1);
    const listed = await memsteer('archive', dir, '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).programs).toHaveLength(state.programs.length);
  });

  it('resumes again afterwards (nothing left to do) and releases the lock', async () => {
    const again = await memsteer('optimize', '--resume', dir, '--json');
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).stopReason).toMatch(/3 iterations/);
    expect(existsSync(join(dir, RUN_LOCK_FILE))).toBe(false);
  }, 120_000);
});
