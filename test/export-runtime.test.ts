/**
 * The app-facing runtime (`createMemory`) on a tiny design, sandboxed and in-process: add / search / close,
 * question dates, the budget, and every failure a user can meet (with its code, stage and reason).
 */
import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { createMemory, type Memory } from '../src/runtime/create-memory.ts';
import { DesignError } from '../src/runtime/design-error.ts';

const DESIGN = `import type { Context, Hit, Memory, MemoryDesign, Question, SourceRecord, Tools } from '../sandbox/contract.ts';

const design: MemoryDesign = {
  store(records: SourceRecord[]): Memory {
    if (records.some((r) => r.text.includes('POISON'))) throw new Error('cannot store poison');
    return { units: records.map((r) => ({ id: 'u-' + r.id, text: r.text, sources: [r.id], ...(r.time ? { time: r.time } : {}) })) };
  },
  retrieve(q: Question, memory: Memory, tools: Tools): Hit[] {
    if (q.text.includes('CRASH')) throw new Error('retrieve refused');
    if (memory.units.length === 0) return [];
    return tools.bm25.index(memory.units.map((u) => ({ id: u.id, text: u.text }))).search(q.text, 3);
  },
  context(q: Question, hits: Hit[], memory: Memory): Context {
    const byId = new Map(memory.units.map((u) => [u.id, u]));
    const units = hits.map((h) => h.unit);
    const filler = q.text.includes('LONG') ? ' filler'.repeat(500) : '';
    return { text: units.map((id) => byId.get(id)!.text).join('\\n') + filler, units };
  },
};
export default design;
`;

const RECORDS: SourceRecord[] = [
  { id: 'r1', kind: 'turn', text: 'I adopted a cat named Miso.', time: '2024-03-01T10:00:00', speaker: 'user' },
  { id: 'r2', kind: 'turn', text: 'Miso the cat likes tuna.', time: '2024-03-05T09:00:00', speaker: 'user' },
  { id: 'r3', kind: 'email', text: 'Your flight to Lisbon is confirmed.', time: '2024-04-10T08:00:00' },
  { id: 'r4', kind: 'turn', text: 'We gave Miso the cat to my sister.', time: '2024-06-01T12:00:00', speaker: 'user' },
  { id: 'r5', kind: 'document', text: 'Packing list: passport, charger, cat food.' },
];

