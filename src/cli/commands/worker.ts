import type { Command } from 'commander';
import type { CliIO } from '../io.ts';
import { InputError } from '../../errors.ts';
import { openLlmClient } from '../../llm/client.ts';
import { createEvalPool } from '../../evaluate/evaluate.ts';
import { startQueueWorker, type QueueWorkerEvent } from '../../pool/queue-worker.ts';

export interface WorkerCommandOptions {
  queue: string;
  concurrency?: string;
  lockMs?: string;
  quiet?: boolean;
}

const positiveInt = (flag: string, value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InputError('E_BAD_FLAG', `${flag} ${JSON.stringify(value)}: expected a positive whole number`);
  return n;
};

/**
 * `memsteer worker`: runs evaluation groups from the queue until `stop` fires (the CLI wires SIGTERM/SIGINT to it:
 * the first lets running jobs finish, a second leaves them to be recovered by other workers).
 */
export async function runWorkerCommand(opts: WorkerCommandOptions, io: CliIO, stop: AbortSignal, forceStop?: AbortSignal): Promise<void> {
  const concurrency = opts.concurrency === undefined ? 1 : positiveInt('--concurrency', opts.concurrency);
  const lockMs = opts.lockMs === undefined ? undefined : positiveInt('--lock-ms', opts.lockMs);
  const client = openLlmClient();
  const pool = createEvalPool({ size: concurrency, ...(client ? { llm: client } : {}) });
  // While Redis is away every connection reports each reconnect attempt: print a message once until another comes.
  let lastError = '';
  const log = (e: QueueWorkerEvent) => {
    const t = new Date().toISOString();
    if (e.type === 'error') {
      const msg = e.message.replace(/^redis: /, '');
      if (msg !== lastError) io.err(`${t} error: ${msg}\n`);
      lastError = msg;
      return;
    }
    lastError = '';
    if (opts.quiet) return;
    else if (e.type === 'started') io.err(`${t} run ${e.run}: job ${e.job} started\n`);
    else io.err(`${t} run ${e.run}: job ${e.job} ${e.ok ? 'done' : `failed (${e.failure})`} in ${e.ms} ms\n`);
  };
  let worker;
  try {
    worker = await startQueueWorker({ url: opts.queue, pool, concurrency, ...(lockMs ? { lockMs } : {}), onEvent: log });
  } catch (err) {
    await pool.close();
    throw err;
  }
  io.err(`worker ${worker.name} on ${opts.queue}: ${concurrency} sandbox process(es); SIGTERM finishes running jobs and stops\n`);
  await new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    else stop.addEventListener('abort', () => resolve(), { once: true });
  });
  io.err(`worker ${worker.name}: stopping after the running jobs (signal again to leave them to other workers)\n`);
  const graceful = worker.close();
  const forced = new Promise<void>((resolve) => forceStop?.addEventListener('abort', () => resolve(), { once: true }));
  await Promise.race([graceful, forced.then(() => worker.close(true))]);
  const s = worker.stats();
  io.err(`worker ${worker.name}: stopped after ${s.finished} job(s), ${s.failed} failed, ${s.blobsFetched} blob(s) fetched\n`);
}

export function register(program: Command, io: CliIO): void {
  program
    .command('worker')
    .description('Run evaluation groups from a Redis queue (see --queue on eval, optimize, compare and bench)')
    .requiredOption('--queue <url>', 'redis://host:port[/db]')
    .option('--concurrency <n>', 'jobs at once, each in its own sandbox process', '1')
    .option('--lock-ms <ms>', 'how long a job stays claimed by a worker that stopped answering (default 30000)')
    .option('--quiet', 'print errors only, not every job')
    .action(async (opts: WorkerCommandOptions) => {
      const stop = new AbortController();
      const force = new AbortController();
      const onSignal = () => (stop.signal.aborted ? force.abort() : stop.abort());
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      try {
        await runWorkerCommand(opts, io, stop.signal, force.signal);
      } finally {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      }
    });
}
