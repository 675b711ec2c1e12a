import { describe, expect, it } from 'vitest';
import {
  bm25CacheKey,
  bm25CacheStats,
  buildBm25Index,
  buildWinkBm25Index,
  clearBm25Cache,
  extendBm25Index,
  getBm25Index,
} from '../src/isolate/host-tools/bm25-index.ts';
import { roundLikeToFixed } from '../src/isolate/host-tools/growing-bm25.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';

const WORDS = (
  'ana ben puppy golden retriever marathon lisbon training knee trail pottery class tuesday evening running ' +
  'doctor visit paris flight hotel sister birthday cake garden tomato recipe guitar lesson concert ticket ' +
  'the a of and to in was were is'
).split(' ');

/** Deterministic pseudo-random documents: short and long, repeated texts (score ties), numeric and string ids. */
function corpus(n: number, seed: number): Array<{ id: string; text: string }> {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const docs: Array<{ id: string; text: string }> = [];
  for (let i = 0; i < n; i++) {
    const len = 1 + Math.floor(rnd() * (rnd() < 0.2 ? 60 : 12));
    const words = Array.from({ length: len }, () => WORDS[Math.floor(rnd() * WORDS.length)]!);
    const text = rnd() < 0.1 && docs.length ? docs[Math.floor(rnd() * docs.length)]!.text : words.join(' ');
    // Ids that are array indices ("17") order differently from other strings in wink's results.
    const id = rnd() < 0.3 ? String(Math.floor(rnd() * 1e6) * 7 + i) : `D${i % 7}:${i}`;
    docs.push({ id, text });
  }
  const seen = new Set<string>();
  return docs.filter((d) => !seen.has(d.id) && seen.add(d.id));
}

const QUERIES = [
  'who was training for the marathon in lisbon?',
  'golden retriever puppy',
  'pottery class tuesday evening tuesday',
  'paris flight hotel',
  'cake',
  'the and of',
  'ana ben',
  'sister birthday cake recipe garden tomato guitar',
];

describe('growing bm25 index', () => {
  it('returns exactly what wink-bm25-text-search returns (scores, rounding, tie order)', () => {
    for (const [n, seed, options] of [
      [3, 1, {}],
      [40, 2, {}],
      [400, 3, {}],
      [400, 4, { stem: false, stopwords: false, k1: 2, b: 0.3 }],
    ] as const) {
      const docs = corpus(n, seed);
      const ours = buildBm25Index(docs, options);
      const wink = buildWinkBm25Index(docs, options);
      for (const q of QUERIES) for (const k of [1, 5, 50, 1000]) expect(ours.search(q, k)).toEqual(wink.search(q, k));
    }
  });

  it('rounds weights exactly as Number(x.toFixed(4)), ties and near-ties included', () => {
    let seed = 12345;
    const rnd = () => {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      return seed / 4294967296;
    };
    const xs = [0, 1e-9, 0.00005, 0.00015, 1.00005, 1.23445, 2.5, 12.34565, 99.99995, 1e6 + 0.00005];
    for (let i = 0; i < 200_000; i++) xs.push(rnd() * (i % 2 ? 40 : 1));
    for (let i = 0; i < 20_000; i++) xs.push((Math.floor(rnd() * 1e6) + 0.5) / 1e4); // decimal ties k.xxxx5
    for (const x of xs) expect(roundLikeToFixed(x)).toBe(Number(x.toFixed(4)));
  });

  it('answers after add(rest) exactly as an index built over all documents at once', () => {
    const docs = corpus(300, 5);
    const all = buildBm25Index(docs);
    let grown = buildBm25Index(docs.slice(0, 10));
    for (let at = 10; at < docs.length; at += 37) grown = grown.extend(docs.slice(at, at + 37));
    expect(grown.size).toBe(all.size);
    for (const q of QUERIES) expect(grown.search(q, 100)).toEqual(all.search(q, 100));
  });

  it('leaves the grown-from index unchanged, also when it is grown twice in different ways (fork)', () => {
    const docs = corpus(120, 6);
    const base = buildBm25Index(docs.slice(0, 60));
    const before = QUERIES.map((q) => base.search(q, 20));
    const left = base.extend(docs.slice(60, 90));
    const right = base.extend(docs.slice(90, 120));
    expect(QUERIES.map((q) => base.search(q, 20))).toEqual(before);
    for (const q of QUERIES) {
      expect(left.search(q, 20)).toEqual(buildWinkBm25Index(docs.slice(0, 90)).search(q, 20));
      expect(right.search(q, 20)).toEqual(buildWinkBm25Index([...docs.slice(0, 60), ...docs.slice(90)]).search(q, 20));
    }
  });

  it('rejects a document id the index already holds, or one repeated in the added batch', () => {
    const base = buildBm25Index([
      { id: 'a', text: 'one' },
      { id: 'b', text: 'two' },
    ]);
    expect(() => base.extend([{ id: 'a', text: 'again' }])).toThrow(/duplicate document id "a"/);
    expect(() =>
      base.extend([
        { id: 'c', text: 'x' },
        { id: 'c', text: 'y' },
      ]),
    ).toThrow(/duplicate document id "c"/);
    expect(
      base
        .extend([{ id: 'c', text: 'two two' }])
        .search('two', 5)
        .map((h) => h.unit),
    ).toEqual(['c', 'b']);
  });

  it('shares one cache entry between index(all) and index(first).add(rest)', () => {
    clearBm25Cache();
    const docs = corpus(50, 7);
    const first = getBm25Index(docs.slice(0, 20));
    const grown = extendBm25Index(first.index, docs.slice(20));
    expect(grown.cached).toBe(false);
    expect(bm25CacheKey(docs)).toBe(bm25CacheKey([...docs.slice(0, 20), ...docs.slice(20)]));
    const whole = getBm25Index(docs.map((d) => ({ ...d })));
    expect(whole.cached).toBe(true);
    expect(whole.index).toBe(grown.index);
    expect(extendBm25Index(first.index, docs.slice(20)).cached).toBe(true);
    expect(bm25CacheStats()).toMatchObject({ hits: 2, misses: 2 });
  });

  it('tools.bm25 add: metered, a new handle, the old handle unchanged, size capped', () => {
    clearBm25Cache();
    const docs = corpus(30, 8);
    const tools = createHostTools({ bm25MaxDocs: 40 });
    tools.beginCall('store');
    const a = tools.bm25Index(docs.slice(0, 20));
    const b = tools.bm25Add(a.handle, docs.slice(20));
    const meter = tools.endCall();
    expect(meter.toolCalls['bm25.add']).toBe(1);
    expect(b).toMatchObject({ size: 30 });
    expect(b.handle).not.toBe(a.handle);
    expect(tools.bm25Search(a.handle, 'marathon', 50).every((h) => docs.slice(0, 20).some((d) => d.id === h.unit))).toBe(true);
    expect(tools.bm25Search(b.handle, 'marathon lisbon', 50)).toEqual(buildWinkBm25Index(docs).search('marathon lisbon', 50));
    expect(() =>
      tools.bm25Add(
        b.handle,
        corpus(20, 9).map((d) => ({ ...d, id: `new-${d.id}` })),
      ),
    ).toThrow(/over the 40 limit/);
    expect(() => tools.bm25Add(99, [])).toThrow(/unknown index handle/);
  });
});
