import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { MemsteerError } from '../errors.ts';
import { createFileExclusive } from './exclusive-write.ts';

/** The advisory lock file of a run folder: present while one process writes the run. */
export const RUN_LOCK_FILE = 'run.lock';

/** Who holds a run's lock (`<run>/run.lock`). */
export const RunLockHolderSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  startedAt: z.string(),
  /** What took it (`optimize`, `optimize --resume`, `compare`, `bench`). */
  command: z.string(),
  /** Tells this holder's file from a later one of the same pid, so release never removes someone else's lock. */
  token: z.string().min(1),
});
export type RunLockHolder = z.infer<typeof RunLockHolderSchema>;

/** A second writer was refused: another live process holds the run's lock. */
export class RunLockedError extends MemsteerError {
  readonly holder: RunLockHolder | null;
  constructor(message: string, file: string, holder: RunLockHolder | null) {
    super('E_RUN_LOCKED', message, { file });
    this.name = 'RunLockedError';
    this.holder = holder;
  }
}

/** A held lock. `release` is idempotent and removes the file only while it is still this holder's. */
export interface RunLock {
  readonly path: string;
  readonly holder: RunLockHolder;
  release(): void;
}

export interface RunLockOptions {
  command: string;
  /** Seams for tests: this process's identity, the clock and the liveness probe. */
  pid?: number;
  host?: string;
  now?: () => Date;
  isAlive?: (pid: number) => boolean;
}

/**
 * Takes the advisory lock of a run folder (creating the folder), or throws {@link RunLockedError} naming the holder.
 * A lock whose process is dead on this host is stale (a SIGKILLed run) and is taken over; a lock from another host
 * cannot be probed and is never taken over. Hand-written instead of proper-lockfile because that library judges
 * staleness by an mtime its holder must keep refreshing on a timer and records no pid to name.
 */
export function acquireRunLock(dir: string, options: RunLockOptions): RunLock {
  const root = resolve(dir);
  mkdirSync(root, { recursive: true });
  const path = join(root, RUN_LOCK_FILE);
  const isAlive = options.isAlive ?? processIsAlive;
  const me: RunLockHolder = {
    pid: options.pid ?? process.pid,
    host: options.host ?? hostname(),
    startedAt: (options.now?.() ?? new Date()).toISOString(),
    command: options.command,
    token: randomUUID(),
  };
  const stale = (h: RunLockHolder): boolean => h.host === me.host && !isAlive(h.pid);
  // A few rounds: a holder may release, or a stale lock be taken over by someone else, between our steps.
  for (let round = 0; round < 5; round++) {
    if (createFileExclusive(path, `${JSON.stringify(me)}\n`)) return heldLock(path, me);
    const holder = readHolder(path);
    if (holder === 'missing') continue;
    if (holder === 'unreadable')
      throw new RunLockedError(
        `${path} exists but is not a memsteer lock; if no memsteer process is writing ${root}, delete it and retry`,
        path,
        null,
      );
    if (!stale(holder)) throw lockedError(root, path, holder, me.host);
    takeOverStale(path, holder, me, stale);
  }
  const holder = readHolder(path);
  throw lockedError(root, path, typeof holder === 'string' ? null : holder, me.host);
}

/** The run's current lock holder, or null when it is not locked (readers use this to say a run is in progress). */
export function readRunLock(dir: string): RunLockHolder | null {
  const h = readHolder(join(resolve(dir), RUN_LOCK_FILE));
  return typeof h === 'string' ? null : h;
}

function heldLock(path: string, me: RunLockHolder): RunLock {
  let released = false;
  return {
    path,
    holder: me,
    release() {
      if (released) return;
      released = true;
      const h = readHolder(path);
      if (typeof h !== 'string' && h.token === me.token) rmSync(path, { force: true });
    },
  };
}

/**
 * Removes a stale lock so the caller can retry creating its own. Two processes may find the same stale lock; a
 * second exclusive file serialises them, and the lock is removed only if it is still the stale one that was read,
 * so a fresh lock taken meanwhile by the other is never deleted.
 */
function takeOverStale(path: string, holder: RunLockHolder, me: RunLockHolder, stale: (h: RunLockHolder) => boolean): void {
  const guard = `${path}.takeover`;
  if (!createFileExclusive(guard, `${JSON.stringify(me)}\n`)) {
    const g = readHolder(guard);
    if (typeof g !== 'string' && stale(g)) rmSync(guard, { force: true });
    return;
  }
  try {
    const again = readHolder(path);
    if (typeof again !== 'string' && again.token === holder.token) rmSync(path, { force: true });
  } finally {
    rmSync(guard, { force: true });
  }
}

function readHolder(path: string): RunLockHolder | 'missing' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw err;
  }
  try {
    const r = RunLockHolderSchema.safeParse(JSON.parse(text));
    return r.success ? r.data : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

function lockedError(root: string, path: string, h: RunLockHolder | null, host: string): RunLockedError {
  if (!h) return new RunLockedError(`${root} is being written by another process; retry when it has finished`, path, null);
  const where = h.host === host ? '' : ` on host ${h.host}`;
  const gone = h.host === host ? '' : `; if that process is gone, delete ${path}`;
  return new RunLockedError(
    `${root} is being written by pid ${h.pid}${where} (${h.command}, since ${h.startedAt}); wait for it to finish or stop it` +
      `${gone}. Reading the run (archive, report, export) works meanwhile`,
    path,
    h,
  );
}

/** Signal 0 probes a pid without touching it: ESRCH means no such process; EPERM means it exists (another user). */
function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
