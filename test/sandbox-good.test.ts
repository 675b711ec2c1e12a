import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { compileDesign } from '../src/design/compile.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import { createSandbox } from '../src/isolate/sandbox-runner.ts';
import type { HostToolsOptions, Sandbox, SandboxLimits } from '../src/isolate/sandbox-api.ts';
import { countTokens, terms } from '../src/text/text.ts';

const RECORDS: SourceRecord[] = JSON.parse(readFileSync(new URL('./fixtures/designs/records-20.json', import.meta.url), 'utf8'));

async function load(source: string, tools: HostToolsOptions = {}, limits: Partial<SandboxLimits> = {}): Promise<Sandbox> {
  const compiled = await compileDesign(source);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.diagnostics));
  const created = await createSandbox(compiled.program, createHostTools(tools), limits);
  if (!created.ok) throw new Error(JSON.stringify(created.failure));
  return created.sandbox;
}

const ONE_UNIT_PER_RECORD = 'store: (records) => ({ units: records.map((r) => ({ id: r.id, text: r.text, sources: [r.id] })) }),';

describe('sandbox: a tiny BM25 design end to end', () => {
  it('reads unit texts in pages when they do not fit one crossing, and again only for units an add changed', async () => {
    // maxResultChars 8000 → text pages of about 1000 characters: 20 units of ~60 characters take two pages.
    const design = `import type { MemoryDesign } from 'memsteer/contract';
export default {
  ${ONE_UNIT_PER_RECORD}
  add: (memory, records) => ({ units: [...memory.units, ...records.map((r) => ({ id: r.id, text: r.text, sources: [r.id] }))] }),
  retrieve: () => [],
  context: () => ({ text: '', units: [] }),
} satisfies MemoryDesign;`;
    const sandbox = await load(design, {}, { maxResultChars: 8000 });
    const long: SourceRecord = { id: 'r-long', kind: 'note', text: 'word '.repeat(400).trim() };
    expect((await sandbox.store([...RECORDS, long])).ok).toBe(true);
    const units = await sandbox.memoryUnits();
    if (!units.ok) throw new Error(units.failure.message);
    expect(units.value.map((u) => u.text).slice(0, 20)).toEqual(RECORDS.map((r) => r.text));
    // A unit longer than a page arrives cut to one page (1000 characters): what is past the cut is not verified.
    expect(units.value[20]!.text).toBe(long.text.slice(0, 1000));
    expect(units.value[20]!.textLength).toBe(long.text.length);
    const added: SourceRecord = { id: 'r-new', kind: 'note', text: 'A record that arrived later.' };
    expect((await sandbox.add([added])).ok).toBe(true);
    const grown = await sandbox.memoryUnits();
    if (!grown.ok) throw new Error(grown.failure.message);
    expect(grown.value.map((u) => u.text).at(-1)).toBe(added.text);
    // Units the add left alone are the very objects the host already held: their texts did not cross again.
    expect(grown.value[0]).toBe(units.value[0]);
    sandbox.dispose();
  });

  it('stores, reports provenance, retrieves and builds a context on 20 records', async () => {
    const sandbox = await load(readFileSync(new URL('./fixtures/designs/good/tiny-bm25.ts', import.meta.url), 'utf8'));
    const stored = await sandbox.store(RECORDS);
    expect(stored.ok).toBe(true);
    if (!stored.ok) return;
    expect(stored.value.units).toBe(20);
    expect(stored.toolCalls['bm25.index']).toBe(1);
    expect(stored.log).toEqual(['stored 20 units']);

    const units = await sandbox.memoryUnits();
    const firstText = RECORDS[0]!.speaker ? `${RECORDS[0]!.speaker}: ${RECORDS[0]!.text}` : RECORDS[0]!.text;
    expect(units.ok && units.value[0]).toEqual({
      id: 'u-r01',
      text: firstText,
      sources: ['r01'],
      time: '2023-05-01T10:00:00Z',
      textLength: firstText.length,
    });
    expect(units.ok && units.value.map((u) => u.id)).toHaveLength(20);

    const q = { id: 'q-bike', text: 'What road bike did Ben buy for his rehab?' };
    const hits = await sandbox.retrieve(q);
    expect(hits.ok).toBe(true);
    if (!hits.ok) return;
    expect(hits.value[0]!.unit).toBe('u-r18');
    expect(hits.value.length).toBeLessThanOrEqual(5);
    expect(hits.toolCalls).toEqual({ 'bm25.search': 1 });

    const ctx = await sandbox.context(q, hits.value, { tokens: 60 });
    expect(ctx.ok).toBe(true);
    if (!ctx.ok) return;
    expect(ctx.value.units[0]).toBe('u-r18');
    expect(ctx.value.text).toContain('blue Cannondale');
    expect(ctx.value.tokens).toBe(countTokens(ctx.value.text));
    expect(ctx.value.tokens).toBeLessThanOrEqual(60);
    expect(ctx.value.truncatedFrom).toBeUndefined();
    sandbox.dispose();
    expect(sandbox.alive).toBe(false);
    const after = await sandbox.retrieve(q);
    expect(!after.ok && after.failure.kind).toBe('crash');
  });

  it('answers a text tool’s repeat from the isolate’s memo: the host’s result, a fresh copy, every call metered', async () => {
    // A rescoring design asks the terms of the same unit texts for every question; a design that changes the list it
    // got back must not change the next caller's.
    const compiled = await compileDesign(`import type { MemoryDesign } from 'memsteer/contract';
export default {
  ${ONE_UNIT_PER_RECORD}
  retrieve: (q, m, tools) => {
    const first = tools.text.terms(m.units[0].text);
    first.push('changed');
    const again = tools.text.terms(m.units[0].text);
    const tokens = [tools.text.tokenize(q.text), tools.text.tokenize(q.text)];
    tokens[0].length = 0;
    const ok = !again.includes('changed') && tokens[1].length > 0 && tools.countTokens(q.text) === tools.countTokens(q.text)
      && tools.text.stem('running') === tools.text.stem('running') && tools.text.isStopword('the');
    return ok ? [{ unit: m.units[0].id, score: again.length }] : [];
  },
  context: () => ({ text: '', units: [] }),
} satisfies MemoryDesign;`);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.diagnostics));
    const host = createHostTools();
    const reached: string[] = [];
    const { terms: hostTerms, tokenize: hostTokenize } = host;
    host.terms = (text) => (reached.push(`terms:${text}`), hostTerms(text));
    host.tokenize = (text) => (reached.push(`tokenize:${text}`), hostTokenize(text));
    const created = await createSandbox(compiled.program, host, {});
    if (!created.ok) throw new Error(JSON.stringify(created.failure));
    const sandbox = created.sandbox;
    expect((await sandbox.store(RECORDS)).ok).toBe(true);
    const first = await sandbox.retrieve({ id: 'q1', text: 'What road bike did Ben buy?' });
    if (!first.ok) throw new Error(first.failure.message);
    expect(first.value).toHaveLength(1);
    expect(first.value[0]!.score).toBe(terms(RECORDS[0]!.text).length);
    // Every call the design made is metered, whether the host or the memo answered it.
    const asked = { 'text.terms': 2, 'text.tokenize': 2, countTokens: 2, 'text.stem': 2, 'text.isStopword': 1 };
    expect(first.toolCalls).toEqual(asked);
    const second = await sandbox.retrieve({ id: 'q2', text: 'Who adopted a puppy?' });
    if (!second.ok) throw new Error(second.failure.message);
    expect(second.toolCalls).toEqual(asked);
    // The host saw each text once: the unit's terms, and each question's tokens.
    expect(reached).toEqual([`terms:${RECORDS[0]!.text}`, 'tokenize:What road bike did Ben buy?', 'tokenize:Who adopted a puppy?']);
    sandbox.dispose();
  });

  it('truncates a context that ignores the budget and records the original size', async () => {
    const sandbox = await load(`import type { MemoryDesign } from 'memsteer/contract';
export default {
  ${ONE_UNIT_PER_RECORD}
  retrieve: (q, m) => m.units.map((u, i) => ({ unit: u.id, score: -i })),
  context: (q, hits, m) => ({ text: m.units.map((u) => u.text).join('\\n'), units: hits.map((h) => h.unit) }),
} satisfies MemoryDesign;`);
    expect((await sandbox.store(RECORDS)).ok).toBe(true);
    const q = { id: 'q', text: 'anything' };
    const hits = await sandbox.retrieve(q);
    if (!hits.ok) throw new Error(hits.failure.message);
    const ctx = await sandbox.context(q, hits.value, { tokens: 25 });
    expect(ctx.ok).toBe(true);
    if (!ctx.ok) return;
    expect(ctx.value.tokens).toBeLessThanOrEqual(25);
    expect(ctx.value.truncatedFrom).toBeGreaterThan(100);
    expect(RECORDS[0]!.text.startsWith(ctx.value.text.slice(0, 20))).toBe(true);
    sandbox.dispose();
  });

  it('seeds Math.random and fixes the clock, per the limits', async () => {
    const src = `import type { MemoryDesign } from 'memsteer/contract';
export default {
  store: (records, tools) => {
    tools.log(String(Math.random())); tools.log(String(Date.now())); tools.log(new Date().toISOString()); return { units: [] };
  },
  retrieve: () => [],
  context: () => ({ text: '', units: [] }),
} satisfies MemoryDesign;`;
    const runs = [];
    for (const seed of [7, 7, 8]) {
      const sandbox = await load(src, {}, { seed, now: Date.UTC(2024, 1, 29) });
      const r = await sandbox.store(RECORDS);
      runs.push(r.log);
      sandbox.dispose();
    }
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0]![0]).not.toBe(runs[2]![0]);
    expect(runs[0]!.slice(1)).toEqual([String(Date.UTC(2024, 1, 29)), '2024-02-29T00:00:00.000Z']);
  });

  it('runs an async design that embeds (local hashed n-grams) and ranks by cosine', async () => {
    const sandbox = await load(`import type { MemoryDesign } from 'memsteer/contract';
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
export default {
  async store(records, tools) {
    const vectors = await tools.embed.embed(records.map((r) => r.text));
    return { units: records.map((r) => ({ id: r.id, text: r.text, sources: [r.id] })), state: vectors };
  },
  async retrieve(q, memory, tools) {
    const [v] = await tools.embed.embed([q.text]);
    const vectors = memory.state as number[][];
    return memory.units.map((u, i) => ({ unit: u.id, score: dot(v!, vectors[i]!) })).sort((a, b) => b.score - a.score).slice(0, 3);
  },
  context: (q, hits, memory) => ({
    text: hits.map((h) => memory.units.find((u) => u.id === h.unit)!.text).join('\\n'),
    units: hits.map((h) => h.unit),
  }),
} satisfies MemoryDesign;`);
    const stored = await sandbox.store(RECORDS);
    expect(stored.ok).toBe(true);
    expect(stored.toolCalls.embed).toBe(1);
    const hits = await sandbox.retrieve({ id: 'q', text: 'pottery class bowls' });
    expect(hits.ok).toBe(true);
    if (!hits.ok) return;
    expect(['r05', 'r09']).toContain(hits.value[0]!.unit);
    expect(hits.value[0]!.score).toBeGreaterThan(hits.value[2]!.score);
    sandbox.dispose();
  });

  it('meters tools.llm per question and refuses past the cap; unavailable without a completer', async () => {
    const src = `import type { MemoryDesign } from 'memsteer/contract';
export default {
  ${ONE_UNIT_PER_RECORD}
  async retrieve(q, memory, tools) {
    if (!tools.llm.available) throw new Error('no llm');
    const reply = await tools.llm.complete(q.text, { maxTokens: 50 });
    tools.log(reply);
    return [{ unit: memory.units[0]!.id, score: 1 }];
  },
  context: () => ({ text: '', units: [] }),
} satisfies MemoryDesign;`;
    const offline = await load(src);
    await offline.store(RECORDS);
    const noLlm = await offline.retrieve({ id: 'q', text: 'hi' });
    expect(!noLlm.ok && noLlm.failure).toMatchObject({ kind: 'throw', message: 'Error: no llm' });
    offline.dispose();

    const calls: string[] = [];
    const maxTokens: Array<number | undefined> = [];
    const online = await load(src, {
      llm: async (messages, options) => {
        calls.push(messages[0]!.content);
        maxTokens.push(options.maxTokens);
        return { text: `echo ${messages[0]!.content}`, promptTokens: 30, completionTokens: 20 };
      },
      llmTokensPerQuestion: 120,
    });
    await online.store(RECORDS);
    const first = await online.retrieve({ id: 'q1', text: 'hello there' });
    expect(first.ok && first.log).toEqual(['echo hello there']);
    expect(first.llmTokens).toEqual({ prompt: 30, completion: 20 });
    expect(first.toolCalls.llm).toBe(1);
    // The same question keeps spending one budget: 50 + 50 spent, then the completion is clamped to what
    // is left (120 − 100 − a prompt estimate of 6), then nothing is left.
    expect((await online.retrieve({ id: 'q1', text: 'hello there' })).ok).toBe(true);
    expect((await online.retrieve({ id: 'q1', text: 'hello there' })).ok).toBe(true);
    const refused = await online.retrieve({ id: 'q1', text: 'hello there' });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.failure.message).toMatch(/budget of 120 tokens for this question is spent/);
    // A new question gets a fresh budget.
    const fresh = await online.retrieve({ id: 'q2', text: 'hello again' });
    expect(fresh.ok).toBe(true);
    expect(calls).toEqual(['hello there', 'hello there', 'hello there', 'hello again']);
    expect(maxTokens).toEqual([50, 50, 14, 50]);
    online.dispose();
  });

  it('reports a design that fails to load as a compile-stage failure', async () => {
    const compiled = await compileDesign(`import type { MemoryDesign } from 'memsteer/contract';
const d: MemoryDesign = { store: () => ({ units: [] }), retrieve: () => [], context: () => ({ text: '', units: [] }) };
if (d) throw new RangeError('top-level failure');
export default d;`);
    if (!compiled.ok) throw new Error('should compile');
    const created = await createSandbox(compiled.program, createHostTools());
    expect(!created.ok && created.failure).toMatchObject({ stage: 'compile', kind: 'throw', message: 'RangeError: top-level failure' });
  });
});
