import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EvaluateOptions } from '../src/evaluate/evaluate.ts';
import type { History } from '../src/history/record.ts';
import type { CompiledProgram } from '../src/isolate/sandbox-api.ts';
import { PoolTaskError } from '../src/pool/pool.ts';
import type { QuestionTrace } from '../src/scoring/trace.ts';
import { ANA_DATED_QUESTIONS, anaHistory, anaRecords, anaPoolSuite, FIX } from './helpers/ana-history.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const records = anaRecords;
const history = anaHistory;
const QUESTIONS = ANA_DATED_QUESTIONS;

const { programs, evaluate } = anaPoolSuite({
  tiny: join(FIX, 'designs', 'good', 'tiny-bm25.ts'),
  latestAdd: join(FIX, 'eval-designs', 'latest-first-add.ts'),
  base: join(ROOT, 'seeds', 'base-bm25.ts'),
});

function run(program: CompiledProgram, extra: Partial<EvaluateOptions<unknown>> = {}, histories: History[] = [history]) {
  return evaluate(program, QUESTIONS, extra, histories);
}

/** A trace without its timings (the only part that may differ between two runs). */
function timeless(t: QuestionTrace): Omit<QuestionTrace, 'timeMs'> {
  const { timeMs: _timeMs, ...rest } = t;
  return rest;
}

describe('one pass over time', () => {
  it('a design without add gets exactly the results of the rebuild path', async () => {
    const pass = await run(programs.tiny!, { replay: 'timeline' });
    const rebuild = await run(programs.tiny!, { replay: 'groups' });
    expect(pass.stats.groups).toBe(4);
    expect(pass.traces.map(timeless)).toEqual(rebuild.traces.map(timeless));
    expect(pass.recoverable).toEqual(rebuild.recoverable);
    expect(pass.traces.every((t) => !t.error)).toBe(true);
  });

  it('a design with add stores once and adds up to each date; nothing dated later reaches a question', async () => {
    const r = await run(programs.latestAdd!);
    const byId = new Map(r.traces.map((t) => [t.question, t]));
    const built = (id: string) => byId.get(id)!.contextText.split('\n')[0];
    expect(built('q-early')).toBe('built: store 8');
    expect(built('q-future')).toBe('built: store 8');
    expect(built('q-mid')).toBe('built: store 8, add 5');
    expect(built('q-knee')).toBe('built: store 8, add 5, add 4');
    expect(built('q-puppy')).toBe('built: store 8, add 5, add 4, add 3');
    const timeOf = new Map(records.map((x) => [x.id, x.time!]));
    for (const t of r.traces) {
      const q = QUESTIONS.find((x) => x.id === t.question)!;
      if (!q.date) continue;
      for (const id of [...t.rankedRecords, ...t.deliveredRecords]) expect(timeOf.get(id)!.slice(0, 10) <= q.date).toBe(true);
    }
    expect(byId.get('q-early')!.rankedRecords[0]).toBe('r08');
    expect(byId.get('q-mid')!.rankedRecords[0]).toBe('r13');
    expect(byId.get('q-knee')!.rankedRecords[0]).toBe('r17');
    expect(byId.get('q-puppy')!.rankedRecords[0]).toBe('r20');
    expect(r.recoverable['q-future']).toEqual([]);
    expect(r.recoverable['q-knee']).toEqual(['r16']);
  });

  it('a failing add fails that date group only; the next group stores from scratch', async () => {
    const poisoned = records.map((x) => (x.id === 'r15' ? { ...x, text: `${x.text} FAIL-ADD` } : x));
    const r = await run(programs.latestAdd!, {}, [{ ...history, records: poisoned }]);
    const byId = new Map(r.traces.map((t) => [t.question, t]));
    expect(byId.get('q-knee')!.error).toMatchObject({ stage: 'store', kind: 'throw' });
    expect(byId.get('q-knee')!.error!.message).toMatch(/^add: .*cannot add that/);
    expect(byId.get('q-mid')!.error).toBeUndefined();
    expect(byId.get('q-puppy')!.error).toBeUndefined();
    expect(byId.get('q-puppy')!.contextText.split('\n')[0]).toBe('built: store 20');
    expect(r.stats.failedGroups).toBe(1);
  });

  it('seeds/base-bm25 (store + add) answers as when memory is rebuilt for every date', async () => {
    const pass = await run(programs.base!, { replay: 'timeline' });
    const rebuild = await run(programs.base!, { replay: 'groups' });
    const view = (t: QuestionTrace) => ({ ranked: t.ranked, delivered: t.delivered, context: t.contextText, answer: t.answer });
    expect(pass.traces.map(view)).toEqual(rebuild.traces.map(view));
    expect(pass.traces.every((t) => !t.error)).toBe(true);
  });

  it('a crash mid-pass fails only the groups not yet reported, with the reason recorded', async () => {
    const r = await run(programs.tiny!, {
      runner: () => Promise.reject(new Error('single groups are not used here')),
      timelineRunner: async (task, _program, _records, _hash, onGroup) => {
        await onGroup(0, {
          visibleRecords: 8,
          units: 8,
          createMs: 0,
          storeMs: 0,
          store: { toolCalls: {}, log: [], llmTokens: { prompt: 0, completion: 0 } },
          rebuilds: 0,
          bm25CacheHits: 0,
          questions: task.groups[0]!.questions.map((q) => ({
            id: q.id,
            ranked: [],
            rankedRecords: [],
            budgetRecords: [],
            unverifiedSources: 0,
            delivered: [],
            deliveredRecords: [],
            context: { text: 'nothing', tokens: 1 },
            timeMs: { retrieve: 0, context: 0 },
            toolCalls: {},
            log: [],
            llmTokens: { prompt: 0, completion: 0 },
            recoverable: [],
          })),
        });
        throw new PoolTaskError('crash', 'the sandbox process died (signal SIGKILL)');
      },
    });
    const byId = new Map(r.traces.map((t) => [t.question, t]));
    expect(byId.get('q-early')!.error).toBeUndefined();
    expect(byId.get('q-future')!.error).toBeUndefined();
    for (const id of ['q-mid', 'q-mid2', 'q-knee', 'q-puppy', 'q-bike']) {
      expect(byId.get(id)!.error).toMatchObject({ stage: 'store', kind: 'crash' });
      expect(byId.get(id)!.error!.message).toMatch(/SIGKILL.*finished 1 of 4 date groups/);
    }
    expect(r.stats).toMatchObject({ crashes: 1, failedGroups: 3, groups: 4 });
  });
});
