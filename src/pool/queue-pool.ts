/**
 * The coordinator side of evaluation on a Redis queue: a {@link ProcessPool} whose tasks run on remote workers
 * (queue-worker.ts, `memsteer worker`) instead of local child processes. Everything above the pool (grouping,
 * answering, scoring, caching, the archive) is unchanged, which is what keeps a queued run identical to a local one.
 *
 * - Tasks become BullMQ jobs with content-derived ids (queue-wire.ts). A resumed coordinator enqueues the same
 *   ids: jobs that exist are not added again, and the ones that finished meanwhile are collected at once.
 * - Blobs (the program, a history's records) are stored once in Redis by key, with a TTL that the coordinator
 *   refreshes while it uses them; workers fetch each one once.
 * - A task that failed inside a worker's sandbox comes back as that failure (`PoolTaskError`), exactly like the
 *   local pool reports it: a recorded failure, not a retry.
 * - Redis unreachable at start → `E_QUEUE_UNREACHABLE`; unreachable for longer than `downAfterMs` while tasks are
 *   pending → every pending task fails with `E_QUEUE_DOWN`. Both are {@link QueueError}s (not pool failures), so
 *   the evaluation stops instead of recording failed questions, and a search run stays resumable.
 */
import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { PoolTaskError, type PoolStats, type PoolTask, type ProcessPool } from './pool.ts';
import { connectRedis, parseQueueUrl, QueueError, bullConnection, withTimeout, CONNECT_TIMEOUT_MS } from './queue-connection.ts';
import {
  blobRedisKey,
  decodeValue,
  encodeValue,
  jobIdFor,
  KEY_PREFIX,
  QUEUE_NAME,
  QueueJobResultSchema,
  type QueueJobData,
} from './queue-wire.ts';

export interface QueuePoolOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  /** Carried by every job; part of the job id, so a resumed run finds its own jobs. */
  runId: string;
  /** How long Redis may stay unreachable before pending tasks fail with `E_QUEUE_DOWN` (default 30 s). */
  downAfterMs?: number;
  /** TTL of blobs in Redis, refreshed while the coordinator uses them (default 24 h). */
  blobTtlSeconds?: number;
  /** How long finished jobs (and their results) stay in Redis for a resumed coordinator (default 24 h). */
  keepSeconds?: number;
  /** How often the coordinator checks Redis and refreshes the queue status (default 1 s). */
  pollMs?: number;
  /** Attempts of a job whose worker failed for a reason outside the task (a missing blob, a lost lock). */
  attempts?: number;
  /** Called with the queue's status every `pollMs` (progress displays). */
  onStatus?: (s: QueueStatus) => void;
}

/** What the queue looks like from the coordinator (refreshed every `pollMs`). */
export interface QueueStatus {
  /** Workers connected to the queue (any run's). */
  workers: number;
  /** Jobs waiting for a worker (any run's). */
  waiting: number;
  /** Jobs being run. */
  active: number;
  /** This coordinator's tasks not yet collected. */
  pending: number;
}

/** A pool whose tasks run on queue workers. */
export interface QueuePool extends ProcessPool {
  readonly runId: string;
  status(): QueueStatus;
}

