/**
 * Redis connection settings for the evaluation queue: parses `redis://host:port[/db]` and gives every connection
 * bounded timeouts, so a Redis that is down or goes away is an error the user can act on, never a hang.
 */
import type { ConnectionOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { MemsteerError } from '../errors.ts';

/** The queue could not be reached or stopped answering. Runs that fail with it can be resumed. */
export class QueueError extends MemsteerError {
  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
    this.name = 'QueueError';
  }
}

/** A parsed `--queue` URL. */
export interface QueueEndpoint {
  url: string;
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
}

/** Parses `redis://[user:pass@]host[:port][/db]` (port 6379 and db 0 by default). */
export function parseQueueUrl(url: string): QueueEndpoint {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new QueueError('E_QUEUE_URL', `--queue ${JSON.stringify(url)}: expected redis://host:port[/db]`);
  }
  if (u.protocol !== 'redis:')
    throw new QueueError('E_QUEUE_URL', `--queue ${JSON.stringify(url)}: only redis:// URLs are supported (got ${u.protocol})`);
  const port = u.port ? Number(u.port) : 6379;
  const dbText = u.pathname.replace(/^\//, '');
  const db = dbText === '' ? 0 : Number(dbText);
  if (!u.hostname || !Number.isInteger(port) || port <= 0 || port > 65535 || !Number.isInteger(db) || db < 0)
    throw new QueueError('E_QUEUE_URL', `--queue ${JSON.stringify(url)}: expected redis://host:port[/db] with a numeric port and db`);
  return {
    url,
    host: u.hostname,
    port,
    db,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
  };
}

/** Connection timeout of every queue connection, ms. */
export const CONNECT_TIMEOUT_MS = 5000;

/**
 * ioredis options for an endpoint. `blocking` connections (a BullMQ Worker, QueueEvents) must keep commands
 * pending across reconnects (`maxRetriesPerRequest: null`, BullMQ requires it); ordinary commands fail after
 * a bounded number of reconnect attempts instead of waiting forever.
 */
export function redisOptions(ep: QueueEndpoint, o: { blocking: boolean; name?: string }): RedisOptions {
  return {
    host: ep.host,
    port: ep.port,
    db: ep.db,
    ...(ep.username ? { username: ep.username } : {}),
    ...(ep.password ? { password: ep.password } : {}),
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: o.blocking ? null : 3,
    // Keep reconnecting with a capped backoff: whether to give up is decided above (the coordinator's watchdog).
    retryStrategy: (times: number) => Math.min(200 * times, 2000),
    ...(o.name ? { connectionName: o.name } : {}),
  };
}

/** {@link redisOptions} for BullMQ (its own option type describes the same ioredis options, less precisely). */
export function bullConnection(ep: QueueEndpoint, o: { blocking: boolean; name?: string }): ConnectionOptions {
  return redisOptions(ep, o) as ConnectionOptions;
}

/** Opens a plain client and checks Redis answers within the connect timeout. */
export async function connectRedis(ep: QueueEndpoint, name: string): Promise<Redis> {
  const client = new Redis({ ...redisOptions(ep, { blocking: false, name }), lazyConnect: true });
  // ioredis reports connection errors as events; without a listener Node prints them as unhandled.
  client.on('error', () => {});
  try {
    await withTimeout(
      client.connect().then(() => client.ping()),
      CONNECT_TIMEOUT_MS,
    );
    return client;
  } catch (err) {
    client.disconnect();
    throw new QueueError(
      'E_QUEUE_UNREACHABLE',
      `cannot reach Redis at ${ep.url} (${err instanceof Error ? err.message : String(err)}); start redis-server there or fix --queue`,
      { cause: err },
    );
  }
}

/** Rejects when `p` has not settled within `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]);
}
