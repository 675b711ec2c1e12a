/**
 * Prefetching training evaluations (SearchLoopOptions.prefetchTraining): each candidate's training evaluation starts
 * beside its validation run. The archive a search leaves must not change, only when the work happens: accepted
 * programs are diagnosed from the prefetched evaluation, rejected ones' are dropped, a failed prefetch is evaluated
 * again, and the search returns only after every evaluation it started has finished.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createArchive } from '../src/archive/index.ts';
import { QAItemSchema, type QAItem } from '../src/history/record.ts';
import type { CompileResult } from '../src/isolate/sandbox-api.ts';
import type { CandidateEvaluation, SearchEvaluator, SearchSplit } from '../src/optimize/candidate-evaluator.ts';
import type { Proposal, Proposer } from '../src/optimize/proposers/types.ts';
import { leavesProcessesIdle } from '../src/optimize/run-optimize.ts';
import { runSearch } from '../src/optimize/search-loop.ts';
import { acceptanceFromSpec, maxIterations, parentSelectorFromSpec } from '../src/optimize/strategies/index.ts';
import { summarize } from '../src/scoring/summary.ts';
import { SEED_PATH } from './fixtures/optimize/default-run.ts';

const seedSource = readFileSync(SEED_PATH, 'utf8');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const item = (id: string, split: SearchSplit, history = 'h'): QAItem =>
  QAItemSchema.parse({ id, history, question: `question ${id}?`, answer: 'a', answerType: 'text', evidence: [], split });

const topK = (source: string): number => Number(/const TOP_K = (\d+);/.exec(source)?.[1] ?? 0);

/** A slow fake evaluator (training slower than validation) that logs when each evaluation starts and ends. */
function timedEvaluator(failTrainOnce: number | null = null) {
  const log: string[] = [];
  let running = 0;
  let maxRunning = 0;
  let failed = false;
  const evaluator: SearchEvaluator = {
    questions: { train: [item('t1', 'train')], val: [item('v1', 'val')] },
    async evaluate(program, split): Promise<CandidateEvaluation> {
      const k = topK((program as { source: string }).source);
      log.push(`start ${split} ${k}`);
      maxRunning = Math.max(maxRunning, ++running);
      await new Promise((r) => setTimeout(r, split === 'train' ? 30 : 10));
      running--;
      log.push(`end ${split} ${k}`);
      if (split === 'train' && k === failTrainOnce && !failed) {
        failed = true;
        throw new Error('the pool lost this evaluation');
      }
      return {
        traces: [],
        summary: summarize([]),
        perQuestion: { 'h/v1': k / 100 },
        fitness: k / 100,
        provenance: () => false,
        key: `${split}:${k}`,
        cached: false,
        tokens: { prompt: 0, completion: 0 },
        ms: 1,
      };
    },
  };
  return { evaluator, log, maxRunning: () => maxRunning, running: () => running };
}

/** Proposes TOP_K 60, 55, 70, 65 in turn: accepted, rejected, accepted, rejected under `better`. */
function scriptedTopK(): Proposer {
  const values = [60, 55, 70, 65];
  return {
    name: 'scripted',
    async propose(): Promise<Proposal> {
      const value = values.shift()!;
      return { edits: [{ op: 'set-constant', name: 'TOP_K', value }], rationale: `TOP_K ${value}`, target: 'retrieval' };
    },
  };
}

const fakeCompile = async (source: string): Promise<CompileResult> => ({
  ok: true,
  program: { hash: String(topK(source)), js: '', source, fileName: 'design.ts' },
  ms: 0,
  cached: false,
});

