import type { Hash } from 'node:crypto';
import type { Hit } from '../../../sandbox/contract.ts';

/** BM25 parameters and term preparation of one index, resolved to concrete values. */
export interface Bm25Params {
  k1: number;
  b: number;
  /** The constant inside wink's IDF: log((N − n + 0.5) / (n + 0.5) + k). */
  k: number;
  /** Document and query text → index terms. */
  prep: (text: string) => readonly string[];
}

/** wink-bm25-text-search rounds each document–term weight to this many decimals (its `consolidate()` default). */
const WEIGHT_DECIMALS = 4;

/**
 * The documents of an append-only index: every version of it is a prefix (its first `n` documents), so growing the
 * corpus never changes what an older version holds and one corpus serves a whole chain of `add`s. A version that is
 * extended while a longer version already shares its corpus forks a copy of its prefix first.
 *
 * Terms are interned to numbers and each term's postings are two parallel arrays (document numbers ascending, term
 * frequencies): appending a document costs its terms and nothing else.
 */
class Corpus {
  readonly ids: string[] = [];
  readonly #numberOf = new Map<string, number>();
  /** Term count of each document (wink's document length). */
  readonly lengths: number[] = [];
  /** cumulative[n]: summed length of the first n documents. */
  readonly cumulative: number[] = [0];
  /** For ids that are array indices ("0", "17"): their numeric value, else -1 (wink's result order depends on it). */
  readonly indexKey: number[] = [];
  readonly termIds = new Map<string, number>();
  /** Per term id: the documents holding it (ascending) and its frequency in each. */
  readonly postDocs: number[][] = [];
  readonly postTfs: number[][] = [];
  /** Scratch per term id while a document is counted (always back to 0 after). */
  readonly #counts: number[] = [];
  readonly params: Bm25Params;

  constructor(params: Bm25Params) {
    this.params = params;
  }

  get count(): number {
    return this.ids.length;
  }

  /** Whether `id` is among the first `n` documents. */
  has(id: string, n: number): boolean {
    const at = this.#numberOf.get(id);
    return at !== undefined && at < n;
  }

  /** Appends documents (ids checked by the caller). */
  append(docs: ReadonlyArray<{ id: string; text: string }>): void {
    const counts = this.#counts;
    const touched: number[] = [];
    for (const d of docs) {
      const num = this.ids.length;
      this.ids.push(d.id);
      this.#numberOf.set(d.id, num);
      this.indexKey.push(arrayIndexValue(d.id));
      const terms = this.params.prep(d.text);
      touched.length = 0;
      for (const t of terms) {
        let id = this.termIds.get(t);
        if (id === undefined) {
          id = this.postDocs.length;
          this.termIds.set(t, id);
          this.postDocs.push([]);
          this.postTfs.push([]);
          counts.push(0);
        }
        if (counts[id] === 0) touched.push(id);
        counts[id]! += 1;
      }
      for (const id of touched) {
        this.postDocs[id]!.push(num);
        this.postTfs[id]!.push(counts[id]!);
        counts[id] = 0;
      }
      this.lengths.push(terms.length);
      this.cumulative.push(this.cumulative[num]! + terms.length);
    }
  }

  /** A new corpus holding only the first `n` documents. */
  fork(n: number): Corpus {
    const copy = new Corpus(this.params);
    for (let i = 0; i < n; i++) {
      copy.ids.push(this.ids[i]!);
      copy.#numberOf.set(this.ids[i]!, i);
      copy.indexKey.push(this.indexKey[i]!);
      copy.lengths.push(this.lengths[i]!);
      copy.cumulative.push(this.cumulative[i + 1]!);
    }
    for (const [t, id] of this.termIds) {
      const docs = this.postDocs[id]!;
      const df = prefixLength(docs, n);
      if (df === 0) continue;
      copy.termIds.set(t, copy.postDocs.length);
      copy.postDocs.push(docs.slice(0, df));
      copy.postTfs.push(this.postTfs[id]!.slice(0, df));
      copy.#counts.push(0);
    }
    return copy;
  }
}

/** Postings of one term weighted for one version (wink's consolidated `freq[t]`, computed when first queried). */
interface Weighted {
  docs: number[];
  weights: Float64Array;
}

/**
 * Weights one version keeps, summed over its memoised terms (a version often serves only the questions of one date,
 * and the process-wide cache holds many versions: this bounds their memory; past it weights are computed per query).
 */
const MAX_MEMO_WEIGHTS = 100_000;

/**
 * One version of a growing BM25 index: the first `size` documents of a corpus. Scores, their rounding and the order
 * of results (ties included) are wink-bm25-text-search's, so an index grown by `extend` answers exactly as one built
 * over all its documents at once (and as wink would).
 */
export class GrowingBm25 {
  readonly size: number;
  #corpus: Corpus;
  /** The content hash over (options, documents so far), not yet finalised: `extend` continues it. */
  readonly hashState: Hash | null;
  #memo = new Map<string, Weighted>();
  #memoWeights = 0;

  private constructor(corpus: Corpus, size: number, hashState: Hash | null) {
    this.#corpus = corpus;
    this.size = size;
    this.hashState = hashState;
  }

  /** An index over `docs`. Throws on a duplicate id. `hashState` is kept for cache keys of later extensions. */
  static build(docs: ReadonlyArray<{ id: string; text: string }>, params: Bm25Params, hashState: Hash | null = null): GrowingBm25 {
    const corpus = new Corpus(params);
    checkIds(corpus, 0, docs);
    corpus.append(docs);
    return new GrowingBm25(corpus, docs.length, hashState);
  }

