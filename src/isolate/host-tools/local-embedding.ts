import { tokenize } from '../../text/text.ts';

/** Name designs see as `tools.embed.model` when no embedding endpoint is configured. */
export const LOCAL_EMBEDDING_MODEL = 'local-hash-ngram-256';
export const LOCAL_EMBEDDING_DIM = 256;

/** 32-bit FNV-1a: fast, stable across runs and platforms (the embedding must be deterministic). */
function fnv1a(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * Feature hashing ("the hashing trick", Weinberger et al. 2009) of word unigrams, word bigrams and
 * character trigrams into `dim` signed buckets, L2-normalised. Lexical, not semantic: it rewards shared
 * words and shared word pieces ("meeting" ~ "meetings"), which is what a local fallback can honestly do.
 * An empty text embeds to the zero vector.
 */
export function localEmbedding(text: string, dim = LOCAL_EMBEDDING_DIM): number[] {
  const v = new Float64Array(dim);
  const add = (feature: string, weight: number): void => {
    const h = fnv1a(feature, 0);
    const sign = fnv1a(feature, 0x9e3779b9) & 1 ? 1 : -1;
    v[h % dim]! += sign * weight;
  };
  const words = tokenize(text);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    add(`w:${w}`, 1);
    if (i > 0) add(`b:${words[i - 1]} ${w}`, 0.5);
    const padded = `<${w}>`;
    for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, 0.3);
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return Array.from(v, (x) => (norm > 0 ? x / norm : 0));
}

/** L2-normalises a vector from a remote embedder; rejects wrong sizes and non-finite values. */
export function normaliseVector(vector: readonly number[], dim: number): number[] {
  if (vector.length !== dim) throw new Error(`embedding has ${vector.length} dimensions, expected ${dim}`);
  let norm = 0;
  for (const x of vector) {
    if (!Number.isFinite(x)) throw new Error('embedding contains a non-finite value');
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  return vector.map((x) => (norm > 0 ? x / norm : 0));
}
