import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { compileDesign } from '../src/design/compile.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import type { CompiledProgram, Sandbox } from '../src/isolate/sandbox-api.ts';
import { createSandbox } from '../src/isolate/sandbox-runner.ts';

const HEAD = `import type { Bm25Index, Hit, Memory, MemoryUnit, Question, SourceRecord, Tools } from '../sandbox/contract.ts';\n`;

/**
 * Units per record; add appends. retrieve obeys commands in the question text, to change memory behind the host's
 * back: "drop <id>" removes a unit, "resource <id> <record>" swaps a unit's sources in place, "reverse" reorders.
 */
const GROWING = `${HEAD}
const unitOf = (r: SourceRecord): MemoryUnit => ({ id: 'u:' + r.id, text: r.text, sources: [r.id] });
export default {
  store(records: SourceRecord[], tools: Tools): Memory {
    const units = records.map(unitOf);
    return { units, state: { index: tools.bm25.index(units.map((u) => ({ id: u.id, text: u.text }))) } };
  },
  add(memory: Memory, records: SourceRecord[]): Memory {
    if (records.some((r) => r.text === 'boom')) throw new Error('add failed on purpose');
    // "retag <unit> <record>": change an older unit's sources in place while appending (not a new array).
    for (const r of records.filter((x) => x.text.startsWith('retag '))) {
      const [, unit, record] = r.text.split(' ');
      memory.units.find((u) => u.id === unit)!.sources[0] = record!;
    }
    const units = records.map(unitOf);
    const state = memory.state as { index: Bm25Index };
    state.index = state.index.add(units.map((u) => ({ id: u.id, text: u.text })));
    memory.units.push(...units);
    return memory;
  },
  retrieve(q: Question, memory: Memory): Hit[] {
    const [cmd, a, b] = q.text.split(' ');
    if (cmd === 'drop') memory.units = memory.units.filter((u) => u.id !== a);
    if (cmd === 'resource') memory.units.find((u) => u.id === a)!.sources[0] = b!;
    if (cmd === 'reverse') memory.units.reverse();
    if (cmd === 'search') return (memory.state as { index: Bm25Index }).index.search(a!, 10);
    return [];
  },
  context() { return { text: '', units: [] }; },
};`;

const STORE_ONLY = `${HEAD}
export default {
  store(records: SourceRecord[]): Memory { return { units: records.map((r) => ({ id: r.id, text: r.text, sources: [r.id] })) }; },
  retrieve(): Hit[] { return []; },
  context() { return { text: '', units: [] }; },
};`;

const rec = (id: string, text: string): SourceRecord => ({ id, kind: 'note', text });
const R = [
  rec('a', 'golden retriever puppy'),
  rec('b', 'half marathon in Lisbon'),
  rec('c', 'pottery class on Tuesday'),
  rec('d', 'lemon tree in the garden'),
  rec('e', 'a blue road bike'),
];

async function open(source: string): Promise<Sandbox> {
  const compiled = await compileDesign(source, { fileName: 'design.ts' });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.diagnostics));
  const created = await createSandbox(compiled.program as CompiledProgram, createHostTools());
  if (!created.ok) throw new Error(created.failure.message);
  return created.sandbox;
}

async function units(s: Sandbox) {
  const r = await s.memoryUnits();
  if (!r.ok) throw new Error(r.failure.message);
  return r.value.map((u) => `${u.id}<${u.sources.join(',')}`);
}

