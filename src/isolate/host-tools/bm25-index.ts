import { createHash } from 'node:crypto';
import bm25 from 'wink-bm25-text-search';
import type { Bm25Options, Hit } from '../../../sandbox/contract.ts';
import type { Bm25CacheStats } from '../sandbox-api.ts';
import { terms } from '../../text/text.ts';

/** A built index, shared by every sandbox in the process that indexes the same documents. */
export interface SearchIndex {
  readonly size: number;
  search(query: string, k: number): Hit[];
}

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
 * Builds an index without the cache: wink-bm25-text-search for 3 or more documents, a plain BM25 with
 * wink's formula below that (wink's consolidate() refuses fewer than 3 documents).
 */
export function buildBm25Index(docs: ReadonlyArray<{ id: string; text: string }>, options?: Bm25Options): SearchIndex {
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

const MAX_ENTRIES = 48;
const MAX_CACHED_DOCS = 400_000;
const cache = new Map<string, SearchIndex>();
let cachedDocs = 0;
const stats = { hits: 0, misses: 0, buildMs: 0 };

/** Content hash of (documents, resolved options): the cache key. */
export function bm25CacheKey(docs: ReadonlyArray<{ id: string; text: string }>, options?: Bm25Options): string {
  const h = createHash('sha256').update(JSON.stringify(resolve(options)));
  for (const d of docs) h.update(d.id).update('\u0000').update(d.text).update('\u0001');
  return h.digest('hex');
}

/** The cached index for these documents and options, building (and caching) it on a miss. */
export function getBm25Index(
  docs: ReadonlyArray<{ id: string; text: string }>,
  options?: Bm25Options,
): { index: SearchIndex; cached: boolean } {
  const key = bm25CacheKey(docs, options);
  const found = cache.get(key);
  if (found) {
    cache.delete(key); // refresh LRU position
    cache.set(key, found);
    stats.hits += 1;
    return { index: found, cached: true };
  }
  const t = performance.now();
  const index = buildBm25Index(docs, options);
  stats.buildMs += performance.now() - t;
  stats.misses += 1;
  cache.set(key, index);
  cachedDocs += index.size;
  while (cache.size > MAX_ENTRIES || (cachedDocs > MAX_CACHED_DOCS && cache.size > 1)) {
    const oldest = cache.keys().next().value as string;
    cachedDocs -= cache.get(oldest)!.size;
    cache.delete(oldest);
  }
  return { index, cached: false };
}

export function bm25CacheStats(): Bm25CacheStats {
  return { hits: stats.hits, misses: stats.misses, size: cache.size, buildMs: stats.buildMs };
}

export function clearBm25Cache(): void {
  cache.clear();
  cachedDocs = 0;
  stats.hits = 0;
  stats.misses = 0;
  stats.buildMs = 0;
}