describe.each([
  ['sandboxed', true],
  ['in-process', false],
] as const)('createMemory (%s)', (_name, sandbox) => {
  const open = (extra: { budget?: number } = {}): Promise<Memory> => createMemory({ design: DESIGN, sandbox, ...extra });

  it('adds records and strings, and answers with context, evidence and units', async () => {
    const memory = await open();
    try {
      expect(memory.info).toMatchObject({ design: 'design.ts', sandboxed: sandbox, budget: 1000, exported: null });
      expect(await memory.add(RECORDS)).toEqual({ ids: ['r1', 'r2', 'r3', 'r4', 'r5'], records: 5, units: 5 });
      expect(await memory.add(['The cat Miso hates the vacuum cleaner.', 'Buy milk.'])).toEqual({
        ids: ['note-1', 'note-2'],
        records: 7,
        units: 7,
      });
      expect(memory.size).toBe(7);
      const r = await memory.search('What does the cat Miso hate?');
      expect(r.units[0]).toBe('u-note-1');
      expect(r.evidence[0]).toEqual({ record: 'note-1', text: 'The cat Miso hates the vacuum cleaner.' });
      expect(r.evidence.find((e) => e.record === 'r2')).toEqual({
        record: 'r2',
        text: 'Miso the cat likes tuna.',
        time: '2024-03-05T09:00:00',
      });
      expect(r.evidence.map((e) => e.record)).toEqual(r.units.map((u) => u.slice(2)));
      expect(r.context.split('\n')).toEqual(r.evidence.map((e) => e.text));
      expect(r.tokens).toBeGreaterThan(5);
      expect(r.truncatedFrom).toBeUndefined();
    } finally {
      await memory.close();
    }
  });

  it('answers a dated question from the records dated on or before that day (undated ones included)', async () => {
    const memory = await open();
    try {
      await memory.add(RECORDS);
      const all = await memory.search('Miso the cat');
      expect(all.evidence.map((e) => e.record)).toContain('r4');
      const dated = await memory.search({ text: 'Miso the cat', date: '2024-03-05' });
      expect(dated.evidence.map((e) => e.record).sort()).toEqual(['r1', 'r2', 'r5']);
      // The same as a memory that only ever held the visible records: the date is enforced by what is stored.
      const only = await open();
      await only.add(RECORDS.filter((r) => ['r1', 'r2', 'r5'].includes(r.id)));
      expect(await only.search('Miso the cat')).toEqual(dated);
      await only.close();
      const before = await memory.search({ text: 'Miso the cat', date: '2024-02-01' });
      expect(before.evidence.map((e) => e.record)).toEqual(['r5']);
      await expect(memory.search({ text: 'Miso', date: 'last week' })).rejects.toMatchObject({ code: 'E_BAD_DATE' });
    } finally {
      await memory.close();
    }
  });

  it('cuts a context over the budget to the budget', async () => {
    const memory = await open({ budget: 20 });
    try {
      await memory.add(RECORDS);
      const r = await memory.search('LONG cat');
      expect(r.tokens).toBeLessThanOrEqual(20);
      expect(r.truncatedFrom).toBeGreaterThan(400);
      expect(r.context.startsWith('Miso the cat likes tuna.') || r.context.startsWith('I adopted')).toBe(true);
    } finally {
      await memory.close();
    }
  });

  it('gives as evidence only the records the delivered text verifiably carries, whatever the design claims', async () => {
    // Every unit claims every record; the context lists every unit but writes one of them.
    const claiming = DESIGN.replace('sources: [r.id]', 'sources: records.map((x) => x.id)').replace(
      "return { text: units.map((id) => byId.get(id)!.text).join('\\n') + filler, units };",
      'return { text: byId.get(units[0]!)!.text + filler, units: memory.units.map((u) => u.id) };',
    );
    expect(claiming).toContain('units: memory.units.map((u) => u.id) }');
    expect(claiming).toContain('sources: records.map');
    const memory = await createMemory({ design: claiming, sandbox, budget: 20 });
    try {
      await memory.add(RECORDS);
      const r = await memory.search('Lisbon flight');
      expect(r.context).toBe('Your flight to Lisbon is confirmed.');
      expect(r.evidence.map((e) => e.record)).toEqual(['r3']);
      expect(r.units).toEqual(['u-r3']);
      // Cut by the budget: the filler is gone and nothing it stood for is credited.
      const cut = await memory.search('LONG Lisbon flight');
      expect(cut.truncatedFrom).toBeGreaterThan(20);
      expect(cut.evidence.map((e) => e.record)).toEqual(['r3']);
    } finally {
      await memory.close();
    }
  });

  it('reports design failures with stage and reason, and keeps the memory usable', async () => {
    const memory = await open();
    try {
      await memory.add(RECORDS);
      const err = await memory.add([{ id: 'bad', kind: 'note', text: 'POISON pill' }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DesignError);
      expect(err).toMatchObject({ code: 'E_DESIGN_STORE', stage: 'store', kind: 'throw' });
      expect((err as DesignError).reason).toContain('cannot store poison');
      expect(memory.size).toBe(5);
      await expect(memory.search('CRASH now')).rejects.toMatchObject({
        code: 'E_DESIGN_RETRIEVE',
        stage: 'retrieve',
        reason: expect.stringContaining('retrieve refused'),
      });
      expect((await memory.search('Lisbon flight')).evidence[0]?.record).toBe('r3');
      await expect(memory.add([{ id: 'r1', kind: 'note', text: 'again' }])).rejects.toMatchObject({ code: 'E_DUPLICATE_RECORD' });
      await expect(memory.add([{ id: 'x', kind: 'tweet', text: 'no' } as unknown as SourceRecord])).rejects.toMatchObject({
        code: 'E_BAD_RECORD',
      });
      await expect(memory.search({ text: '' })).rejects.toMatchObject({ code: 'E_BAD_QUESTION' });
    } finally {
      await memory.close();
    }
    await expect(memory.search('cat')).rejects.toMatchObject({ code: 'E_MEMORY_CLOSED' });
  });

  it('answers from an empty memory and fails early on a design that cannot load', async () => {
    const memory = await open();
    expect(await memory.search('anything')).toEqual({ context: '', evidence: [], units: [], tokens: 0 });
    await memory.close();
    const throwing = DESIGN.replace(
      'const design: MemoryDesign = {',
      "throw new RangeError('top-level boom');\nconst design: MemoryDesign = {",
    );
    await expect(createMemory({ design: throwing, sandbox })).rejects.toMatchObject({
      code: 'E_DESIGN_COMPILE',
      stage: 'compile',
      reason: expect.stringContaining('top-level boom'),
    });
  });
});

describe('createMemory inputs', () => {
  it('rejects a design that does not compile, with file position, and a missing file', async () => {
    await expect(createMemory({ design: DESIGN.replace('return { units', 'return { unitz') })).rejects.toMatchObject({
      code: 'E_COMPILE',
      message: expect.stringMatching(/^design\.ts:\d+:\d+: TS\d+/),
    });
    await expect(createMemory({ design: '/nowhere/design.ts' })).rejects.toMatchObject({ code: 'E_NO_FILE' });
  });

  it('gives in-process designs the sandbox seeded Math.random and fixed clock', async () => {
    const noisy = DESIGN.replace(
      "const filler = q.text.includes('LONG') ? ' filler'.repeat(500) : '';",
      "const filler = ' ' + Math.random() + ' ' + Math.random() + ' ' + new Date().toISOString() + ' ' + Date.now();",
    );
    expect(noisy).not.toBe(DESIGN);
    const texts: string[] = [];
    for (const sandbox of [true, false]) {
      const memory = await createMemory({ design: noisy, sandbox });
      await memory.add(RECORDS);
      texts.push((await memory.search('cat')).context);
      await memory.close();
    }
    expect(texts[0]).toMatch(/ 0\.\d+ 0\.\d+ 2030-01-01T00:00:00\.000Z 1893456000000$/);
    expect(texts[1]).toBe(texts[0]);
  });
});
