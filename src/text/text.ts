import { countTokens as bpeCount } from 'gpt-tokenizer/encoding/o200k_base';
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

/** The encoding every budget and cost estimate counts in (GPT-4o's); see README "Scoring". */
export const TOKEN_ENCODING = 'o200k_base';

/**
 * Tokens as budgets count them: the o200k_base BPE (gpt-tokenizer, pure JS, ranks shipped with the package), so a
 * context costs what a model would read and squeezing out whitespace buys nothing.
 */
export function countTokens(text: string): number {
  return bpeCount(text, PLAIN_TEXT);
}

/** Special-token markers ("<|endoftext|>") in a history or a design's text are plain text, never an error. */
export const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** `text` as a regular expression that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
