import type { QueueStatus } from '../pool/queue-pool.ts';

/**
 * A progress line for a queue's workers and waiting groups, or null when nothing changed since the last one: the
 * pool reports every second, and a log line a second would bury the search's own progress.
 */
export function queueStatusLines(): (s: Pick<QueueStatus, 'workers' | 'waiting'>) => string | null {
  let last = '';
  return (s) => {
    const line = `queue: ${s.workers} workers, ${s.waiting} groups waiting`;
    if (line === last) return null;
    last = line;
    return line;
  };
}
