/**
 * `createMemory().add` on a design with an `add` stage grows one memory (evaluation's one-pass path), in the sandbox
 * and in-process, with the same answers as a memory built in one batch.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { createMemory } from '../src/runtime/create-memory.ts';

const records = JSON.parse(
  readFileSync(fileURLToPath(new URL('./fixtures/designs/records-20.json', import.meta.url)), 'utf8'),
) as SourceRecord[];
const BASE = fileURLToPath(new URL('../seeds/base-bm25.ts', import.meta.url));
const LATEST_ADD = fileURLToPath(new URL('./fixtures/eval-designs/latest-first-add.ts', import.meta.url));
const THREAD_MERGE = fileURLToPath(new URL('./fixtures/eval-designs/thread-merge-add.ts', import.meta.url));
const QUESTIONS = ['What is the puppy called?', 'Where is Ana moving?', 'What did Dr. Silva say about the knee?', 'road bike'];

describe.each([
  ['sandboxed', true],
  ['in-process', false],
] as const)('createMemory add (%s)', (_name, sandbox) => {
  it('one record at a time answers exactly as one add of all (base-bm25)', async () => {
    const batch = await createMemory({ design: BASE, sandbox });
    const single = await createMemory({ design: BASE, sandbox });
    await batch.add(records);
    for (const r of records) await single.add([r]);
    expect(single.size).toBe(records.length);
    for (const q of QUESTIONS) {
      expect(await single.search(q)).toEqual(await batch.search(q));
      expect(await single.search({ text: q, date: '2023-06-02' })).toEqual(await batch.search({ text: q, date: '2023-06-02' }));
    }
    await batch.close();
    await single.close();
  });

  it('credits what an add changed in place in older units, as a memory built in one batch does', async () => {
    const batch = await createMemory({ design: THREAD_MERGE, sandbox });
    const single = await createMemory({ design: THREAD_MERGE, sandbox });
    await batch.add(records);
    for (const r of records) await single.add([r]);
    const whole = await batch.search('anything');
    // Every record sits in its thread's unit, most of them merged into a unit after it was first reported.
    expect(new Set(whole.evidence.map((e) => e.record)).size).toBe(records.length);
    expect(await single.search('anything')).toEqual(whole);
    await batch.close();
    await single.close();
  });

  it('grows the memory with the design add instead of storing everything again', async () => {
    const memory = await createMemory({ design: LATEST_ADD, sandbox });
    await memory.add(records.slice(0, 8));
    await memory.add(records.slice(8, 13));
    const r = await memory.add(records.slice(13));
    expect(r).toMatchObject({ records: 20, units: 20 });
    expect((await memory.search('anything')).context.split('\n')[0]).toBe('built: store 8, add 5, add 7');
    await memory.close();
  });

  it('a failed add adds nothing and leaves a memory that still answers', async () => {
    const memory = await createMemory({ design: LATEST_ADD, sandbox });
    await memory.add(records.slice(0, 8));
    await expect(memory.add([{ id: 'bad', kind: 'note', text: 'FAIL-ADD', time: '2023-09-01T00:00:00Z' }])).rejects.toMatchObject({
      code: 'E_DESIGN_STORE',
      message: expect.stringMatching(/add: .*cannot add that/),
    });
    expect(memory.size).toBe(8);
    const after = await memory.search('anything');
    expect(after.evidence[0]!.record).toBe('r08');
    expect(after.context.split('\n')[0]).toBe('built: store 8');
    expect((await memory.add(records.slice(8))).records).toBe(20);
    await memory.close();
  });
});
