import { stemmer } from 'stemmer';
import { STOPWORDS } from './stopwords.ts';

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/** Lower-cased word tokens: letters and digits, keeping inner apostrophes and hyphens. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

const stemCache = new Map<string, string>();
/** Porter stem of one lower-case word (memoised: the vocabulary of a history is small). */
export function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = stemmer(word);
    if (stemCache.size < 200_000) stemCache.set(word, s);
  }
  return s;
}

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.replace('’', "'"));
}

/** tokenize → drop stopwords → stem. */
export function terms(text: string, options: { stem?: boolean; stopwords?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const t of tokenize(text)) {
    if (options.stopwords !== false && isStopword(t)) continue;
    out.push(options.stem === false ? t : stem(t));
  }
  return out;
}

/**
 * Tokens as budgets count them. A deterministic approximation of BPE tokenizers (within ~10% of cl100k on
 * English prose): each word costs round(chars/5) tokens, at least 1; each punctuation mark costs 1.
 */
export function countTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)) {
    const w = m[0];
    n += w.length > 1 && /[\p{L}\p{N}]/u.test(w[0]!) ? Math.max(1, Math.round(w.length / 5)) : 1;
  }
  return n;
}
