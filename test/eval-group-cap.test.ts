/**
 * Bounded cost of one evaluation group: a design whose `retrieve` loops forever fails its group once (one timed-out
 * call, attributed to retrieve), not once per question; a design slow enough to stay under the per-call limit is
 * stopped by the group's wall-clock cap, again under the stage that spent the time.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Hit, MemoryDesign, Question, SourceRecord } from '../sandbox/contract.ts';
import { compileDesign } from '../src/design/compile.ts';
import { runGroup, type GroupTask } from '../src/evaluate/eval-group.ts';
import { directSandboxFactory } from '../src/isolate/direct-sandbox.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import { createSandbox } from '../src/isolate/sandbox-runner.ts';

const FIX = new URL('./fixtures/designs/', import.meta.url);
const records = (JSON.parse(readFileSync(new URL('records-20.json', FIX), 'utf8')) as SourceRecord[]).slice(0, 6);
const questions: Question[] = Array.from({ length: 6 }, (_, i) => ({ id: `q${i + 1}`, text: `question ${i + 1} about the puppy` }));

function task(extra: Partial<GroupTask> = {}): GroupTask {
  return {
    programKey: 'p',
    recordsKey: 'r',
    history: 'h',
    cutoff: null,
    questions,
    gold: {},
    budget: { tokens: 200 },
    limits: { storeTimeoutMs: 5_000, callTimeoutMs: 300 },
    bridge: { llm: false, embedder: null },
    toolOptions: {},
    rankCap: 10,
    recordCap: 10,
    ...extra,
  };
}

describe('per-group cost bound', () => {
  it('a retrieve that loops forever times out twice, and the rest of its group fails under retrieve without running', async () => {
    const file = new URL('hostile/loop-retrieve.ts', FIX);
    const compiled = await compileDesign(readFileSync(file, 'utf8'), { fileName: file.pathname });
    if (!compiled.ok) throw new Error('loop-retrieve does not compile');
    const r = await runGroup(task(), compiled.program, records, { createHostTools, createSandbox }, {});
    expect(r.failure).toBeUndefined(); // store worked: this is not a store failure
    expect(r.questions).toHaveLength(questions.length);
    for (const q of r.questions) expect(q.failure).toMatchObject({ stage: 'retrieve', kind: 'timeout' });
    // only the first two questions' retrieve ran (and timed out); the others never started
    expect(r.questions.slice(0, 2).every((q) => q.timeMs.retrieve > 0)).toBe(true);
    expect(r.questions.slice(2).every((q) => q.timeMs.retrieve === 0)).toBe(true);
    expect(r.questions[2]!.failure!.message).toMatch(/2 questions in a row timed out, the group's other 4 were skipped/);
    expect(r.rebuilds).toBe(0);
  }, 30_000);

  it('one question that times out does not cost the group its other questions', async () => {
    const source = `import type { MemoryDesign } from '../sandbox/contract.ts';
export default {
  store: (records) => ({ units: records.map((r) => ({ id: r.id, text: r.text, sources: [r.id] })) }),
  retrieve(q, memory) {
    if (q.id === 'q2') for (;;) {}
    return memory.units.slice(0, 2).map((u, i) => ({ unit: u.id, score: 1 - i / 10 }));
  },
  context: (_q, hits) => ({ text: hits.map((h) => h.unit).join(' '), units: hits.map((h) => h.unit) }),
} satisfies MemoryDesign;
`;
    const compiled = await compileDesign(source, { fileName: 'one-slow.ts' });
    if (!compiled.ok) throw new Error(compiled.diagnostics.map((d) => d.message).join('; '));
    const r = await runGroup(task(), compiled.program, records, { createHostTools, createSandbox }, {});
    expect(r.questions.map((q) => q.failure?.kind ?? 'ok')).toEqual(['ok', 'timeout', 'ok', 'ok', 'ok', 'ok']);
  }, 30_000);

  it('a design that stays under the per-call limit but is slow overall is stopped by the group cap', async () => {
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end) {
        // burn the time a slow retrieval would
      }
    };
    const slow: MemoryDesign = {
      store: (rs) => ({ units: rs.map((x) => ({ id: x.id, text: x.text, sources: [x.id] })) }),
      retrieve: (_q, memory): Hit[] => {
        busy(30);
        return memory.units.slice(0, 2).map((u, i) => ({ unit: u.id, score: 1 - i / 10 }));
      },
      context: (_q, hits) => ({ text: hits.map((h) => h.unit).join(' '), units: hits.map((h) => h.unit) }),
    };
    const factory = directSandboxFactory(slow, createHostTools);
    const program = { hash: 'slow', js: '', source: '', fileName: 'slow.ts' };
    const r = await runGroup(task({ groupTimeoutMs: 50 }), program, records, factory, {});
    expect(r.questions[0]!.failure).toBeUndefined();
    const capped = r.questions.filter((q) => q.failure);
    expect(capped.length).toBeGreaterThan(0);
    expect(r.questions[questions.length - 1]!.failure).toMatchObject({ stage: 'retrieve', kind: 'timeout' });
    expect(capped[0]!.failure!.message).toMatch(/50 ms wall-clock cap/);
    // without the cap every question runs
    const free = await runGroup(task(), program, records, factory, {});
    expect(free.questions.every((q) => !q.failure)).toBe(true);
  });
});