async function search(prefetchTraining: boolean, failTrainOnce: number | null = null) {
  const dir = mkdtempSync(join(tmpdir(), 'memsteer-prefetch-'));
  dirs.push(dir);
  const fake = timedEvaluator(failTrainOnce);
  const archive = createArchive(join(dir, 'run'), {
    config: {},
    seeds: [{ path: SEED_PATH, sha256: 'x' }],
    models: {},
    promptVersions: {},
    rngSeed: 1,
  });
  const result = await runSearch({
    archive,
    evaluator: fake.evaluator,
    proposer: scriptedTopK(),
    select: parentSelectorFromSpec('greedy'),
    accept: acceptanceFromSpec('better'),
    stop: maxIterations(4),
    compile: fakeCompile,
    objective: 'evidence',
    seeds: [{ label: 'seeds/base-bm25.ts', source: seedSource }],
    records: [],
    rngSeed: 1,
    prefetchTraining,
  });
  const programs = result.state.programs.map((p) => ({
    k: topK(archive.source(p.id)),
    status: p.status,
    score: p.scores?.value,
    diagnosed: archive.diagnosis(p.id) !== null,
  }));
  return { ...fake, result, programs, runningAtReturn: fake.running() };
}

describe('prefetching training evaluations', () => {
  it('runs each training evaluation beside its validation run and leaves the same archive', async () => {
    const plain = await search(false);
    const prefetched = await search(true);
    expect(prefetched.programs).toEqual(plain.programs);
    expect(prefetched.programs.filter((p) => p.status === 'accepted').map((p) => p.k)).toEqual([50, 60, 70]);
    // Without prefetch one evaluation at a time, and only accepted programs on train.
    expect(plain.maxRunning()).toBe(1);
    expect(plain.log.filter((l) => l.startsWith('start train'))).toEqual(['start train 50', 'start train 60', 'start train 70']);
    // With it, every program's training evaluation starts before its validation run ends, each exactly once.
    // (A rejected program's evaluation may still run beside the next pair: the pool, not the search, bounds that.)
    expect(prefetched.maxRunning()).toBeGreaterThanOrEqual(2);
    for (const k of [50, 60, 55, 70, 65]) {
      const log = prefetched.log;
      expect(log.filter((l) => l === `start train ${k}`)).toHaveLength(1);
      expect(log.indexOf(`start train ${k}`)).toBeLessThan(log.indexOf(`end val ${k}`));
    }
  });

  it('returns only after every evaluation it started has finished, the dropped ones too', async () => {
    const { log, runningAtReturn } = await search(true);
    expect(runningAtReturn).toBe(0);
    expect(log.filter((l) => l.startsWith('end train'))).toHaveLength(5);
  });

  it('evaluates again when a prefetched evaluation failed', async () => {
    const { log, programs } = await search(true, 60);
    expect(log.filter((l) => l === 'start train 60')).toHaveLength(2);
    expect(programs.find((p) => p.k === 60)).toMatchObject({ status: 'accepted' });
  });
});

describe('leavesProcessesIdle', () => {
  const val = [item('a', 'val', 'h1'), item('b', 'val', 'h1')];
  it('holds when the local pool has a process to spare beyond one per history and one for the host', () => {
    expect(leavesProcessesIdle({ size: 3, timelines: true }, val)).toBe(true);
    expect(leavesProcessesIdle({ size: 2, timelines: true }, val)).toBe(false);
    expect(leavesProcessesIdle({ size: 3, timelines: true }, [...val, item('c', 'val', 'h2')])).toBe(false);
    expect(leavesProcessesIdle({ size: 8, timelines: true }, [...val, item('c', 'val', 'h2')])).toBe(true);
  });
  it('counts the shards a history asked on several days is split into', () => {
    const days = ['2024-01-05', '2024-02-05', '2024-03-05'];
    const many = Array.from({ length: 141 }, (_, i) => ({ ...item(`q${i}`, 'val', 'h1'), date: days[i % 3]! }));
    // 141 questions fill three processes (one shard per 32 questions at most) and four of eight.
    expect(leavesProcessesIdle({ size: 3, timelines: true }, many)).toBe(false);
    expect(leavesProcessesIdle({ size: 8, timelines: true }, many)).toBe(true);
    // Asked on one day, they are one task.
    expect(
      leavesProcessesIdle(
        { size: 3, timelines: true },
        many.map((q) => ({ ...q, date: days[0]! })),
      ),
    ).toBe(true);
  });
  it('never holds on a queue, whose workers take date groups one by one', () => {
    expect(leavesProcessesIdle({ size: 8, timelines: false }, val)).toBe(false);
  });
});
