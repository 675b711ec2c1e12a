import { createHash, type Hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import bm25 from 'wink-bm25-text-search';
import type { Bm25Options, Hit } from '../../../sandbox/contract.ts';
import type { Bm25CacheStats } from '../sandbox-api.ts';
import { terms } from '../../text/text.ts';
import { GrowingBm25, type Bm25Params } from './growing-bm25.ts';

/** A built index, shared by every sandbox in the process that indexes the same documents. */
export interface SearchIndex {
  readonly size: number;
  search(query: string, k: number): Hit[];
}

export { GrowingBm25 } from './growing-bm25.ts';

interface ResolvedOptions {
  stem: boolean;
  stopwords: boolean;
  k1: number;
  b: number;
}

function resolve(options: Bm25Options = {}): ResolvedOptions {
  const k1 = options.k1 !== undefined && Number.isFinite(options.k1) && options.k1 >= 0 ? options.k1 : 1.2;
  const b = options.b !== undefined && Number.isFinite(options.b) && options.b >= 0 && options.b <= 1 ? options.b : 0.75;
  return { stem: options.stem !== false, stopwords: options.stopwords !== false, k1, b };
}

/**
 * wink's BM25 saturation with its default `k = 1` inside the IDF (log((N − n + 0.5)/(n + 0.5) + 1), always
 * positive). The small-collection fallback uses the same formula so scores do not jump at 3 documents.
 */
const IDF_K = 1;

/**
 * Builds the index `tools.bm25` serves, without the cache: memsteer's growing BM25 (growing-bm25.ts), which
 * reproduces wink-bm25-text-search's scores, rounding and result order and can add documents later.
 */
export function buildBm25Index(docs: ReadonlyArray<{ id: string; text: string }>, options?: Bm25Options): GrowingBm25 {
  return GrowingBm25.build(docs, paramsOf(options));
}

/**
 * Index terms by analysis and text. A design whose `add` rebuilds its index (one that indexes each unit with its
 * neighbours must) re-reads the same texts at every question date, and term analysis was most of a build's time.
 * Bounded by characters held; the arrays are shared, and nothing that reads them writes to them.
 */
const termCache = new LRUCache<string, readonly string[]>({
  maxSize: 64_000_000,
  sizeCalculation: (value, key) => key.length + 8 * value.length + 1,
});

function paramsOf(options?: Bm25Options): Bm25Params {
  const o = resolve(options);
  const flags = `${o.stem ? 's' : '-'}${o.stopwords ? 'w' : '-'}\u0000`;
  const prep = (text: string): readonly string[] => {
    const key = flags + text;
    let out = termCache.get(key);
    if (!out) termCache.set(key, (out = terms(text, { stem: o.stem, stopwords: o.stopwords })));
    return out;
  };
  return { k1: o.k1, b: o.b, k: IDF_K, prep };
}

/**
 * The index as it was built before it could grow: wink-bm25-text-search for 3 or more documents, a plain BM25
 * with wink's formula below that (wink's consolidate() refuses fewer than 3 documents). Kept as the reference
 * the growing index is tested against, and as the baseline of bench/bm25-growth.ts.
 */
export function buildWinkBm25Index(docs: ReadonlyArray<{ id: string; text: string }>, options?: Bm25Options): SearchIndex {
  const o = resolve(options);
  const prep = (text: string): string[] => terms(text, { stem: o.stem, stopwords: o.stopwords });
  const seen = new Set<string>();
  for (const d of docs) {
    if (seen.has(d.id)) throw new Error(`bm25.index: duplicate document id ${JSON.stringify(d.id).slice(0, 100)}; ids must be unique`);
    seen.add(d.id);
  }
  if (docs.length < 3) return buildPlainBm25Index(docs, options);
  const engine = bm25();
  engine.defineConfig({ fldWeights: { text: 1 }, bm25Params: { k1: o.k1, b: o.b, k: IDF_K } });
  engine.definePrepTasks([prep]);
  for (const d of docs) engine.addDoc({ text: d.text }, d.id);
  engine.consolidate();
  const size = docs.length;
  return {
    size,
    search(query: string, k: number): Hit[] {
      if (!(k >= 1)) return [];
      // wink treats a limit of 0 as 10; k ≥ 1 here, and capped to the collection.
      return engine.search(query, Math.min(Math.floor(k), size)).map(([unit, score]) => ({ unit, score }));
    },
  };
}

/** A plain BM25 with wink's formula, in TypeScript (also used by bench/ to compare build times). */
export function buildPlainBm25Index(docs: ReadonlyArray<{ id: string; text: string }>, options?: Bm25Options): SearchIndex {
  const o = resolve(options);
  const prep = (text: string): string[] => terms(text, { stem: o.stem, stopwords: o.stopwords });
  const tf = docs.map((d) => {
    const m = new Map<string, number>();
    for (const t of prep(d.text)) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const lengths = tf.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
  const avg = lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length) || 1;
  const df = new Map<string, number>();
  for (const m of tf) for (const t of m.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  return {
    size: n,
    search(query: string, k: number): Hit[] {
      if (!(k >= 1)) return [];
      const scores = new Map<number, number>();
      for (const t of prep(query)) {
        const dft = df.get(t);
        if (dft === undefined) continue;
        const idf = Math.log((n - dft + 0.5) / (dft + 0.5) + IDF_K);
        tf.forEach((m, i) => {
          const f = m.get(t);
          if (f === undefined) return;
          const norm = 1 - o.b + o.b * (lengths[i]! / avg);
          scores.set(i, (scores.get(i) ?? 0) + ((f * (o.k1 + 1)) / (o.k1 * norm + f)) * idf);
        });
      }
      return [...scores.entries()]
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, Math.floor(k))
        .map(([i, score]) => ({ unit: docs[i]!.id, score }));
    },
  };
}

// ───────────── process-wide cache: candidates that index the same units share one index ─────────────

/**
 * Entries are cheap (versions of one growing chain share their corpus), so the cap that matters is documents: each
 * distinct corpus is counted once, at its current size.
 */
const MAX_ENTRIES = 2048;
const MAX_CACHED_DOCS = 400_000;
const cache = new Map<string, GrowingBm25>();
/** Per corpus held by the cache: entries that reference it and the documents counted for it. */
const corpora = new Map<object, { entries: number; counted: number }>();
let cachedDocs = 0;
const stats = { hits: 0, misses: 0, buildMs: 0 };

/** The un-finalised content hash of (resolved options, documents): continued by extensions, digested for keys. */
function hashOf(docs: ReadonlyArray<{ id: string; text: string }>, options?: Bm25Options, from?: Hash): Hash {
  const h = from ? from.copy() : createHash('sha256').update(JSON.stringify(resolve(options)));
  for (const d of docs) h.update(d.id).update('\u0000').update(d.text).update('\u0001');
  return h;
}

/** Content hash of (documents, resolved options): the cache key. An index grown by `add` has its full document list's key. */
export function bm25CacheKey(docs: ReadonlyArray<{ id: string; text: string }>, options?: Bm25Options): string {
  return hashOf(docs, options).digest('hex');
}

function lookup(key: string): GrowingBm25 | undefined {
  const found = cache.get(key);
  if (!found) return undefined;
  cache.delete(key); // refresh LRU position
  cache.set(key, found);
  stats.hits += 1;
  return found;
}

function remember(key: string, index: GrowingBm25): void {
  cache.set(key, index);
  const ref = index.corpusRef;
  const entry = corpora.get(ref) ?? { entries: 0, counted: 0 };
  entry.entries += 1;
  cachedDocs += index.corpusSize - entry.counted;
  entry.counted = index.corpusSize;
  corpora.set(ref, entry);
  while (cache.size > MAX_ENTRIES || (cachedDocs > MAX_CACHED_DOCS && cache.size > 1)) {
    const oldest = cache.keys().next().value as string;
    const victimRef = cache.get(oldest)!.corpusRef;
    cache.delete(oldest);
    const victim = corpora.get(victimRef)!;
    victim.entries -= 1;
    if (victim.entries === 0) {
      cachedDocs -= victim.counted;
      corpora.delete(victimRef);
    }
  }
}

/** The cached index for these documents and options, building (and caching) it on a miss. */
export function getBm25Index(
  docs: ReadonlyArray<{ id: string; text: string }>,
  options?: Bm25Options,
): { index: GrowingBm25; cached: boolean } {
  const h = hashOf(docs, options);
  const key = h.copy().digest('hex');
  const found = lookup(key);
  if (found) return { index: found, cached: true };
  const t = performance.now();
  const index = GrowingBm25.build(docs, paramsOf(options), h);
  stats.buildMs += performance.now() - t;
  stats.misses += 1;
  remember(key, index);
  return { index, cached: false };
}

/**
 * `index` grown by `docs`, from the cache when the same document list was indexed before (by `index` or by `add`):
 * an index grown by `add` is the index of its whole document list, and shares its cache entry.
 */
export function extendBm25Index(
  index: GrowingBm25,
  docs: ReadonlyArray<{ id: string; text: string }>,
): { index: GrowingBm25; cached: boolean } {
  if (!index.hashState) throw new Error('bm25.add: this index was built outside the cache');
  const h = hashOf(docs, undefined, index.hashState);
  const key = h.copy().digest('hex');
  const found = lookup(key);
  if (found) return { index: found, cached: true };
  const t = performance.now();
  const grown = index.extend(docs, h);
  stats.buildMs += performance.now() - t;
  stats.misses += 1;
  remember(key, grown);
  return { index: grown, cached: false };
}

export function bm25CacheStats(): Bm25CacheStats {
  return { hits: stats.hits, misses: stats.misses, size: cache.size, buildMs: stats.buildMs };
}

/** Empties the index cache and the term cache (benchmarks and tests measure cold builds with it). */
export function clearBm25Cache(): void {
  cache.clear();
  termCache.clear();
  corpora.clear();
  cachedDocs = 0;
  stats.hits = 0;
  stats.misses = 0;
  stats.buildMs = 0;
}
