/**
 * What travels through Redis between a coordinator (queue-pool.ts) and its workers (queue-worker.ts): the queue
 * and key names, the job and result envelopes (zod), and their encoding.
 *
 * Payloads, blobs and results are v8-serialized (the structured clone the local pool's IPC uses), not JSON, so a
 * group's result crosses the queue exactly as it crosses a child process (NaN, -0, undefined in arrays and Maps
 * survive), which is what makes a queued run's traces identical to a local one.
 */
import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { z } from 'zod';

/** One BullMQ queue for every run: jobs carry their run id, so several runs share the same workers. */
export const QUEUE_NAME = 'memsteer-groups';
/** Redis key prefix of the queue and of the blobs. */
export const KEY_PREFIX = 'memsteer';

/** Redis key of a blob (a program, a history's records) stored by content-hash key. */
export function blobRedisKey(key: string): string {
  return `${KEY_PREFIX}:blob:${key}`;
}

/**
 * The run id a run directory's jobs carry: its name and a hash of its absolute path, so the same run resumed finds
 * its jobs and two runs that happen to share a name on different machines or folders do not.
 */
export function queueRunId(runDir: string): string {
  const abs = resolve(runDir);
  return `${basename(abs)}-${createHash('sha256').update(abs).digest('hex').slice(0, 8)}`;
}

/** A job as the coordinator enqueues it. */
export const QueueJobDataSchema = z.object({
  /** Which run enqueued it (several runs may share one queue and its workers). */
  runId: z.string().min(1),
  /** Handler of the worker's pool module (`evalGroup`). */
  handler: z.string().min(1),
  /** The task payload, v8-serialized, base64. */
  payload: z.string(),
  /** Keys of the blobs the task reads; each is stored once in Redis under {@link blobRedisKey}. */
  blobs: z.array(z.string().min(1)),
  timeoutMs: z.number().int().positive().optional(),
});
export type QueueJobData = z.infer<typeof QueueJobDataSchema>;

/**
 * A job's return value. A task that failed inside the worker's pool (the sandbox process crashed or timed out,
 * the handler threw) is a *completed* job with `ok: false`: it is a result to record, not something to retry.
 */
export const QueueJobResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.string(), worker: z.string() }),
  z.object({
    ok: z.literal(false),
    worker: z.string(),
    kind: z.enum(['crash', 'timeout', 'closed', 'task']),
    message: z.string(),
    exitCode: z.number().nullable(),
    signal: z.string().nullable(),
    stderrTail: z.string(),
    remoteName: z.string().optional(),
  }),
]);
export type QueueJobResult = z.infer<typeof QueueJobResultSchema>;

export function encodeValue(value: unknown): Buffer {
  return serialize(value);
}

export function decodeValue<T = unknown>(data: Buffer): T {
  return deserialize(data) as T;
}

/**
 * The job id: the run id and a hash of everything the task computes from. A coordinator that is killed and
 * resumed enqueues the same ids, so BullMQ keeps the jobs that exist (finished or not) and only missing ones
 * are added.
 */
export function jobIdFor(runId: string, data: Omit<QueueJobData, 'runId'>): string {
  const h = createHash('sha256');
  h.update(data.handler);
  h.update('\0');
  h.update(data.payload);
  for (const b of data.blobs) h.update(`\0${b}`);
  // BullMQ job ids may not contain ':' (its key separator).
  return `${runId.replace(/[^A-Za-z0-9._-]/g, '_')}.${h.digest('hex').slice(0, 40)}`;
}
