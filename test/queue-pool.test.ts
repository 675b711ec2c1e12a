/**
 * The queue pool and worker against a real redis-server (started here on a free port), with the pool test
 * handlers (test/fixtures/pool/jobs.ts) standing in for evaluation groups.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, PoolTaskError } from '../src/pool/pool.ts';
import { parseQueueUrl } from '../src/pool/queue-connection.ts';
import { createQueuePool, type QueuePool } from '../src/pool/queue-pool.ts';
import { startQueueWorker, type QueueWorker, type QueueWorkerEvent } from '../src/pool/queue-worker.ts';
import { blobRedisKey, jobIdFor, queueRunId } from '../src/pool/queue-wire.ts';
import { Redis } from 'ioredis';
import { freePort, redisAvailable, startRedis, type TestRedis } from './helpers/redis-server.ts';

const JOBS = new URL('./fixtures/pool/jobs.ts', import.meta.url);

describe('queue URLs and an absent Redis', () => {
  it('parses redis://host:port[/db] and rejects anything else with a coded error', () => {
    expect(parseQueueUrl('redis://127.0.0.1:6380/2')).toMatchObject({ host: '127.0.0.1', port: 6380, db: 2 });
    expect(parseQueueUrl('redis://queue.local')).toMatchObject({ host: 'queue.local', port: 6379, db: 0 });
    for (const bad of ['127.0.0.1:6379', 'http://x:1', 'redis://x:1/db', 'redis://x:99999'])
      expect(() => parseQueueUrl(bad), bad).toThrow(expect.objectContaining({ code: 'E_QUEUE_URL' }));
  });

  it('job ids carry the run id and change with the task, not with the run directory spelling', () => {
    const data = { handler: 'double', payload: 'AQ==', blobs: ['k'] };
    expect(jobIdFor('run-1', data)).toMatch(/^run-1\.[0-9a-f]{40}$/);
    expect(jobIdFor('run-1', data)).not.toBe(jobIdFor('run-2', data));
    expect(jobIdFor('run-1', data)).not.toBe(jobIdFor('run-1', { ...data, payload: 'Ag==' }));
    expect(queueRunId('/tmp/a/run')).toBe(queueRunId('/tmp/a/../a/run'));
    expect(queueRunId('/tmp/a/run')).not.toBe(queueRunId('/tmp/b/run'));
  });

  it('a coordinator and a worker with no Redis there fail fast with E_QUEUE_UNREACHABLE', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const pool = createQueuePool({ url, runId: 'nobody' });
    await expect(pool.run({ handler: 'double', payload: 1 })).rejects.toMatchObject({ code: 'E_QUEUE_UNREACHABLE' });
    await pool.close();
    const local = createPool({ module: JOBS, size: 1 });
    await expect(startQueueWorker({ url, pool: local, concurrency: 1 })).rejects.toMatchObject({ code: 'E_QUEUE_UNREACHABLE' });
    await local.close();
  }, 30_000);
});

describe.skipIf(!redisAvailable())('queue pool and worker on a real Redis', () => {
  let redis: TestRedis;
  let worker: QueueWorker;
  const events: QueueWorkerEvent[] = [];
  const pools: QueuePool[] = [];
  const coordinator = (runId: string, extra: Partial<Parameters<typeof createQueuePool>[0]> = {}) => {
    const p = createQueuePool({ url: redis.url, runId, ...extra });
    pools.push(p);
    return p;
  };
  const startedJobs = () => events.flatMap((e) => (e.type === 'started' ? [e.job] : []));

  beforeAll(async () => {
    redis = await startRedis();
    worker = await startQueueWorker({
      url: redis.url,
      pool: createPool({ module: JOBS, size: 1 }),
      concurrency: 1,
      name: 'test-worker',
      onEvent: (e) => events.push(e),
    });
  }, 30_000);

  afterAll(async () => {
    for (const p of pools) await p.close();
    await worker?.close();
    await redis?.stop();
  });

  it('runs tasks on the worker and fetches a blob once per worker, not once per job', async () => {
    const pool = coordinator('blobs');
    expect(await pool.run<number>({ handler: 'double', payload: 21 })).toBe(42);
    const blob = { key: 'numbers:abc', data: () => [1, 2, 3, 4] };
    const before = worker.stats().blobsFetched;
    expect(await pool.run<number>({ handler: 'sumBlob', payload: 'numbers:abc', blobs: [blob] })).toBe(10);
    // Another task (different payload → different job) reading the same blob.
    const sums = await Promise.all([
      pool.run<number>({ handler: 'sumBlob', payload: 'numbers:abc', blobs: [blob], timeoutMs: 60_000 }),
      pool.run<{ pid: number }>({ handler: 'whoami', payload: null, blobs: [blob] }),
    ]);
    expect(sums[0]).toBe(10);
    expect(worker.stats().blobsFetched - before).toBe(1);
    expect(pool.status().workers).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it('a task that kills its sandbox process is one recorded crash, not a retry', async () => {
    const pool = coordinator('crash');
    const err = await pool.run({ handler: 'exit', payload: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PoolTaskError);
    expect(err).toMatchObject({ kind: 'crash', exitCode: 3 });
    const thrown = await pool.run({ handler: 'throws', payload: 'bad input' }).catch((e: unknown) => e);
    expect(thrown).toMatchObject({ kind: 'task', remoteName: 'RangeError' });
    expect((thrown as Error).message).toContain('bad input');
    const crashJobs = startedJobs().filter((j) => j.startsWith('crash.'));
    expect(crashJobs).toHaveLength(2);
    expect(new Set(crashJobs).size).toBe(2);
    // The worker's pool replaced its process and goes on.
    expect(await pool.run<number>({ handler: 'double', payload: 5 })).toBe(10);
  }, 60_000);

  it('several runs share the worker; a resumed run collects what finished meanwhile without running it again', async () => {
    const a = coordinator('run-a');
    const b = coordinator('run-b');
    const [x, y] = await Promise.all([
      a.run<number>({ handler: 'sleep', payload: 200 }),
      b.run<number>({ handler: 'sleep', payload: 200 }),
    ]);
    expect([x, y]).toEqual([200, 200]);
    const runs = new Set(events.flatMap((e) => (e.type === 'started' ? [e.run] : [])));
    expect(runs).toContain('run-a');
    expect(runs).toContain('run-b');

    // A coordinator enqueues a task and goes away before its result arrives…
    const gone = coordinator('run-resumed');
    const lost = gone.run({ handler: 'sleep', payload: 300 }).catch((e: unknown) => e);
    for (let i = 0; i < 100 && !startedJobs().some((j) => j.startsWith('run-resumed.')); i++) await new Promise((r) => setTimeout(r, 50));
    await gone.close();
    expect(await lost).toMatchObject({ kind: 'closed' });
    // …the worker finishes it anyway; the same run, resumed, gets the result without a second execution.
    for (let i = 0; i < 100 && !events.some((e) => e.type === 'finished' && e.run === 'run-resumed'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const again = coordinator('run-resumed');
    expect(await again.run<number>({ handler: 'sleep', payload: 300 })).toBe(300);
    expect(startedJobs().filter((j) => j.startsWith('run-resumed.'))).toHaveLength(1);
  }, 60_000);

  it('a pool closed while a task is still being sent rejects that task as closed, and leaves no rejection unhandled', async () => {
    const pool = coordinator('closed-while-sending');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let closed: Promise<void> | undefined;
      // Reading the blob is the moment the task is registered but not yet on the queue.
      const blob = {
        key: 'numbers:closing',
        data: () => {
          closed = pool.close();
          return [1];
        },
      };
      const err = await pool.run({ handler: 'sumBlob', payload: 'numbers:closing', blobs: [blob] }).catch((e: unknown) => e);
      await closed;
      await new Promise((r) => setTimeout(r, 100));
      expect(err).toBeInstanceOf(PoolTaskError);
      expect(err).toMatchObject({ kind: 'closed' });
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }, 30_000);

  it('a job the queue gives up on stops the run (E_QUEUE_JOB_FAILED); the resumed run sends it again', async () => {
    const own = await startRedis();
    let late: QueueWorker | null = null;
    try {
      const blob = { key: 'numbers:gone', data: () => [5, 6] };
      const first = coordinator('lost-blob', { url: own.url, pollMs: 200 });
      const task = { handler: 'sumBlob', payload: 'numbers:gone', blobs: [blob] };
      const pending = first.run(task).catch((e: unknown) => e);
      // The blob disappears from Redis before any worker fetched it (as after a Redis restart without persistence).
      const redisClient = new Redis(own.port, '127.0.0.1');
      for (let i = 0; i < 100 && !(await redisClient.exists(blobRedisKey(blob.key))); i++) await new Promise((r) => setTimeout(r, 20));
      await redisClient.del(blobRedisKey(blob.key));
      redisClient.disconnect();
      late = await startQueueWorker({ url: own.url, pool: createPool({ module: JOBS, size: 1 }), concurrency: 1 });
      expect(await pending).toMatchObject({ code: 'E_QUEUE_JOB_FAILED' });
      await first.close();
      // The run resumed: its coordinator stores the blob again and the failed job goes back to the queue.
      const resumed = coordinator('lost-blob', { url: own.url, pollMs: 200 });
      expect(await resumed.run<number>(task)).toBe(11);
    } finally {
      await late?.close();
      await own.stop();
    }
  }, 60_000);

  it('a Redis that goes away fails pending tasks with E_QUEUE_DOWN instead of hanging', async () => {
    const own = await startRedis();
    try {
      const pool = coordinator('down', { url: own.url, downAfterMs: 1500, pollMs: 200 });
      // No worker listens on this Redis: the task waits in the queue until Redis dies.
      const pending = pool.run({ handler: 'double', payload: 1 }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 500));
      await own.stop();
      const t0 = Date.now();
      expect(await pending).toMatchObject({ code: 'E_QUEUE_DOWN' });
      expect(Date.now() - t0).toBeLessThan(20_000);
      await expect(pool.run({ handler: 'double', payload: 2 })).rejects.toMatchObject({ code: 'E_QUEUE_DOWN' });
    } finally {
      await own.stop();
    }
  }, 60_000);
});
