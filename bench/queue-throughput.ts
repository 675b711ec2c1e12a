/**
 * Questions per second of one design on LoCoMo (categories 1–4, full pipeline: offline extractive answerer and
 * scoring on the host), in one run:
 *   - local:  the local sandbox pool with 1 and with 2 child processes;
 *   - queue:  the same evaluation through a Redis queue (BullMQ) with 1 and with 2 `memsteer worker` processes
 *             (concurrency 1 each), all on this machine;
 * reported as ratios queue / local at the same parallelism. Starts its own redis-server on a free port unless
 * `--queue redis://…` is given.
 *
 *   npx tsx bench/queue-throughput.ts [--design seeds/base-bm25.ts] [--history locomo:…] [--queue redis://…] [--rounds 1]
 *
 * Every mode is warmed first on a small unrelated history (worker start-up, blob fetches and JIT are not
 * throughput); each queued evaluation has its own run id, so no result is reused. Not part of `npm test`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../src/evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram, type EvalPool } from '../src/evaluate/evaluate.ts';
import { loadHistories } from '../src/history/load.ts';
import type { QAItem } from '../src/history/record.ts';
import { args, flag } from './args.ts';
import { compileBenchDesign, warmHistory, warmQuestions as warmQuestionsFor } from './warm-up.ts';

const DESIGN = resolve(flag('design', 'seeds/base-bm25.ts'));
const HISTORY = flag('history', `locomo:${resolve('../shared/data/locomo/locomo10.json')}`);
const ROUNDS = Number(flag('rounds', '1'));
const BUDGET = { tokens: 2000 };
const BIN = resolve('bin/memsteer.js');

const program = await compileBenchDesign(DESIGN);
const histories = await loadHistories(HISTORY);
const questions: QAItem[] = histories.flatMap((h) => h.qa).filter((q) => ['1', '2', '3', '4'].includes(q.category ?? ''));
const warmQuestions = warmQuestionsFor(['What is the puppy called?', 'What bike was bought?', 'Where is the move?']);

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}

async function ownRedis(): Promise<{ url: string; stop: () => void }> {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0)
    throw new Error('redis-server is not installed (apt-get install redis-server), and no --queue was given');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'memsteer-bench-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]);
  await new Promise<void>((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/i.test(out)) ok();
    });
    child.on('exit', (code) => fail(new Error(`redis-server exited with ${code}: ${out}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startWorkers(url: string, n: number): Promise<ChildProcess[]> {
  const workers = Array.from({ length: n }, () =>
    spawn(process.execPath, [BIN, 'worker', '--queue', url, '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] }),
  );
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((ok, fail) => {
          let err = '';
          w.stderr!.on('data', (d: Buffer) => {
            err += d.toString();
            if (err.includes('sandbox process')) ok();
          });
          w.on('exit', (code) => fail(new Error(`worker exited with ${code}: ${err}`)));
        }),
    ),
  );
  return workers;
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  await Promise.all(
    workers.map((w) => {
      const gone = new Promise<void>((ok) => w.once('exit', () => ok()));
      w.kill('SIGTERM');
      return gone;
    }),
  );
}

async function measure(pool: EvalPool): Promise<{ qps: number; r10: number }> {
  const scorer = evalScorerFrom(null);
  const common = { program, budget: BUDGET, answerer: evalAnswererFrom(null), score: scorer.score, summarize: summarizeTraces, pool };
  await evaluateProgram({ ...common, histories: [warmHistory], questions: warmQuestions });
  const t = performance.now();
  const r = await evaluateProgram({ ...common, histories, questions });
  const ms = performance.now() - t;
  const failed = r.traces.filter((x) => x.error).length;
  if (failed) throw new Error(`${failed} questions failed, e.g. ${JSON.stringify(r.traces.find((x) => x.error)!.error)}`);
  return { qps: questions.length / (ms / 1000), r10: r.summary.recallAt['10'] ?? 0 };
}

const given = args.includes('--queue') ? flag('queue', '') : null;
const redis = given ? { url: given, stop: () => {} } : await ownRedis();
const rows: Array<{ round: number; parallelism: number; local: number; queue: number; ratio: number }> = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const n of [1, 2]) {
      const local = createEvalPool({ size: n });
      let l: { qps: number; r10: number };
      try {
        l = await measure(local);
      } finally {
        await local.close();
      }
      const workers = await startWorkers(redis.url, n);
      const queued = createEvalPool({ queue: { url: redis.url, runId: `bench-${randomUUID()}` } });
      let q: { qps: number; r10: number };
      try {
        q = await measure(queued);
      } finally {
        await queued.close();
        await stopWorkers(workers);
      }
      if (Math.abs(l.r10 - q.r10) > 1e-9) throw new Error(`local and queue disagree: R@10 ${l.r10} vs ${q.r10}`);
      rows.push({ round, parallelism: n, local: l.qps, queue: q.qps, ratio: q.qps / l.qps });
    }
  }
} finally {
  redis.stop();
}

console.log(
  `design ${DESIGN}\nhistory ${HISTORY}: ${histories.length} histories, ${questions.length} questions (categories 1-4), ` +
    `budget ${BUDGET.tokens}, full pipeline`,
);
console.log(
  `local: pool of N child processes; queue: N memsteer workers (concurrency 1) on ${redis.url}; ` +
    `machine parallelism ${availableParallelism()}`,
);
console.table(
  rows.map((r) => ({
    round: r.round,
    'N (processes / workers)': r.parallelism,
    local: `${r.local.toFixed(0)} q/s`,
    queue: `${r.queue.toFixed(0)} q/s`,
    'queue / local': `${r.ratio.toFixed(2)}x`,
  })),
);
const byN = (n: number) => rows.filter((r) => r.parallelism === n);
const q1 = Math.max(...byN(1).map((r) => r.queue));
const q2 = Math.max(...byN(2).map((r) => r.queue));
console.log(`queue scaling: 2 workers / 1 worker = ${(q2 / q1).toFixed(2)}x`);
