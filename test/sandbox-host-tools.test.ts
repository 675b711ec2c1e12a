import { describe, expect, it } from 'vitest';
import { buildBm25Index } from '../src/isolate/host-tools/bm25-index.ts';
import { bm25CacheStats, clearBm25Cache, createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import { localEmbedding, LOCAL_EMBEDDING_DIM } from '../src/isolate/host-tools/local-embedding.ts';
import { fitToBudget, truncateToTokens } from '../src/isolate/host-tools/text-budget.ts';
import { countTokens } from '../src/text/text.ts';

const DOCS = [
  { id: 'a', text: 'Ana adopted a golden retriever puppy named Biscuit' },
  { id: 'b', text: 'Ben is training for the Lisbon half marathon' },
  { id: 'c', text: 'Ana takes a pottery class on Tuesday evenings' },
  { id: 'd', text: 'Ben hurt his knee running a trail and stopped training' },
];

describe('bm25 host index', () => {
  it('ranks with stemming and stopwords by default, and respects k', () => {
    const index = buildBm25Index(DOCS);
    const hits = index.search('who was training for marathons?', 10);
    expect(hits.map((h) => h.unit)).toEqual(['b', 'd']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(index.search('who was training for marathons?', 1)).toHaveLength(1);
    expect(index.search('', 5)).toEqual([]);
    expect(index.search('the and of', 5)).toEqual([]);
    expect(index.search('training', 0)).toEqual([]);
  });

  it('honours stem: false (no match between "marathons" and "marathon")', () => {
    const index = buildBm25Index(DOCS, { stem: false });
    expect(index.search('marathons', 5)).toEqual([]);
    expect(index.search('marathon', 5).map((h) => h.unit)).toEqual(['b']);
  });

  it('handles collections too small for wink (0, 1, 2 documents)', () => {
    expect(buildBm25Index([]).search('anything', 5)).toEqual([]);
    const one = buildBm25Index([DOCS[0]!]);
    expect(one.search('puppy', 5).map((h) => h.unit)).toEqual(['a']);
    const two = buildBm25Index([DOCS[0]!, DOCS[1]!]);
    expect(two.search('golden puppy marathon', 5).map((h) => h.unit)).toEqual(['a', 'b']);
    expect(two.size).toBe(2);
  });

  it('rejects duplicate ids with a message the design author can act on', () => {
    expect(() => buildBm25Index([DOCS[0]!, DOCS[0]!, DOCS[1]!])).toThrow(/duplicate document id "a"/);
  });

  it('shares one index across tool instances that index the same documents (cache hit counted)', () => {
    clearBm25Cache();
    const first = createHostTools();
    first.beginCall('store');
    const h1 = first.bm25Index(DOCS);
    expect(first.endCall().bm25CacheHits).toBe(0);
    const second = createHostTools();
    second.beginCall('store');
    const h2 = second.bm25Index(DOCS.map((d) => ({ ...d })));
    const meter = second.endCall();
    expect(meter.bm25CacheHits).toBe(1);
    expect(meter.toolCalls['bm25.index']).toBe(1);
    expect(second.bm25Search(h2.handle, 'pottery', 3)).toEqual(first.bm25Search(h1.handle, 'pottery', 3));
    second.bm25Index(DOCS, { k1: 2 });
    expect(bm25CacheStats()).toMatchObject({ hits: 1, misses: 2, size: 2 });
  });
});

describe('host tools metering', () => {
  it('an index grown one document at a time past the handle limit keeps working; old versions are released', () => {
    const tools = createHostTools();
    tools.beginCall('add');
    let at = tools.bm25Index(DOCS.slice(0, 1)).handle;
    const first = at;
    // More adds than the 10,000 handles a sandbox may hold: each add leaves the version it grew from behind.
    for (let i = 0; i < 10_050; i++) at = tools.bm25Add(at, [{ id: `n${i}`, text: `note ${i} about the marathon` }]).handle;
    expect(tools.bm25Search(at, 'golden retriever', 1).map((h) => h.unit)).toEqual(['a']);
    expect(() => tools.bm25Search(first, 'golden', 1)).toThrow(/index handle 0 was released.*use the index bm25.add returned/);
    // The last versions an add grew from stay searchable.
    expect(tools.bm25Search(at - 1, 'note', 1)).toHaveLength(1);
    tools.dispose();
  });

  it('counts calls per tool, caps the log and counts drops', () => {
    const tools = createHostTools({ logMaxLines: 3, logMaxChars: 5 });
    tools.beginCall('q:1');
    for (let i = 0; i < 5; i++) tools.log(`line number ${i}`);
    tools.countTokens('hello world');
    tools.terms('Running meetings');
    const meter = tools.endCall();
    expect(meter.log).toEqual(['line ', 'line ', 'line ']);
    expect(meter.logDropped).toBe(2);
    expect(meter.toolCalls).toEqual({ log: 5, countTokens: 1, 'text.terms': 1 });
    tools.beginCall('q:2');
    expect(tools.endCall().toolCalls).toEqual({});
  });

  it('refuses work once the stage is past its limit', () => {
    const tools = createHostTools();
    tools.beginCall('q:1', () => true);
    expect(() => tools.tokenize('late')).toThrow(/past its time limit/);
  });
});

describe('local embedding (hashed word and character n-grams)', () => {
  const cos = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
  it('is deterministic, unit length, and lexical', () => {
    const v = localEmbedding('Ana adopted a golden retriever puppy');
    expect(v).toHaveLength(LOCAL_EMBEDDING_DIM);
    expect(localEmbedding('Ana adopted a golden retriever puppy')).toEqual(v);
    expect(Math.sqrt(cos(v, v))).toBeCloseTo(1, 10);
    const near = localEmbedding('the golden retriever puppies');
    const far = localEmbedding('quarterly tax filing deadline');
    expect(cos(v, near)).toBeGreaterThan(cos(v, far) + 0.2);
    expect(localEmbedding('').every((x) => x === 0)).toBe(true);
  });

  it('normalises an injected embedder and rejects a wrong dimension', async () => {
    const tools = createHostTools({
      embedder: { model: 'fake', dim: 2, embed: async (texts) => texts.map((t) => (t === 'bad' ? [1] : [3, 4])) },
    });
    expect(tools.embedModel).toBe('fake');
    tools.beginCall('store');
    expect(await tools.embed(['x'])).toEqual([[0.6, 0.8]]);
    await expect(tools.embed(['bad'])).rejects.toThrow(/1 dimensions, expected 2/);
  });
});

describe('context budget', () => {
  const text = 'Ben bought a blue Cannondale road bike, for rehab! Then he cycled along the river in Braga.';
  it('truncates to the longest prefix within the budget, counted the way countTokens counts', () => {
    for (let budget = 0; budget <= countTokens(text); budget++) {
      const cut = truncateToTokens(text, budget);
      expect(text.startsWith(cut)).toBe(true);
      expect(countTokens(cut)).toBeLessThanOrEqual(budget);
      // Maximal: one more piece of the text would go over.
      const longer = truncateToTokens(text, budget + 1);
      if (longer.length > cut.length) expect(countTokens(longer)).toBe(budget + 1);
    }
    expect(truncateToTokens(text, 1000)).toBe(text);
  });

  it('reports the original size only when it truncated', () => {
    expect(fitToBudget(text, 1000)).toEqual({ text, tokens: countTokens(text) });
    const fitted = fitToBudget(text, 5);
    expect(fitted.tokens).toBeLessThanOrEqual(5);
    expect(fitted.truncatedFrom).toBe(countTokens(text));
  });
});
