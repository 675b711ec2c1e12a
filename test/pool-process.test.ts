import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createPool, describeExit, PoolTaskError, type ProcessPool } from '../src/pool/pool.ts';

const JOBS = fileURLToPath(new URL('./fixtures/pool/jobs.ts', import.meta.url));

let pool: ProcessPool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

async function failure(p: Promise<unknown>): Promise<PoolTaskError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(PoolTaskError);
    return err as PoolTaskError;
  }
  throw new Error('expected the task to fail');
}

describe('process pool', () => {
  it('runs tasks across child processes and returns their values', async () => {
    pool = createPool({ module: JOBS, size: 2 });
    const values = await Promise.all([1, 2, 3, 4, 5].map((n) => pool!.run<number>({ handler: 'double', payload: n })));
    expect(values).toEqual([2, 4, 6, 8, 10]);
    const pids = await Promise.all([0, 1, 2, 3].map(() => pool!.run<{ pid: number }>({ handler: 'whoami', payload: null })));
    for (const { pid } of pids) expect(pool.pids()).toContain(pid);
    expect(pids.every((p) => p.pid !== process.pid)).toBe(true);
  });

  it('reports a handler that throws as a task failure and keeps the process', async () => {
    pool = createPool({ module: JOBS, size: 1 });
    const before = pool.pids();
    const err = await failure(pool.run({ handler: 'throws', payload: 'bad input' }));
    expect(err.kind).toBe('task');
    expect(err.message).toBe('bad input');
    expect(err.remoteName).toBe('RangeError');
    expect(await pool.run({ handler: 'double', payload: 21 })).toBe(42);
    expect(pool.pids()).toEqual(before);
    expect(pool.stats().crashed).toBe(0);
  });

  it('a Map-growth memory bomb kills only its own task; the process is replaced and the other tasks finish', async () => {
    pool = createPool({ module: JOBS, size: 2 });
    const tasks = [
      pool.run({ handler: 'double', payload: 1 }),
      pool.run({ handler: 'mapBomb', payload: null }),
      pool.run({ handler: 'double', payload: 2 }),
      pool.run({ handler: 'double', payload: 3 }),
      pool.run({ handler: 'double', payload: 4 }),
    ];
    const settled = await Promise.allSettled(tasks);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : 'failed'))).toEqual([2, 'failed', 4, 6, 8]);
    const err = (settled[1] as PromiseRejectedResult).reason as PoolTaskError;
    // Usually V8's fatal OOM aborts the child (SIGABRT, or exit code 134 through a shell); sometimes isolated-vm
    // disposes the isolate at its memory limit first and the task fails in a child that lives on. Both contain it.
    if (err.kind === 'crash') {
      expect(err.signal === 'SIGABRT' || err.exitCode === 134).toBe(true);
      expect(err.stderrTail).toMatch(/heap|memory/i);
      expect(err.message).toMatch(/^sandbox process killed by SIGABRT/);
      expect(pool.stats().crashed).toBe(1);
      expect(pool.stats().spawned).toBe(3);
    } else {
      expect(err.kind).toBe('task');
      expect(err.message).toMatch(/memory|maximum size/i);
      expect(pool.stats().crashed).toBe(0);
    }
    // The replacement serves new work.
    expect(await Promise.all([pool.run({ handler: 'double', payload: 5 }), pool.run({ handler: 'double', payload: 6 })])).toEqual([10, 12]);
  });

  it('a child killed from outside fails only the task it was running and is replaced', async () => {
    pool = createPool({ module: JOBS, size: 2 });
    const slow = pool.run({ handler: 'sleep', payload: 30_000 });
    const [first] = await Promise.all([pool.run<{ pid: number }>({ handler: 'whoami', payload: null })]);
    const victim = pool.pids().find((pid) => pid !== first!.pid)!;
    // The sleeping task holds the other child; kill it, and an idle one too (must not take the host down).
    process.kill(victim, 'SIGKILL');
    const err = await failure(slow);
    expect(err.kind).toBe('crash');
    expect(err.signal).toBe('SIGKILL');
    process.kill(first!.pid, 'SIGKILL');
    // A task sent to a process in the instant it dies fails as a crash too; wait until the pool has noticed.
    while (pool.pids().includes(first!.pid) || pool.pids().length < 2) await new Promise((r) => setTimeout(r, 20));
    const values = await Promise.all([7, 8, 9].map((n) => pool!.run({ handler: 'double', payload: n })));
    expect(values).toEqual([14, 16, 18]);
    expect(pool.pids()).not.toContain(victim);
    expect(pool.pids()).not.toContain(first!.pid);
    expect(pool.pids()).toHaveLength(2);
  });

  it('abort() and process.exit() are crashes with the exit recorded', async () => {
    pool = createPool({ module: JOBS, size: 1 });
    const aborted = await failure(pool.run({ handler: 'abort', payload: null }));
    expect(aborted.signal).toBe('SIGABRT');
    const exited = await failure(pool.run({ handler: 'exit', payload: 9 }));
    expect(exited.kind).toBe('crash');
    expect(exited.exitCode).toBe(9);
    expect(exited.message).toContain('exited with code 9');
    expect(await pool.run({ handler: 'double', payload: 1 })).toBe(2);
  });

  it('kills a task past its deadline and reports a timeout', async () => {
    pool = createPool({ module: JOBS, size: 1, taskTimeoutMs: 60_000 });
    const err = await failure(pool.run({ handler: 'hang', payload: null, timeoutMs: 300 }));
    expect(err.kind).toBe('timeout');
    expect(pool.stats().timedOut).toBe(1);
    expect(await pool.run({ handler: 'double', payload: 4 })).toBe(8);
  });

  it('sends a blob once per process and routes tasks to the process that holds it', async () => {
    pool = createPool({ module: JOBS, size: 2 });
    let serialised = 0;
    const blob = (key: string, data: number[]) => ({
      key,
      data: () => {
        serialised++;
        return data;
      },
    });
    const a = blob('history-a', [1, 2, 3]);
    const b = blob('history-b', [10, 20]);
    const runs: Promise<number>[] = [];
    for (let i = 0; i < 6; i++) {
      runs.push(pool.run<number>({ handler: 'sumBlob', payload: 'history-a', blobs: [a] }));
      runs.push(pool.run<number>({ handler: 'sumBlob', payload: 'history-b', blobs: [b] }));
    }
    const values = await Promise.all(runs);
    expect(values).toEqual(Array.from({ length: 6 }, () => [6, 30]).flat());
    // Each key reaches each process at most once; with warm routing usually once in total.
    expect(serialised).toBeLessThanOrEqual(4);
    expect(pool.stats().blobsSent).toBe(serialised);
  });

  it('lets a task call functions in the host (the LLM bridge)', async () => {
    const seen: unknown[] = [];
    pool = createPool({
      module: JOBS,
      size: 1,
      hostCalls: {
        echo: async (args: string) => {
          seen.push(args);
          return args.toUpperCase();
        },
      },
    });
    expect(await pool.run({ handler: 'askHost', payload: 'ping' })).toBe('host said: PING');
    expect(seen).toEqual(['ping']);
  });

  it('close() rejects queued tasks and kills every child', async () => {
    pool = createPool({ module: JOBS, size: 1 });
    const running = failure(pool.run({ handler: 'sleep', payload: 30_000 }));
    const queued = failure(pool.run({ handler: 'double', payload: 1 }));
    await new Promise((r) => setTimeout(r, 100));
    const pids = pool.pids();
    await pool.close();
    expect((await running).kind).toBe('closed');
    expect((await queued).kind).toBe('closed');
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect((await failure(pool.run({ handler: 'double', payload: 1 }))).kind).toBe('closed');
  });

  it('gives up with a clear reason when children cannot start', async () => {
    pool = createPool({ module: '/nonexistent/jobs.ts', size: 1 });
    const err = await failure(pool.run({ handler: 'double', payload: 1 }));
    expect(err.kind).toBe('crash');
    expect(err.message).toMatch(/fail to start.*cannot load/);
  });
});

describe('describeExit', () => {
  it('picks the OOM line out of V8 noise', () => {
    const tail =
      '<--- Last few GCs --->\n[1:0x1] 150 ms: Mark-Compact\n' +
      'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n 1: 0xb0 node::Abort()';
    expect(describeExit(null, 'SIGABRT', tail)).toBe(
      'sandbox process killed by SIGABRT: FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
    );
    expect(describeExit(3, null, '')).toBe('sandbox process exited with code 3');
  });
});
