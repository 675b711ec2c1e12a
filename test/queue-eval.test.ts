/**
 * `memsteer eval --queue` with a real redis-server and two `memsteer worker` processes: the same summary and traces
 * as a local run, also when one worker is killed with SIGKILL in the middle of a job (its job is recovered as
 * stalled and run by the other worker).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';
import { EvalReportSchema } from '../src/cli/commands/eval.ts';
import { BIN, REPO_ROOT, SEED_PATH } from './fixtures/optimize/default-run.ts';
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';
import { redisAvailable, startRedis, type TestRedis } from './helpers/redis-server.ts';

const LIMIT = '24';
// Short, so the killed worker's job is recovered quickly; long enough that a loaded machine does not lose live locks.
const LOCK_MS = '3000';

interface Worker {
  child: ChildProcess;
  log: () => string;
  exited: Promise<void>;
}

function startWorker(url: string): Worker {
  const child = spawn(process.execPath, [BIN, 'worker', '--queue', url, '--lock-ms', LOCK_MS], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { child, log: () => log, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const startedJobs = (log: string) => [...log.matchAll(/job (\S+) started/g)].map((m) => m[1]!);

async function evalRun(dir: string, name: string, extra: string[]) {
  const traces = join(dir, `${name}.jsonl`);
  const io = captureIO();
  const code = await main(
    [
      'node',
      'memsteer',
      'eval',
      '--history',
      DEFAULT_SOURCE,
      '--design',
      SEED_PATH,
      '--limit',
      LIMIT,
      '--json',
      '--traces',
      traces,
      ...extra,
    ],
    io,
  );
  expect(code, io.stderr).toBe(0);
  const report = EvalReportSchema.parse(JSON.parse(io.stdout));
  // Mean times are wall-clock; every score is the same wherever a group ran.
  const { meanTimeMs: _m, ...summary } = report.summary;
  // Everything but wall-clock times is the same wherever a group ran.
  const lines = readFileSync(traces, 'utf8')
    .trim()
    .split('\n')
    .map((l) => {
      const { timeMs: _t, ...rest } = JSON.parse(l) as Record<string, unknown>;
      return rest;
    });
  return { report, summary, lines };
}

describe.skipIf(!redisAvailable())('eval --queue with two worker processes', () => {
  let redis: TestRedis;
  let dir: string;
  const workers: Worker[] = [];
  let local: Awaited<ReturnType<typeof evalRun>>;

  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), 'memsteer-queue-eval-'));
    workers.push(startWorker(redis.url), startWorker(redis.url));
    local = await evalRun(dir, 'local', ['--jobs', '2']);
    for (let i = 0; i < 400 && !workers.every((w) => w.log().includes('sandbox process')); i++) await sleep(50);
  }, 120_000);

  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => Promise.race([w.exited, sleep(10_000)])));
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('prints the same summary and writes the same traces as the local run', async () => {
    const queued = await evalRun(dir, 'queued', ['--queue', redis.url]);
    expect(local.report.summary.n).toBe(Number(LIMIT));
    expect(queued.summary).toEqual(local.summary);
    expect(queued.report.program).toBe(local.report.program);
    expect(queued.lines).toEqual(local.lines);
    expect(queued.report.stats).toMatchObject({ groups: local.report.stats.groups, crashes: 0, failedGroups: 0 });
    // Both workers took groups.
    for (const w of workers) expect(startedJobs(w.log()).length, w.log()).toBeGreaterThan(0);
  }, 120_000);

  it('SIGKILL of one worker mid-job: the job is recovered and the run completes with identical results', async () => {
    const [victim, survivor] = workers as [Worker, Worker];
    const before = startedJobs(victim.log()).length;
    const run = evalRun(dir, 'killed', ['--queue', redis.url]);
    for (let i = 0; i < 1200 && startedJobs(victim.log()).length === before; i++) await sleep(25);
    const lost = startedJobs(victim.log()).at(-1)!;
    expect(startedJobs(victim.log()).length).toBeGreaterThan(before);
    victim.child.kill('SIGKILL');
    const queued = await run;
    expect(queued.summary).toEqual(local.summary);
    expect(queued.lines).toEqual(local.lines);
    expect(queued.report.stats).toMatchObject({ crashes: 0, failedGroups: 0 });
    // The job the killed worker held was run again by the other one.
    expect(startedJobs(survivor.log())).toContain(lost);
  }, 120_000);
});
