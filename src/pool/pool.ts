import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MemsteerError } from '../errors.ts';

/*
 * Why our own pool and not tinypool 2.2 (tried first, `runtime: 'child_process'`):
 * - A child that dies while idle (killed from outside, or aborted after its task settled) makes tinypool raise
 *   "Worker exited unexpectedly" as an *uncaught* exception in the host, i.e. the host dies with the child
 *   (reproduced here: SIGKILL an idle child, then run tasks; the lead measured ERR_IPC_CHANNEL_CLOSED on abort,
 *   the same failure class). Untrusted designs must never be able to take the host down.
 * - Its rejection carries no exit code, signal or stderr, which is the failure reason a trace must record.
 * - It cannot route a task to the process that already holds that task's history and warm indexes.
 * Worker threads are not an option at all: a Map/Set/object-key growth bomb aborts the whole Node process
 * with V8's fatal OOM even under isolated-vm's memoryLimit.
 */

/** Why a pool task failed without the handler itself throwing. */
export type PoolFailureKind = 'crash' | 'timeout' | 'closed' | 'task';

/**
 * A pool task that did not produce a value. `crash`: the child process died (exit code, signal and the tail
 * of its stderr recorded); `timeout`: it ran past its deadline and its process was killed; `closed`: the pool
 * was closed first; `task`: the handler threw (its message and name are kept).
 */
export class PoolTaskError extends MemsteerError {
  readonly kind: PoolFailureKind;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stderrTail: string;
  readonly remoteName: string | undefined;

  constructor(
    kind: PoolFailureKind,
    message: string,
    details: { exitCode?: number | null; signal?: string | null; stderrTail?: string; remoteName?: string } = {},
  ) {
    super(`E_POOL_${kind.toUpperCase()}`, message);
    this.name = 'PoolTaskError';
    this.kind = kind;
    this.exitCode = details.exitCode ?? null;
    this.signal = details.signal ?? null;
    this.stderrTail = details.stderrTail ?? '';
    this.remoteName = details.remoteName;
  }
}

/** A piece of data a task reads by key in the child; sent at most once per (child process, key). */
export interface PoolBlob {
  key: string;
  /** Called only when the chosen child does not hold the key yet. */
  data: () => unknown;
}

export interface PoolTask {
  /** Name of a handler exported by the pool's module. */
  handler: string;
  payload: unknown;
  /** Shared inputs (e.g. a history's records by content hash); tasks go preferably to a child that holds them. */
  blobs?: PoolBlob[];
  /** Overrides the pool's task timeout. */
  timeoutMs?: number;
}

/** What a handler sees besides its payload (inside the child process). */
export interface TaskContext {
  /** A blob sent with this or an earlier task to this process. Throws if absent. */
  blob<T = unknown>(key: string): T;
  /** Per-process state kept across tasks (warm caches). */
  readonly cache: Map<string, unknown>;
  /** Calls one of the pool's `hostCalls` in the host process (e.g. the LLM client, which cannot cross IPC). */
  callHost<T = unknown>(name: string, args: unknown): Promise<T>;
}

/** A child-side task handler. Module-level state of the handler module stays warm across tasks. */
// biome-ignore lint/suspicious/noExplicitAny: a handler module types its own payload; the pool only structured-clones it.
export type TaskHandler = (payload: any, ctx: TaskContext) => unknown;

export interface PoolOptions {
  /** Module the children import (path or file URL); it must export `handlers: Record<string, TaskHandler>`. */
  module: string | URL;
  /** Child processes (default `os.availableParallelism()`). */
  size?: number;
  /** Per-task deadline in ms (default 10 minutes); past it the child is killed and replaced. */
  taskTimeoutMs?: number;
  /** Extra Node flags for the children (e.g. `--max-old-space-size=512`). */
  execArgv?: string[];
  /** Bytes of a child's stderr kept for crash reports (default 4096). */
  stderrTailBytes?: number;
  /** Distinct blobs a child keeps before the oldest is dropped (default 16). */
  maxBlobsPerChild?: number;
  /**
   * Functions children may call in the host through `ctx.callHost` (things that hold sockets, caches and
   * ledgers: the LLM client, a remote embedder). Arguments and results must be structured-cloneable.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each host call types its own arguments; the pool only structured-clones them.
  hostCalls?: Record<string, (args: any) => Promise<unknown> | unknown>;
  /** Receives each child's stderr and stdout text (default: discarded after the tail is kept). */
  onOutput?: (pid: number, stream: 'stdout' | 'stderr', text: string) => void;
}

export interface PoolStats {
  size: number;
  spawned: number;
  crashed: number;
  timedOut: number;
  completed: number;
  failed: number;
  blobsSent: number;
  queued: number;
  busy: number;
}

/** N child processes running named handlers; a dead child fails only its own task and is replaced. */
export interface ProcessPool {
  readonly size: number;
  run<T = unknown>(task: PoolTask): Promise<T>;
  stats(): PoolStats;
  /** Pids of the live children (tests kill one to check containment). */
  pids(): number[];
  /** Rejects queued tasks with `closed`, kills every child and waits for them to exit. */
  close(): Promise<void>;
}