describe('sandbox add stage', () => {
  it('grows memory with the design add; provenance follows every change the design makes', async () => {
    const s = await open(GROWING);
    expect(s.incremental).toBe(true);
    expect((await s.store(R.slice(0, 2))).ok).toBe(true);
    expect(await units(s)).toEqual(['u:a<a', 'u:b<b']);
    const added = await s.add(R.slice(2, 4));
    expect(added).toMatchObject({ ok: true, value: { units: 4 } });
    expect(await units(s)).toEqual(['u:a<a', 'u:b<b', 'u:c<c', 'u:d<d']);
    await s.retrieve({ id: 'q1', text: 'resource u:b c' });
    expect(await units(s)).toEqual(['u:a<a', 'u:b<c', 'u:c<c', 'u:d<d']);
    await s.retrieve({ id: 'q2', text: 'drop u:a' });
    expect(await units(s)).toEqual(['u:b<c', 'u:c<c', 'u:d<d']);
    await s.retrieve({ id: 'q3', text: 'reverse' });
    expect(await units(s)).toEqual(['u:d<d', 'u:c<c', 'u:b<c']);
    expect((await s.add([R[4]!])).ok).toBe(true);
    expect(await units(s)).toEqual(['u:d<d', 'u:c<c', 'u:b<c', 'u:e<e']);
    // A new store starts over.
    expect((await s.store([R[0]!])).ok).toBe(true);
    expect(await units(s)).toEqual(['u:a<a']);
    s.dispose();
  });

  it('an add that changes older units in place is caught before the memory is next read', async () => {
    const s = await open(GROWING);
    await s.store(R.slice(0, 3));
    expect(await units(s)).toEqual(['u:a<a', 'u:b<b', 'u:c<c']);
    // The add reports what it appended at once; whether it touched the older units is owed until the next read.
    const added = await s.add([rec('f', 'retag u:a c')]);
    expect(added).toMatchObject({ ok: true, value: { units: 4, unchecked: true } });
    expect(added.ok && added.value.appended?.map((u) => u.id)).toEqual(['u:f']);
    expect(await units(s)).toEqual(['u:a<c', 'u:b<b', 'u:c<c', 'u:f<f']);
    // An older unit made invalid in place fails the next read, and leaves no memory until the next store.
    expect((await s.add([rec('g', 'retag u:b nowhere')])).ok).toBe(true);
    expect(await s.retrieve({ id: 'q', text: 'search lemon' })).toMatchObject({
      ok: false,
      failure: { kind: 'malformed', message: /after add: memory\.units\[1\]\.sources\[0\] = "nowhere" is not the id of a stored record/ },
    });
    expect(await s.retrieve({ id: 'q', text: 'search lemon' })).toMatchObject({ ok: false, failure: { message: /no memory/ } });
    expect((await s.store(R)).ok).toBe(true);
    expect(await units(s)).toHaveLength(5);
    s.dispose();
  });

  it('an index grown inside the isolate answers as one built over every document', async () => {
    const grown = await open(GROWING);
    await grown.store(R.slice(0, 2));
    await grown.add(R.slice(2));
    const whole = await open(GROWING);
    await whole.store(R);
    for (const word of ['garden', 'puppy', 'bike', 'class']) {
      const q = { id: `q-${word}`, text: `search ${word}` };
      const a = await grown.retrieve(q);
      expect(a.ok && a.value.length).toBeGreaterThan(0);
      expect(a).toMatchObject({ ok: true, value: ((await whole.retrieve(q)) as { value: unknown }).value });
    }
    grown.dispose();
    whole.dispose();
  });

  it('refuses add without the stage, before store, and for a record already stored', async () => {
    const plain = await open(STORE_ONLY);
    expect(plain.incremental).toBe(false);
    await plain.store(R.slice(0, 2));
    expect(await plain.add([R[2]!])).toMatchObject({ ok: false, failure: { stage: 'store', kind: 'malformed', message: /no add stage/ } });
    plain.dispose();
    const s = await open(GROWING);
    expect(await s.add([R[0]!])).toMatchObject({ ok: false, failure: { kind: 'malformed', message: /no memory yet/ } });
    await s.store(R.slice(0, 2));
    expect(await s.add([R[1]!])).toMatchObject({ ok: false, failure: { kind: 'malformed', message: /record b is already stored/ } });
    s.dispose();
  });

  it('after a failed add there is no memory until the next store', async () => {
    const s = await open(GROWING);
    await s.store(R.slice(0, 2));
    const failed = await s.add([rec('x', 'boom')]);
    expect(failed).toMatchObject({ ok: false, failure: { stage: 'store', kind: 'throw', message: /add failed on purpose/ } });
    expect(s.alive).toBe(true);
    expect(await s.retrieve({ id: 'q', text: 'anything' })).toMatchObject({
      ok: false,
      failure: { kind: 'malformed', message: /no memory/ },
    });
    expect((await s.store(R)).ok).toBe(true);
    expect(await units(s)).toHaveLength(5);
    s.dispose();
  });
});
