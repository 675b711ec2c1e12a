import { decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens, PLAIN_TEXT } from '../../text/text.ts';

/** Where a cut may fall: after a run of letters/digits or after one other non-space character. */
const PIECE = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

/**
 * The longest prefix of `text` (cut after a whole word or mark) whose countTokens is at most `tokens`.
 * The host applies it to a context over budget, so every design is held to the same budget.
 */
export function truncateToTokens(text: string, tokens: number): string {
  if (tokens <= 0) return '';
  const ids = encode(text, PLAIN_TEXT);
  if (ids.length <= tokens) return text;
  // The first `tokens` tokens decode to (about) the right prefix; a token can end inside a word or a UTF-8 sequence.
  let rough = decode(ids.slice(0, tokens));
  while (rough.length > 0 && !text.startsWith(rough)) rough = rough.slice(0, -1);
  const ends: number[] = [];
  for (const m of text.matchAll(PIECE)) ends.push(m.index + m[0].length);
  // The last piece end inside the rough prefix, moved back while over budget, then forward while still within it.
  let i = -1;
  while (i + 1 < ends.length && ends[i + 1]! <= rough.length) i++;
  while (i >= 0 && countTokens(text.slice(0, ends[i])) > tokens) i--;
  while (i + 1 < ends.length && countTokens(text.slice(0, ends[i + 1])) <= tokens) i++;
  return i < 0 ? '' : text.slice(0, ends[i]);
}

/** Counts a context and truncates it to the budget when over. */
export function fitToBudget(text: string, budget: number): { text: string; tokens: number; truncatedFrom?: number } {
  const tokens = countTokens(text);
  if (tokens <= budget) return { text, tokens };
  const cut = truncateToTokens(text, budget);
  return { text: cut, tokens: countTokens(cut), truncatedFrom: tokens };
}