/** Messages between host and child. */
export type HostMessage =
  | { type: 'blob'; key: string; data: unknown }
  | { type: 'drop'; key: string }
  | { type: 'task'; id: number; handler: string; payload: unknown }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; message: string };
export type ChildMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; message: string; name: string; stack?: string }
  | { type: 'fatal'; message: string }
  | { type: 'call'; id: number; name: string; args: unknown };

interface Pending {
  id: number;
  task: PoolTask;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

interface Worker {
  child: ChildProcess;
  pid: number;
  ready: boolean;
  current: Pending | null;
  timer: NodeJS.Timeout | null;
  blobs: string[]; // keys held, oldest first
  stderrTail: string;
  exited: boolean;
  timedOut: boolean;
  exitPromise: Promise<void>;
}

const CHILD_ENTRY = fileURLToPath(new URL('./pool-worker.ts', import.meta.url));

/** The tsx loader as an absolute URL, so a child started from any cwd can import our `.ts` modules. */
function tsxLoaderUrl(): string {
  const require = createRequire(import.meta.url);
  return pathToFileURL(require.resolve('tsx')).href;
}

const MAX_STARTUP_FAILURES = 3;

/** Starts a pool of child processes. Call `close()` when done, or the children keep the host alive. */
export function createPool(options: PoolOptions): ProcessPool {
  const size = Math.max(1, options.size ?? availableParallelism());
  const timeoutMs = options.taskTimeoutMs ?? 10 * 60_000;
  const tailBytes = options.stderrTailBytes ?? 4096;
  const maxBlobs = Math.max(1, options.maxBlobsPerChild ?? 16);
  const moduleUrl =
    options.module instanceof URL
      ? options.module.href
      : options.module.startsWith('file:')
        ? options.module
        : pathToFileURL(options.module).href;
  const execArgv = ['--import', tsxLoaderUrl(), ...(options.execArgv ?? [])];

  const workers = new Set<Worker>();
  const queue: Pending[] = [];
  let nextId = 1;
  let closing = false;
  let startupFailures = 0;
  let brokenReason: string | null = null;
  const counters = { spawned: 0, crashed: 0, timedOut: 0, completed: 0, failed: 0, blobsSent: 0 };

  function spawn(): void {
    const child = fork(CHILD_ENTRY, [moduleUrl], {
      execArgv,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    counters.spawned++;
    let onExit!: () => void;
    const w: Worker = {
      child,
      pid: child.pid ?? -1,
      ready: false,
      current: null,
      timer: null,
      blobs: [],
      stderrTail: '',
      exited: false,
      timedOut: false,
      exitPromise: new Promise<void>((r) => (onExit = r)),
    };
    workers.add(w);
    child.stderr?.setEncoding('utf8');
    child.stdout?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      w.stderrTail = (w.stderrTail + text).slice(-tailBytes);
      options.onOutput?.(w.pid, 'stderr', text);
    });
    child.stdout?.on('data', (text: string) => options.onOutput?.(w.pid, 'stdout', text));
    child.on('message', (msg: ChildMessage) => onMessage(w, msg));
    // 'error' fires when the process cannot be spawned or a message cannot be sent; 'exit' follows or has fired.
    child.on('error', (err) => {
      w.stderrTail = `${w.stderrTail}\n[pool] ${err.message}`.slice(-tailBytes);
      if (!w.exited && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => {
      w.exited = true;
      onExit();
      // Let the stderr pipe drain so the tail holds V8's last words (the OOM report comes last).
      setImmediate(() => onWorkerExit(w, code, signal));
    });
  }

  function onMessage(w: Worker, msg: ChildMessage): void {
    if (msg.type === 'ready') {
      w.ready = true;
      startupFailures = 0;
      pump();
      return;
    }
    if (msg.type === 'call') {
      void answerCall(w, msg.id, msg.name, msg.args);
      return;
    }
    if (msg.type === 'fatal') {
      w.stderrTail = `${w.stderrTail}\n${msg.message}`.slice(-tailBytes);
      return;
    }
    const p = w.current;
    if (!p || p.id !== msg.id) return;
    finish(w);
    if (msg.ok) {
      counters.completed++;
      p.resolve(msg.value);
    } else {
      counters.failed++;
      p.reject(new PoolTaskError('task', msg.message, { remoteName: msg.name }));
    }
    pump();
  }

  async function answerCall(w: Worker, id: number, name: string, args: unknown): Promise<void> {
    const fn = options.hostCalls?.[name];
    try {
      if (!fn) throw new Error(`the host offers no call named ${name}`);
      const value = await fn(args);
      send(w, { type: 'reply', id, ok: true, value });
    } catch (err) {
      send(w, { type: 'reply', id, ok: false, message: err instanceof Error ? err.message : String(err) });
    }
  }

  function finish(w: Worker): void {
    if (w.timer) clearTimeout(w.timer);
    w.timer = null;
    w.current = null;
  }

  function onWorkerExit(w: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    workers.delete(w);
    const p = w.current;
    finish(w);
    const tail = w.stderrTail.trim();
    if (p) {
      if (w.timedOut) {
        counters.timedOut++;
        p.reject(
          new PoolTaskError('timeout', `task ran past ${p.task.timeoutMs ?? timeoutMs} ms; its process was killed`, {
            exitCode: code,
            signal,
            stderrTail: tail,
          }),
        );
      } else {
        counters.crashed++;
        p.reject(new PoolTaskError('crash', describeExit(code, signal, tail), { exitCode: code, signal, stderrTail: tail }));
      }
    }
    if (closing) return;
    if (!w.ready) {
      startupFailures++;
      if (startupFailures >= MAX_STARTUP_FAILURES) {
        brokenReason = `pool children fail to start (${describeExit(code, signal, tail)})`;
        for (const q of queue.splice(0)) q.reject(new PoolTaskError('crash', brokenReason, { exitCode: code, signal, stderrTail: tail }));
        return;
      }
    }
    spawn();
    pump();
  }

  function send(w: Worker, msg: HostMessage): boolean {
    if (w.exited || !w.child.connected) return false;
    try {
      // The callback form keeps a send to a dying child from throwing ERR_IPC_CHANNEL_CLOSED into the host;
      // the child's 'exit' handler fails the task.
      w.child.send(msg, (err) => {
        if (err && !w.exited) w.child.kill('SIGKILL');
      });
      return true;
    } catch {
      return false;
    }
  }

  function pickTask(w: Worker): number {
    if (queue.length === 0) return -1;
    // Prefer a task whose blobs this child already holds (warm records and indexes), else the oldest task:
    // an idle process never waits for a warm one.
    for (let i = 0; i < queue.length; i++) {
      const blobs = queue[i]!.task.blobs;
      if (blobs?.length && blobs.every((b) => w.blobs.includes(b.key))) return i;
    }
    return 0;
  }

  function dispatch(w: Worker, p: Pending): void {
    w.current = p;
    const needed = new Set((p.task.blobs ?? []).map((b) => b.key));
    for (const b of p.task.blobs ?? []) {
      if (w.blobs.includes(b.key)) {
        w.blobs.splice(w.blobs.indexOf(b.key), 1);
        w.blobs.push(b.key); // most recently used last
        continue;
      }
      let data: unknown;
      try {
        data = b.data();
      } catch (err) {
        finish(w);
        p.reject(err);
        return;
      }
      send(w, { type: 'blob', key: b.key, data });
      w.blobs.push(b.key);
      counters.blobsSent++;
    }
    while (w.blobs.length > maxBlobs) {
      const victim = w.blobs.find((k) => !needed.has(k));
      if (victim === undefined) break;
      w.blobs.splice(w.blobs.indexOf(victim), 1);
      send(w, { type: 'drop', key: victim });
    }
    const limit = p.task.timeoutMs ?? timeoutMs;
    w.timer = setTimeout(() => {
      w.timedOut = true;
      w.child.kill('SIGKILL');
    }, limit);
    send(w, { type: 'task', id: p.id, handler: p.task.handler, payload: p.task.payload });
  }

  function pump(): void {
    if (closing) return;
    for (const w of workers) {
      if (queue.length === 0) return;
      if (!w.ready || w.current || w.exited) continue;
      const i = pickTask(w);
      const [p] = queue.splice(i, 1);
      if (p) dispatch(w, p);
    }
  }

  for (let i = 0; i < size; i++) spawn();

  return {
    size,
    run<T>(task: PoolTask): Promise<T> {
      if (closing) return Promise.reject(new PoolTaskError('closed', 'the pool is closed'));
      if (brokenReason) return Promise.reject(new PoolTaskError('crash', brokenReason));
      return new Promise<T>((resolve, reject) => {
        queue.push({ id: nextId++, task, resolve: resolve as (v: unknown) => void, reject });
        pump();
      });
    },
    stats(): PoolStats {
      let busy = 0;
      for (const w of workers) if (w.current) busy++;
      return { size, ...counters, queued: queue.length, busy };
    },
    pids(): number[] {
      return [...workers].filter((w) => !w.exited).map((w) => w.pid);
    },
    async close(): Promise<void> {
      if (closing) return;
      closing = true;
      for (const q of queue.splice(0)) q.reject(new PoolTaskError('closed', 'the pool was closed before this task ran'));
      const exits: Promise<void>[] = [];
      for (const w of workers) {
        const p = w.current;
        finish(w);
        p?.reject(new PoolTaskError('closed', 'the pool was closed while this task ran'));
        if (!w.exited) w.child.kill('SIGKILL');
        exits.push(w.exitPromise);
      }
      await Promise.all(exits);
      workers.clear();
    },
  };
}

/** One line for a dead child: how it ended and the most telling stderr line (V8's OOM report when there is one). */
export function describeExit(code: number | null, signal: string | null, stderrTail: string): string {
  const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
  const lines = stderrTail
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const telling =
    lines.find((l) => /out of memory|heap limit|OOM|allocation failed/i.test(l)) ??
    lines.find((l) => /error/i.test(l) && !/^\d+:\s*0x/.test(l)) ??
    lines.at(-1);
  return `sandbox process ${how}${telling ? `: ${telling.slice(0, 300)}` : ''}`;
}
