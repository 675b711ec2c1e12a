/**
 * The worker side of evaluation on a Redis queue (`memsteer worker`): takes jobs from the BullMQ queue, runs each
 * in a local {@link ProcessPool} (the same sandbox pool a local run uses) and returns its result. Blobs are
 * fetched from Redis once per worker and then handed to the local pool, which sends each to a child once.
 *
 * A task that fails in the local pool (its sandbox process crashed or timed out, the handler threw) completes the
 * job with that failure; only trouble outside the task (a missing blob) fails the job, which BullMQ retries.
 * A worker killed mid-job stops renewing its lock: after `lockMs` BullMQ's stalled check, run by any live worker,
 * puts the job back in the queue for another worker.
 */
import { hostname } from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { PoolTaskError, type ProcessPool } from './pool.ts';
import { bullConnection, connectRedis, parseQueueUrl } from './queue-connection.ts';
import {
  blobRedisKey,
  decodeValue,
  encodeValue,
  KEY_PREFIX,
  QUEUE_NAME,
  QueueJobDataSchema,
  type QueueJobData,
  type QueueJobResult,
} from './queue-wire.ts';

export interface QueueWorkerOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  /** Runs the tasks (an evaluation pool); closed by the worker's `close`. */
  pool: ProcessPool;
  /** Jobs run at once (give the pool as many processes). */
  concurrency: number;
  /** How long a job stays claimed by a worker that stopped answering (default 30 s). */
  lockMs?: number;
  /** Shown in Redis (`CLIENT LIST`) and in results; default `<host>-<pid>`. */
  name?: string;
  /** Decoded blobs kept in memory (default 32). */
  maxBlobs?: number;
  onEvent?: (e: QueueWorkerEvent) => void;
}

/** What a worker reports (the CLI prints it). */
export type QueueWorkerEvent =
  | { type: 'started'; job: string; run: string }
  | { type: 'finished'; job: string; run: string; ok: boolean; ms: number; failure?: string }
  | { type: 'error'; message: string };

export interface QueueWorker {
  readonly name: string;
  /** Jobs finished by this worker since it started. */
  stats(): { finished: number; failed: number; active: number; blobsFetched: number };
  /**
   * Stops taking jobs. Graceful (default): waits for the running jobs to finish and return their results. `force`:
   * leaves them; their locks lapse and the queue gives them to another worker.
   */
  close(force?: boolean): Promise<void>;
}

/** Connects (failing with `E_QUEUE_UNREACHABLE` when Redis is not there) and starts taking jobs. */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const ep = parseQueueUrl(options.url);
  const name = options.name ?? `${hostname()}-${process.pid}`;
  const maxBlobs = Math.max(2, options.maxBlobs ?? 32);
  const lockMs = options.lockMs ?? 30_000;
  const client: Redis = await connectRedis(ep, `memsteer-worker-${name}`);
  client.on('error', (err: Error) => options.onEvent?.({ type: 'error', message: `redis: ${err.message}` }));

  const blobs = new Map<string, Promise<unknown>>(); // insertion order = least recently used first
  const counts = { finished: 0, failed: 0, active: 0, blobsFetched: 0 };

  function blob(key: string): Promise<unknown> {
    const held = blobs.get(key);
    if (held) {
      blobs.delete(key);
      blobs.set(key, held);
      return held;
    }
    const p = (async () => {
      const data = await client.getBuffer(blobRedisKey(key));
      if (!data) throw new Error(`blob ${key} is not in Redis (expired, or Redis was restarted); rerun the coordinator`);
      counts.blobsFetched++;
      return decodeValue(data);
    })();
    blobs.set(key, p);
    p.catch(() => blobs.delete(key));
    while (blobs.size > maxBlobs) blobs.delete(blobs.keys().next().value!);
    return p;
  }

  async function processJob(job: Job<QueueJobData>): Promise<QueueJobResult> {
    const parsed = QueueJobDataSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`job ${job.id} is not a memsteer task (a coordinator of another version?)`);
    const data = parsed.data;
    const t0 = Date.now();
    counts.active++;
    options.onEvent?.({ type: 'started', job: job.id ?? '', run: data.runId });
    try {
      const values = await Promise.all(data.blobs.map(blob));
      let result: QueueJobResult;
      try {
        const value = await options.pool.run({
          handler: data.handler,
          payload: decodeValue(Buffer.from(data.payload, 'base64')),
          blobs: data.blobs.map((key, i) => ({ key, data: () => values[i] })),
          ...(data.timeoutMs ? { timeoutMs: data.timeoutMs } : {}),
        });
        result = { ok: true, value: encodeValue(value).toString('base64'), worker: name };
      } catch (err) {
        // `closed` means this worker is going away, not that the task failed: let the queue run it elsewhere.
        if (!(err instanceof PoolTaskError) || err.kind === 'closed') throw err;
        result = {
          ok: false,
          worker: name,
          kind: err.kind,
          message: err.message,
          exitCode: err.exitCode,
          signal: err.signal,
          stderrTail: err.stderrTail,
          ...(err.remoteName ? { remoteName: err.remoteName } : {}),
        };
      }
      counts.finished++;
      options.onEvent?.({
        type: 'finished',
        job: job.id ?? '',
        run: data.runId,
        ok: result.ok,
        ms: Date.now() - t0,
        ...(result.ok ? {} : { failure: result.message }),
      });
      return result;
    } catch (err) {
      counts.failed++;
      options.onEvent?.({ type: 'error', message: `job ${job.id}: ${(err as Error).message}` });
      throw err;
    } finally {
      counts.active--;
    }
  }

  const worker = new Worker<QueueJobData, QueueJobResult>(QUEUE_NAME, processJob, {
    connection: bullConnection(ep, { blocking: true }),
    prefix: KEY_PREFIX,
    concurrency: options.concurrency,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    // A stall is a dead worker (or, on a loaded machine, a late lock renewal); a job that stalls three times is
    // failed rather than retried forever, and the coordinator stops with E_QUEUE_JOB_FAILED (resumable).
    maxStalledCount: 2,
    name,
  });
  worker.on('error', (err) => options.onEvent?.({ type: 'error', message: err.message }));
  await worker.waitUntilReady();

  let closed: Promise<void> | null = null;
  return {
    name,
    stats: () => ({ ...counts }),
    close(force = false): Promise<void> {
      if (closed && !force) return closed;
      closed = (async () => {
        await worker.close(force);
        await options.pool.close();
        client.disconnect();
      })();
      return closed;
    },
  };
}