  /**
   * An index over this index's documents followed by `docs`; this one is unchanged. Costs the new documents only,
   * unless another extension of this version already grew the shared corpus (then the prefix is copied once).
   */
  extend(docs: ReadonlyArray<{ id: string; text: string }>, hashState: Hash | null = null): GrowingBm25 {
    let corpus = this.#corpus;
    checkIds(corpus, this.size, docs);
    if (corpus.count !== this.size) corpus = corpus.fork(this.size);
    corpus.append(docs);
    return new GrowingBm25(corpus, this.size + docs.length, hashState);
  }

  /** Top-k documents, best first, as wink's `search(query, k)` returns them for the same documents. */
  search(query: string, k: number): Hit[] {
    if (!(k >= 1) || this.size === 0) return [];
    const c = this.#corpus;
    // Scores by document number, and the documents in the order they were first scored.
    const scores = new Float64Array(this.size);
    const seen = new Uint8Array(this.size);
    const order: number[] = [];
    for (const t of c.params.prep(query)) {
      const w = this.#weighted(t);
      if (!w) continue;
      // w.docs may be the corpus's own postings array, which later versions grow: read only this version's part.
      for (let i = 0; i < w.weights.length; i++) {
        const doc = w.docs[i]!;
        if (seen[doc] === 0) {
          seen[doc] = 1;
          order.push(doc);
        }
        scores[doc] = w.weights[i]! + scores[doc]!;
      }
    }
    // wink collects scores in a plain object: array-index ids come out first in numeric order, then the others in
    // first-scored order; its stable sort keeps that order among equal scores.
    const indexed: number[] = [];
    const named: number[] = [];
    for (const doc of order) (c.indexKey[doc]! >= 0 ? indexed : named).push(doc);
    indexed.sort((a, b) => c.indexKey[a]! - c.indexKey[b]!);
    const ranked = [...indexed, ...named].map((doc) => [doc, scores[doc]!] as const);
    ranked.sort((a, b) => (b[1] > a[1] ? 1 : b[1] === a[1] ? 0 : -1));
    return ranked.slice(0, Math.min(Math.floor(k), this.size)).map(([doc, score]) => ({ unit: c.ids[doc]!, score }));
  }

  #weighted(term: string): Weighted | null {
    const memo = this.#memo.get(term);
    if (memo) return memo;
    const c = this.#corpus;
    const id = c.termIds.get(term);
    if (id === undefined) return null;
    const p = { docs: c.postDocs[id]!, tfs: c.postTfs[id]! };
    const df = prefixLength(p.docs, this.size);
    if (df === 0) return null;
    const { k1, b, k } = c.params;
    const n = this.size;
    const idf = Math.log((n - df + 0.5) / (df + 0.5) + k);
    const avg = c.cumulative[n]! / n;
    const docs = df === p.docs.length ? p.docs : p.docs.slice(0, df);
    const weights = new Float64Array(df);
    for (let i = 0; i < df; i++) {
      const f = p.tfs[i]!;
      const norm = 1 - b + b * (c.lengths[docs[i]!]! / avg);
      // Exactly wink's consolidate(): the rounded weight is what it stores and sums.
      weights[i] = Math.sign(f) * roundLikeToFixed(Math.abs((f * (k1 + 1)) / (k1 * norm + f)) * idf);
    }
    const out = { docs, weights };
    if (this.#memoWeights + df <= MAX_MEMO_WEIGHTS) {
      this.#memo.set(term, out);
      this.#memoWeights += df;
    }
    return out;
  }

  /** The corpus this version reads (cache accounting: versions of one chain share it). */
  get corpusRef(): object {
    return this.#corpus;
  }

  /** Documents in the shared corpus (at least `size`). */
  get corpusSize(): number {
    return this.#corpus.count;
  }
}

function checkIds(corpus: Corpus, n: number, docs: ReadonlyArray<{ id: string }>): void {
  const seen = new Set<string>();
  for (const d of docs) {
    if (seen.has(d.id) || corpus.has(d.id, n)) {
      throw new Error(`bm25.index: duplicate document id ${JSON.stringify(d.id).slice(0, 100)}; ids must be unique`);
    }
    seen.add(d.id);
  }
}

const SCALE = 10 ** WEIGHT_DECIMALS;

/**
 * `Number(x.toFixed(4))` for a weight x ≥ 0, without the string round trip. x · 10⁴ carries a rounding error far
 * below 10⁻⁶ for any BM25 weight, so away from a tie Math.round picks the same integer n that toFixed picks, and n / 10⁴
 * (a correctly rounded division) is the double nearest to the decimal n / 10⁴, which is what parsing toFixed's string
 * gives. Near a tie, toFixed itself decides.
 */
export function roundLikeToFixed(x: number): number {
  const y = x * SCALE;
  if (!(y < 1e15) || Math.abs(y - Math.floor(y) - 0.5) < 1e-6) return Number(x.toFixed(WEIGHT_DECIMALS));
  return Math.round(y) / SCALE;
}

/** How many of the ascending `docs` are below `n`. */
function prefixLength(docs: readonly number[], n: number): number {
  if (docs.length === 0 || docs[docs.length - 1]! < n) return docs.length;
  let lo = 0;
  let hi = docs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (docs[mid]! < n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The numeric value of an id that JavaScript treats as an array index ("0" … "4294967294"), else -1. */
function arrayIndexValue(id: string): number {
  const first = id.charCodeAt(0);
  if (!(first >= 48 && first <= 57) || !/^(?:0|[1-9]\d{0,9})$/.test(id)) return -1;
  const v = Number(id);
  return v < 4294967295 ? v : -1;
}
