/**
 * `memsteer optimize --queue` killed with SIGKILL mid-run and resumed with `--resume … --queue` ends with the same
 * accepted programs as an uninterrupted local run; the resumed coordinator re-enqueues only what is missing (no
 * group is run twice by the workers).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type ArchiveEvent } from '../src/archive/index.ts';
import type { OptimizeReport } from '../src/optimize/run-optimize.ts';
import { BIN, REPO_ROOT, prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';
import { redisAvailable, startRedis, type TestRedis } from './helpers/redis-server.ts';

const ITERATIONS = 3;
const KILL_AT = 2;
const LIMIT = 30;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const started: ChildProcess[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function memsteer(args: string[]): { child: ChildProcess; done: Promise<Exit>; log: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Exit>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done, log: () => stderr };
}

function readEvents(dir: string): ArchiveEvent[] {
  const path = join(dir, 'events.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as ArchiveEvent];
      } catch {
        return [];
      }
    });
}

function report(exit: Exit): OptimizeReport {
  expect(exit.code, exit.stderr).toBe(0);
  return JSON.parse(exit.stdout) as OptimizeReport;
}

describe.skipIf(!redisAvailable())('optimize --queue killed with SIGKILL and resumed', () => {
  let redis: TestRedis;
  let run: DefaultRun;
  let killed: Exit;
  let resumed: OptimizeReport;
  let local: OptimizeReport;
  let workerLogs: Array<() => string> = [];
  let dirQueued: string;
  let dirLocal: string;

  beforeAll(async () => {
    redis = await startRedis();
    run = await prepareDefaultRun('queue-optimize');
    dirQueued = join(run.dir, 'queued');
    dirLocal = join(run.dir, 'local');
    const workers = [0, 1].map(() => memsteer(['worker', '--queue', redis.url]));
    workerLogs = workers.map((w) => w.log);
    const flags = (out: string) => [
      'optimize',
      '--history',
      run.source,
      '--supervision',
      run.supervisionPath,
      '--iterations',
      String(ITERATIONS),
      '--offline',
      '--limit',
      String(LIMIT),
      '--test-categories',
      'misleading',
      '--json',
      '--out',
      out,
    ];
    const straight = memsteer([...flags(dirLocal), '--jobs', '1']);
    const first = memsteer([...flags(dirQueued), '--queue', redis.url]);
    for (;;) {
      if (readEvents(dirQueued).some((e) => e.type === 'program-added' && e.iteration >= KILL_AT)) {
        first.child.kill('SIGKILL');
        break;
      }
      const exited = await Promise.race([first.done, sleep(10).then(() => null)]);
      if (exited) throw new Error(`the run ended before iteration ${KILL_AT}: ${exited.stderr}`);
    }
    killed = await first.done;
    resumed = report(await memsteer(['optimize', '--resume', dirQueued, '--queue', redis.url, '--json']).done);
    local = report(await straight.done);
  }, 300_000);

  afterAll(async () => {
    for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    await sleep(200);
    for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await redis?.stop();
  });

  it('ends with the same programs and accepted programs as the uninterrupted local run', () => {
    expect(killed.signal).toBe('SIGKILL');
    const q = openArchive(dirQueued).loadState();
    const l = openArchive(dirLocal).loadState();
    expect(q.accepted.map((p) => p.id)).toEqual(l.accepted.map((p) => p.id));
    expect(q.programs.map((p) => [p.id, p.status, p.scores?.value])).toEqual(l.programs.map((p) => [p.id, p.status, p.scores?.value]));
    expect(resumed.best.id).toBe(local.best.id);
    expect(resumed.best.val.fitness).toBe(local.best.val.fitness);
    expect(resumed.trajectory).toEqual(local.trajectory);
  });

  it('the workers ran every group once: the resumed coordinator re-enqueued only what was missing', () => {
    const jobs = workerLogs.flatMap((log) => [...log().matchAll(/job (\S+) started/g)].map((m) => m[1]!));
    expect(jobs.length).toBeGreaterThan(0);
    expect(new Set(jobs).size).toBe(jobs.length);
  });
});
