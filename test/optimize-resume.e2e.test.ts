/**
 * `memsteer optimize` killed with SIGKILL in the middle of an evaluation, then `--resume`d, ends with the same
 * programs (ids are iteration + content hash) and the same best score as an uninterrupted run with the same flags;
 * no accepted program is lost and finished evaluations are not paid for again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type ArchiveEvent, type SearchState } from '../src/archive/index.ts';
import type { OptimizeReport } from '../src/optimize/run-optimize.ts';
import { BIN, LIMIT, REPO_ROOT, prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';

const ITERATIONS = 6;
/** The iteration whose evaluation the kill interrupts. */
const KILL_AT = 3;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const started: ChildProcess[] = [];

function memsteer(args: string[]): { child: ChildProcess; done: Promise<Exit> } {
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
  return { child, done };
}

function readEvents(dir: string): ArchiveEvent[] {
  const path = join(dir, 'events.jsonl');
  if (!existsSync(path)) return [];
  // A line may be half-written while we read; only whole lines count.
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

/** Pids of the processes whose parent is `pid` (the sandbox pool's children), from /proc. */
function childPids(pid: number): number[] {
  const out: number[] = [];
  if (!existsSync('/proc')) return out;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Running (a zombie waiting to be reaped by whoever adopted it counts as gone). */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function cacheFiles(dir: string): Map<string, number> {
  const cache = join(dir, 'eval-cache');
  if (!existsSync(cache)) return new Map();
  return new Map(
    readdirSync(cache)
      .filter((f) => f.endsWith('.json'))
      .map((f) => [f, statSync(join(cache, f)).mtimeMs]),
  );
}

function report(exit: Exit): OptimizeReport {
  expect(exit.code, exit.stderr).toBe(0);
  return JSON.parse(exit.stdout) as OptimizeReport;
}

let run: DefaultRun;
let dir1: string;
let dir2: string;
let atKill: SearchState;
let cacheAtKill: Map<string, number>;
let killed: Exit;
let resumed: OptimizeReport;
let uninterrupted: OptimizeReport;
let leftoverChildren: number[] = [];
let poolAtKill = 0;

beforeAll(async () => {
  run = await prepareDefaultRun('optimize-resume');
  dir1 = join(run.dir, 'run1');
  dir2 = join(run.dir, 'run2');
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
    // The official-QA test after the search is not what this file is about; one small category keeps it quick.
    '--test-categories',
    'misleading',
    '--json',
    '--out',
    out,
  ];

  // The uninterrupted run with the same flags goes alongside; it shares nothing with the other one.
  const straight = memsteer(flags(dir2));

  // 1. Start a run and kill it as soon as a candidate of iteration KILL_AT is announced (its evaluation starts next).
  const first = memsteer(flags(dir1));
  let pool: number[] = [];
  for (;;) {
    const events = readEvents(dir1);
    // By the first proposal the sandbox pool is up (it evaluated the seed); note its processes.
    if (pool.length === 0 && events.some((e) => e.type === 'program-added' && e.iteration >= 1)) pool = childPids(first.child.pid!);
    if (events.some((e) => e.type === 'program-added' && e.iteration >= KILL_AT)) {
      first.child.kill('SIGKILL');
      break;
    }
    const exited = await Promise.race([first.done.then((x) => x), sleep(10).then(() => null)]);
    if (exited) throw new Error(`the run ended before iteration ${KILL_AT}: ${exited.stderr}`);
  }
  killed = await first.done;
  // The pool's children exit when their parent's IPC channel closes; wait for that, and end stragglers ourselves.
  for (let i = 0; i < 200 && pool.some(alive); i++) await sleep(50);
  leftoverChildren = pool.filter(alive);
  for (const pid of leftoverChildren) process.kill(pid, 'SIGKILL');
  poolAtKill = pool.length;
  atKill = openArchive(dir1).loadState();
  cacheAtKill = cacheFiles(dir1);

  // 2. Resume it.
  resumed = report(await memsteer(['optimize', '--resume', dir1, '--json']).done);
  uninterrupted = report(await straight.done);
}, 300_000);

afterAll(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

describe('optimize killed with SIGKILL and resumed', () => {
  it(`was killed mid-evaluation of iteration ${KILL_AT}`, () => {
    expect(killed.signal).toBe('SIGKILL');
    // The killed run's sandbox processes went away with it (seen through /proc where there is one).
    if (existsSync('/proc')) expect(poolAtKill).toBeGreaterThan(0);
    expect(leftoverChildren).toEqual([]);
    expect(atKill.stopped).toBeNull();
    expect(atKill.lastIteration).toBeGreaterThanOrEqual(KILL_AT);
    // The candidate announced last had not finished its evaluation.
    expect(atKill.pending.map((p) => p.iteration)).toEqual([atKill.lastIteration]);
    expect(atKill.iterationsDone).toBe(atKill.lastIteration - 1);
  });

  it('ends with the same programs, accepted programs and best score as the uninterrupted run', () => {
    const s1 = openArchive(dir1).loadState();
    const s2 = openArchive(dir2).loadState();
    expect(s1.accepted.map((p) => p.id)).toEqual(s2.accepted.map((p) => p.id));
    expect(s1.programs.map((p) => [p.id, p.status])).toEqual(s2.programs.map((p) => [p.id, p.status]));
    expect(s1.programs.filter((p) => p.kind !== 'seed')).toHaveLength(ITERATIONS);
    expect(s1.iterationsDone).toBe(ITERATIONS);
    expect(s1.best!.id).toBe(s2.best!.id);
    expect(s1.best!.scores!.value).toBe(s2.best!.scores!.value);
    expect(resumed.best.id).toBe(uninterrupted.best.id);
    expect(resumed.best.val.fitness).toBe(uninterrupted.best.val.fitness);
    expect(resumed.accepted).toBe(uninterrupted.accepted);
    expect(resumed.stopReason).toBe(uninterrupted.stopReason);
    expect(resumed.trajectory).toEqual(uninterrupted.trajectory);
    // The search did something worth resuming: the seed was improved on.
    expect(uninterrupted.accepted).toBeGreaterThanOrEqual(1);
  });

  it('loses no accepted program', () => {
    const final = new Map(
      openArchive(dir1)
        .loadState()
        .programs.map((p) => [p.id, p]),
    );
    expect(atKill.accepted.length).toBeGreaterThanOrEqual(1);
    for (const p of atKill.accepted) {
      expect(final.get(p.id)?.status).toBe('accepted');
      expect(final.get(p.id)?.scores).toEqual(p.scores);
    }
  });

  it('does not re-pay finished evaluations', () => {
    const events = openArchive(dir1).events();
    const resumedAt = events.findIndex((e) => e.type === 'run-resumed');
    expect(resumedAt).toBeGreaterThan(0);
    const resumeEvent = events[resumedAt] as Extract<ArchiveEvent, { type: 'run-resumed' }>;
    expect(resumeEvent.pending).toEqual(atKill.pending.map((p) => p.id));
    // Programs evaluated before the kill are not evaluated again after it; the interrupted one is, once.
    const evaluatedBefore = new Set(events.slice(0, resumedAt).flatMap((e) => (e.type === 'program-evaluated' ? [e.program] : [])));
    const evaluatedAfter = events.slice(resumedAt).flatMap((e) => (e.type === 'program-evaluated' ? [e.program] : []));
    expect(evaluatedBefore.size).toBeGreaterThanOrEqual(KILL_AT);
    for (const id of evaluatedAfter) expect(evaluatedBefore.has(id)).toBe(false);
    expect(new Set(evaluatedAfter).size).toBe(evaluatedAfter.length);
    expect(evaluatedAfter).toContain(atKill.pending[0]!.id);
    // Every evaluation cached before the kill (val and train splits) was read back, not run and written again.
    const after = cacheFiles(dir1);
    expect(cacheAtKill.size).toBeGreaterThanOrEqual(KILL_AT + 1);
    for (const [file, mtime] of cacheAtKill) expect(after.get(file), file).toBe(mtime);
    // And the resumed run made exactly the evaluations the uninterrupted one made, no more.
    expect([...after.keys()].sort()).toEqual([...cacheFiles(dir2).keys()].sort());
  });
});
