import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MemoryDesign } from '../sandbox/contract.ts';
import { SHARD_MIN_QUESTIONS, shardCounts, shardGroups } from '../src/evaluate/eval-shards.ts';
import { runTimeline } from '../src/evaluate/eval-timeline.ts';
import type { EvaluateOptions } from '../src/evaluate/evaluate.ts';
import { directSandboxFactory } from '../src/isolate/direct-sandbox.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import type { CompiledProgram, SandboxFactory } from '../src/isolate/sandbox-api.ts';
import type { QuestionTrace } from '../src/scoring/trace.ts';
import { ANA_DATED_QUESTIONS, anaPoolSuite, FIX } from './helpers/ana-history.ts';
import latestFirst from './fixtures/eval-designs/latest-first.ts';
import latestFirstAdd from './fixtures/eval-designs/latest-first-add.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const QUESTIONS = ANA_DATED_QUESTIONS;

const { programs, evaluate } = anaPoolSuite({
  tiny: join(FIX, 'designs', 'good', 'tiny-bm25.ts'),
  base: join(ROOT, 'seeds', 'base-bm25.ts'),
  counter: join(FIX, 'eval-designs', 'asked-counter-add.ts'),
});

function run(program: CompiledProgram, extra: Partial<EvaluateOptions<unknown>> = {}) {
  return evaluate(program, QUESTIONS, extra);
}

/** What a question's evaluation found and scored (times and per-question tool counts move with the split). */
const outcome = (t: QuestionTrace) => ({
  question: t.question,
  ranked: t.ranked,
  rankedRecords: t.rankedRecords,
  delivered: t.delivered,
  context: t.contextText,
  answer: t.answer,
  scores: t.scores,
  error: t.error,
});

describe('how many shards a history gets', () => {
  it('fills idle processes, at most one shard per SHARD_MIN_QUESTIONS questions', () => {
    expect(shardCounts([141], 2)).toEqual([2]);
    expect(shardCounts([SHARD_MIN_QUESTIONS * 2 - 1], 2)).toEqual([1]);
    expect(shardCounts([10], 8)).toEqual([1]);
    expect(shardCounts([100], 8)).toEqual([3]);
    expect(shardCounts([1000], 8)).toEqual([8]);
    // Two histories on two processes already fill the pool; on eight, each gets four.
    expect(shardCounts([500, 40], 2)).toEqual([1, 1]);
    expect(shardCounts([500, 40], 8)).toEqual([4, 1]);
  });

  it('takes a forced count, never above the questions there are', () => {
    expect(shardCounts([7, 2, 0], 2, 3)).toEqual([3, 2, 1]);
    expect(shardCounts([500], 8, 1)).toEqual([1]);
  });
});

describe('splitting one history into shards', () => {
  // Groups in time order; a group's weight stands for the records its memory holds.
  const groups = [
    { items: ['a', 'b'], w: 8 },
    { items: ['c', 'd'], w: 13 },
    { items: ['e'], w: 17 },
    { items: ['f', 'g'], w: 20 },
  ];
  const split = (k: number) =>
    shardGroups<string, { items: string[]; w: number }>(
      groups,
      k,
      (g) => g.w,
      (g, items) => ({ ...g, items }),
    ).map((shard) => shard.map((g) => g.items));

  it('cuts consecutive questions where the running weight crosses each k-th of the total', () => {
    // Weights 8, 8, 13, 13, 17, 20, 20 (99): the halves meet between d and e.
    expect(split(2)).toEqual([
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
      [[], [], ['e'], ['f', 'g']],
    ]);
    expect(split(3)).toEqual([
      [['a', 'b'], ['c']],
      [[], ['d'], ['e']],
      [[], [], [], ['f', 'g']],
    ]);
  });

  it('leaves the plan whole for one shard, and never makes an empty shard', () => {
    expect(split(1)).toEqual([groups.map((g) => g.items)]);
    expect(split(7).flat(2).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(split(7).every((shard) => shard.length > 0 && shard.at(-1)!.length > 0)).toBe(true);
  });
});

describe('a sharded evaluation', () => {
  it('scores every question as one pass does, for designs with and without add', async () => {
    for (const program of [programs.base!, programs.tiny!]) {
      const whole = await run(program, { shards: 1 });
      expect(whole.traces.every((t) => !t.error)).toBe(true);
      for (const shards of [2, 3]) {
        const split = await run(program, { shards });
        expect(split.traces.map(outcome)).toEqual(whole.traces.map(outcome));
        expect(split.recoverable).toEqual(whole.recoverable);
        const untimed = (summary: unknown) => ({ ...(summary as object), meanTimeMs: null });
        expect(untimed(split.summary)).toEqual(untimed(whole.summary));
        expect(split.cacheKey).not.toBe(whole.cacheKey);
      }
    }
  });

  it('counts only the memory builds that answer questions', async () => {
    expect((await run(programs.tiny!, { shards: 1 })).stats.groups).toBe(4);
    // Shards of 3, 2 and 2 questions: q-mid and q-mid2 share a date but not a shard.
    expect((await run(programs.tiny!, { shards: 3 })).stats.groups).toBe(5);
  });

  it('builds the same memory in every shard; what retrieve changes reaches only the shard’s later questions', async () => {
    const context = async (shards: number) =>
      new Map((await run(programs.counter!, { shards })).traces.map((t) => [t.question, t.contextText]));
    const whole = await context(1);
    expect(whole.get('q-early')).toBe('store 8 | asked 1');
    expect(whole.get('q-knee')).toBe('store 8, add 5, add 4 | asked 5');
    expect(whole.get('q-bike')).toBe('store 8, add 5, add 4, add 3 | asked 7');
    const split = await context(2);
    expect(split.get('q-early')).toBe('store 8 | asked 1');
    expect(split.get('q-mid2')).toBe('store 8, add 5 | asked 4');
    expect(split.get('q-knee')).toBe('store 8, add 5, add 4 | asked 1');
    expect(split.get('q-puppy')).toBe('store 8, add 5, add 4, add 3 | asked 2');
    expect(split.get('q-bike')).toBe('store 8, add 5, add 4, add 3 | asked 3');
  });

  it('builds a shard’s question-less date groups only for a design with add', async () => {
    const built = async (design: MemoryDesign, shards: number): Promise<number> => {
      let sandboxes = 0;
      const direct = directSandboxFactory(design, createHostTools);
      const counting: SandboxFactory = {
        ...direct,
        createSandbox: (...args) => {
          sandboxes++;
          return direct.createSandbox(...args);
        },
      };
      const r = await run(programs.tiny!, {
        shards,
        timelineRunner: (task, program, recs, _hash, onGroup) => runTimeline(task, program, recs, counting, {}, onGroup),
      });
      expect(r.traces.every((t) => !t.error)).toBe(true);
      return sandboxes;
    };
    // Without add every group is built afresh, and shard 1 (q-knee, q-puppy, q-bike) skips the two dates before its
    // first question: 2 + 2 builds, as many as one pass makes.
    expect(await built(latestFirst, 1)).toBe(4);
    expect(await built(latestFirst, 2)).toBe(4);
    // With add each shard keeps one memory and grows it through every date up to its last question.
    expect(await built(latestFirstAdd, 1)).toBe(1);
    expect(await built(latestFirstAdd, 2)).toBe(2);
  });
});