interface Waiter {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

const DAY_SECONDS = 24 * 3600;

/** Connects to the queue lazily: the first `run` waits for Redis (and fails with a coded error if it is not there). */
export function createQueuePool(options: QueuePoolOptions): QueuePool {
  const ep = parseQueueUrl(options.url);
  const downAfterMs = options.downAfterMs ?? 30_000;
  const ttl = options.blobTtlSeconds ?? DAY_SECONDS;
  const keep = options.keepSeconds ?? DAY_SECONDS;
  const pollMs = options.pollMs ?? 1000;
  const attempts = options.attempts ?? 3;
  const runId = options.runId;

  const pending = new Map<string, Waiter[]>();
  const blobsSent = new Map<string, { at: number; done: Promise<void> }>();
  const counters = { completed: 0, failed: 0, crashed: 0, timedOut: 0, blobsSent: 0 };
  const status: QueueStatus = { workers: 0, waiting: 0, active: 0, pending: 0 };
  let fatal: QueueError | null = null;
  let closing = false;
  let client: Redis | null = null;
  let queue: Queue | null = null;
  let events: QueueEvents | null = null;
  let lastOk = Date.now();
  let ticking = false;
  let ticks = 0;
  let timer: NodeJS.Timeout | null = null;

  const ready = (async () => {
    client = await connectRedis(ep, `memsteer-coordinator-${runId}`.slice(0, 60).replace(/\s/g, '_'));
    queue = new Queue(QUEUE_NAME, { connection: bullConnection(ep, { blocking: false }), prefix: KEY_PREFIX });
    events = new QueueEvents(QUEUE_NAME, { connection: bullConnection(ep, { blocking: true }), prefix: KEY_PREFIX });
    // Connection trouble is judged by the watchdog below; these only keep Node from printing unhandled 'error's.
    queue.on('error', () => {});
    events.on('error', () => {});
    events.on('completed', ({ jobId, returnvalue }) => settle(jobId, { state: 'completed', value: returnvalue }));
    events.on('failed', ({ jobId }) => void check(jobId));
    try {
      await withTimeout(Promise.all([queue.waitUntilReady(), events.waitUntilReady()]), CONNECT_TIMEOUT_MS);
    } catch (err) {
      throw new QueueError('E_QUEUE_UNREACHABLE', `cannot open the queue at ${ep.url}: ${(err as Error).message}`, { cause: err });
    }
    lastOk = Date.now();
    timer = setInterval(() => void tick(), pollMs);
    timer.unref();
  })();
  // A failed start is reported by the `run` that awaits it; keep it from being an unhandled rejection meanwhile.
  ready.catch(() => {});

  function settle(jobId: string, outcome: { state: 'completed'; value: unknown } | { state: 'failed'; reason: string }): void {
    const waiters = pending.get(jobId);
    if (!waiters) return;
    pending.delete(jobId);
    status.pending = pending.size;
    let ok: ((w: Waiter) => void) | null = null;
    if (outcome.state === 'failed') {
      // Task failures come back as completed jobs; a failed job is the machinery's trouble (a blob gone from Redis,
      // a job whose workers kept dying), not the design's: stop the run rather than record a failure it did not cause.
      const err = new QueueError(
        'E_QUEUE_JOB_FAILED',
        `the queue gave up on job ${jobId}: ${outcome.reason}; check the workers' logs, then rerun (optimize: --resume <run>)`,
      );
      ok = (w) => w.reject(err);
    } else {
      const parsed = QueueJobResultSchema.safeParse(outcome.value);
      if (!parsed.success) {
        const err = new QueueError(
          'E_QUEUE_RESULT',
          `job ${jobId} returned a result memsteer does not understand (a worker of another version?)`,
        );
        ok = (w) => w.reject(err);
      } else if (parsed.data.ok) {
        counters.completed++;
        const value = decodeValue(Buffer.from(parsed.data.value, 'base64'));
        ok = (w) => w.resolve(value);
      } else {
        const r = parsed.data;
        if (r.kind === 'crash') counters.crashed++;
        else if (r.kind === 'timeout') counters.timedOut++;
        else counters.failed++;
        const err = new PoolTaskError(r.kind, `${r.message} (worker ${r.worker})`, {
          exitCode: r.exitCode,
          signal: r.signal,
          stderrTail: r.stderrTail,
          ...(r.remoteName ? { remoteName: r.remoteName } : {}),
        });
        ok = (w) => w.reject(err);
      }
    }
    for (const w of waiters) ok(w);
  }

  /**
   * Reads a job's state from Redis and settles it if it has finished (covers events missed across reconnects).
   * `retryFailed`: a job that failed under an earlier coordinator of this run goes back to the queue once.
   */
  async function check(jobId: string, retryFailed = false): Promise<void> {
    if (!queue || !pending.has(jobId)) return;
    const job = await Job.fromId(queue, jobId);
    if (!job) return;
    const state = await job.getState();
    if (state === 'completed') {
      // The job was read before its state: if it completed in between, that copy has no return value yet.
      const done = job.returnvalue == null ? await Job.fromId(queue, jobId) : job;
      if (done?.returnvalue != null) settle(jobId, { state: 'completed', value: done.returnvalue });
    } else if (state === 'failed' && retryFailed) await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    else if (state === 'failed') settle(jobId, { state: 'failed', reason: job.failedReason });
  }

  function failAll(err: QueueError): void {
    fatal ??= err;
    for (const [id, waiters] of pending) {
      pending.delete(id);
      for (const w of waiters) w.reject(fatal);
    }
    status.pending = 0;
  }

  async function tick(): Promise<void> {
    if (ticking || closing || !client || !queue) return;
    ticking = true;
    try {
      await withTimeout(client.ping(), Math.max(1000, pollMs * 2));
      lastOk = Date.now();
      const [counts, workers] = await withTimeout(
        Promise.all([queue.getJobCounts('wait', 'active', 'prioritized'), queue.getWorkersCount()]),
        CONNECT_TIMEOUT_MS,
      );
      status.waiting = (counts.wait ?? 0) + (counts.prioritized ?? 0);
      status.active = counts.active ?? 0;
      status.workers = workers;
      options.onStatus?.({ ...status });
      // Every few seconds, reconcile what events may have missed (a reconnect loses the events in between).
      if (++ticks % 5 === 0) for (const id of [...pending.keys()]) await check(id);
    } catch {
      if (pending.size > 0 && Date.now() - lastOk > downAfterMs) {
        failAll(
          new QueueError(
            'E_QUEUE_DOWN',
            `Redis at ${ep.url} stopped answering for ${Math.round(downAfterMs / 1000)} s with tasks unfinished; ` +
              'start it again, then rerun (an optimize run continues with --resume <run>)',
          ),
        );
      }
    } finally {
      ticking = false;
    }
  }

  function sendBlob(key: string, data: () => unknown): Promise<void> {
    const now = Date.now();
    const sent = blobsSent.get(key);
    // Refreshed at half its TTL, so a blob never expires under a coordinator that still uses it.
    if (sent && now - sent.at < (ttl * 1000) / 2) return sent.done;
    const done = (async () => {
      await client!.set(blobRedisKey(key), encodeValue(data()), 'EX', ttl);
      counters.blobsSent++;
    })();
    blobsSent.set(key, { at: now, done });
    done.catch(() => blobsSent.delete(key));
    return done;
  }

  async function enqueue(task: PoolTask): Promise<unknown> {
    const data: Omit<QueueJobData, 'runId'> = {
      handler: task.handler,
      payload: encodeValue(task.payload).toString('base64'),
      blobs: (task.blobs ?? []).map((b) => b.key),
      ...(task.timeoutMs ? { timeoutMs: task.timeoutMs } : {}),
    };
    const jobId = jobIdFor(runId, data);
    const result = new Promise<unknown>((resolve, reject) => {
      const list = pending.get(jobId) ?? [];
      list.push({ resolve, reject });
      pending.set(jobId, list);
      status.pending = pending.size;
    });
    // close() may reject it while the job is still being sent, before anyone awaits it: the caller gets that
    // rejection below, so it must not also surface as an unhandled one.
    result.catch(() => {});
    try {
      await Promise.all((task.blobs ?? []).map((b) => sendBlob(b.key, b.data)));
      await queue!.add(task.handler, { runId, ...data } satisfies QueueJobData, {
        jobId,
        attempts,
        backoff: { type: 'fixed', delay: 1000 },
        removeOnComplete: { age: keep },
        removeOnFail: { age: keep },
      });
      // The job may have existed already (a resumed run) and finished: collect it now, or run it again if it failed.
      await check(jobId, true);
    } catch (err) {
      pending.delete(jobId);
      status.pending = pending.size;
      if (closing && !fatal) throw new PoolTaskError('closed', 'the queue pool was closed before this task finished');
      throw fatal ?? new QueueError('E_QUEUE_DOWN', `cannot enqueue on ${ep.url}: ${(err as Error).message}`, { cause: err });
    }
    return result;
  }

  return {
    get size() {
      return status.workers;
    },
    runId,
    async run<T>(task: PoolTask): Promise<T> {
      if (closing) throw new PoolTaskError('closed', 'the queue pool is closed');
      await ready;
      if (fatal) throw fatal;
      return (await enqueue(task)) as T;
    },
    stats(): PoolStats {
      return {
        size: status.workers,
        spawned: 0,
        crashed: counters.crashed,
        timedOut: counters.timedOut,
        completed: counters.completed,
        failed: counters.failed,
        blobsSent: counters.blobsSent,
        queued: status.waiting,
        busy: status.active,
      };
    },
    status: () => ({ ...status }),
    pids: () => [],
    async close(): Promise<void> {
      if (closing) return;
      closing = true;
      if (timer) clearInterval(timer);
      for (const [id, waiters] of pending) {
        pending.delete(id);
        for (const w of waiters) w.reject(new PoolTaskError('closed', 'the queue pool was closed before this task finished'));
      }
      await ready.catch(() => {});
      // Jobs stay in Redis: a resumed run collects them. Closing must not hang on a dead Redis either.
      // With Redis gone (fatal) a graceful close can only time out: go straight to cutting the connections.
      await Promise.allSettled([
        fatal ? undefined : withTimeout(events?.close() ?? Promise.resolve(), CONNECT_TIMEOUT_MS),
        fatal ? undefined : withTimeout(queue?.close() ?? Promise.resolve(), CONNECT_TIMEOUT_MS),
      ]);
      // After a timed-out close their sockets would keep reconnecting (and the process alive): cut them.
      await Promise.allSettled([events, queue].map((q) => (q ? withTimeout(q.disconnect(), 1000) : undefined)));
      client?.disconnect();
    },
  };
}
