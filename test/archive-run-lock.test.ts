/**
 * The run lock: one writer per run folder. A live holder refuses a second writer with E_RUN_LOCKED naming its pid; a
 * holder that died on this host (a SIGKILLed run) is taken over; a holder on another host is never guessed dead.
 * And creating a run is exclusive: of two creators of one folder, exactly one gets it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUN_LOCK_FILE, acquireRunLock, createArchive, openArchive, readRunLock, type RunLockHolder } from '../src/archive/index.ts';
import { createFileExclusive } from '../src/archive/exclusive-write.ts';
import { captureIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memsteer-lock-'));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const writeHolder = (h: Partial<RunLockHolder>): void =>
  writeFileSync(
    join(dir, RUN_LOCK_FILE),
    JSON.stringify({ pid: 4242, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z', command: 'optimize', token: 'other', ...h }),
  );

/** The pid of a process that has exited (its pid is not reused within the test). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('acquireRunLock', () => {
  it('writes pid, host and start time, refuses a second writer naming the pid, and frees the folder on release', () => {
    const lock = acquireRunLock(dir, { command: 'optimize --resume' });
    const onDisk = JSON.parse(readFileSync(join(dir, RUN_LOCK_FILE), 'utf8'));
    expect(onDisk).toMatchObject({ pid: process.pid, host: hostname(), command: 'optimize --resume' });
    expect(Number.isNaN(Date.parse(onDisk.startedAt))).toBe(false);
    expect(readRunLock(dir)).toMatchObject({ pid: process.pid });

    let err: unknown;
    try {
      acquireRunLock(dir, { command: 'optimize --resume' });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'E_RUN_LOCKED', holder: { pid: process.pid } });
    expect((err as Error).message).toContain(`pid ${process.pid}`);
    expect((err as Error).message).toContain('optimize --resume');

    lock.release();
    expect(existsSync(join(dir, RUN_LOCK_FILE))).toBe(false);
    expect(readRunLock(dir)).toBeNull();
    acquireRunLock(dir, { command: 'bench' }).release();
  });

  it('takes over a lock whose process is dead on this host', () => {
    const pid = deadPid();
    writeHolder({ pid });
    const lock = acquireRunLock(dir, { command: 'optimize --resume' });
    expect(lock.holder.pid).toBe(process.pid);
    expect(readRunLock(dir)).toMatchObject({ pid: process.pid, token: lock.holder.token });
    expect(existsSync(join(dir, `${RUN_LOCK_FILE}.takeover`))).toBe(false);
    lock.release();
  });

  it('asks the liveness probe: a live holder refuses, a dead one is replaced', () => {
    writeHolder({ pid: 4242 });
    expect(() => acquireRunLock(dir, { command: 'compare', isAlive: () => true })).toThrow(/pid 4242 \(optimize, since 2026/);
    const probed: number[] = [];
    const lock = acquireRunLock(dir, { command: 'compare', isAlive: (pid) => (probed.push(pid), false) });
    expect(probed).toEqual([4242]);
    expect(lock.holder.command).toBe('compare');
    lock.release();
  });

  it('never takes over a lock held on another host, and says how to clear it', () => {
    writeHolder({ pid: deadPid(), host: 'elsewhere.example' });
    expect(() => acquireRunLock(dir, { command: 'optimize', isAlive: () => false })).toThrow(/on host elsewhere\.example.*delete/);
    expect(readRunLock(dir)).toMatchObject({ host: 'elsewhere.example' });
  });

  it('refuses a lock file it cannot read instead of guessing', () => {
    writeFileSync(join(dir, RUN_LOCK_FILE), 'not json');
    expect(() => acquireRunLock(dir, { command: 'optimize' })).toThrow(expect.objectContaining({ code: 'E_RUN_LOCKED' }));
  });

  it('release leaves a lock that is no longer its own', () => {
    const lock = acquireRunLock(dir, { command: 'optimize' });
    writeHolder({ pid: 4242, token: 'someone-else' });
    lock.release();
    expect(readRunLock(dir)).toMatchObject({ token: 'someone-else' });
  });
});

describe('creating a run', () => {
  it('creates a file exclusively: the second creator gets false and the first content stays', () => {
    const path = join(dir, 'x', 'manifest.json');
    expect(createFileExclusive(path, 'first')).toBe(true);
    expect(createFileExclusive(path, 'second')).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('first');
  });

  it('a locked run stays readable: `memsteer archive` lists it and names the writer', async () => {
    const run = join(dir, 'run');
    createArchive(run, { config: {}, seeds: [], models: {}, promptVersions: {}, rngSeed: 1 });
    const lock = acquireRunLock(run, { command: 'optimize --resume' });
    const io = captureIO();
    expect(await main(['node', 'memsteer', 'archive', run], io)).toBe(0);
    expect(io.stdout).toContain('0 programs');
    expect(io.stderr).toContain(`note: pid ${process.pid} (optimize --resume) is writing this run`);
    lock.release();
  });

  it('refuses a folder that already holds a run, leaving that run readable', () => {
    const input = { config: { n: 1 }, seeds: [], models: {}, promptVersions: {}, rngSeed: 1 };
    createArchive(join(dir, 'run'), input);
    expect(() => createArchive(join(dir, 'run'), { ...input, config: { n: 2 } })).toThrow(
      expect.objectContaining({ code: 'E_ARCHIVE_EXISTS' }),
    );
    expect(openArchive(join(dir, 'run')).manifest.config).toEqual({ n: 1 });
  });
});
