import type { Token } from './cues.ts';
import { splitSentences, type Sentence } from './facts.ts';
import { posAt } from './nlp.ts';
import { nounPhrases, type Phrase } from './phrases.ts';

/** A two-or-more-word noun phrase and its head ("yoga studio", head "studio"): the answer of a "which N" question. */
export interface Kind {
  phrase: Phrase;
  head: Token;
  /** The answer: the phrase without "the". */
  answer: string;
  sentence: Sentence;
}

/** How a history uses a word as a noun (see nounUsage in phrases.ts). */
export type NounUsage = (lower: string) => 'head' | 'modifier' | undefined;

/** Longest noun phrases of `text` (its sentences within `[from, to)`) with a modifier, keyed by their head's stem. */
export function nounKinds(text: string, usage: NounUsage, from = 0, to = Number.POSITIVE_INFINITY): Map<string, Kind[]> {
  const out = new Map<string, Kind[]>();
  for (const s of splitSentences(text)) {
    if (s.start < from || s.end > to) continue;
    const ps = nounPhrases(text, s, usage);
    for (const p of ps) {
      if (p.words.length < 2) continue;
      // Only the longest phrase of a run (a shorter tail of it starts later and ends at the same word).
      if (ps.some((q) => q.end === p.end && q.start < p.start)) continue;
      const head = p.words[p.words.length - 1]!;
      if (usage(head.word.toLowerCase()) !== 'head' || /^[A-Z]/.test(head.word)) continue;
      // The history's noun usage is word-wide; here the word must be a noun in this sentence. "These mechanisms echo
      // the plan" and "the principles behind it" otherwise ask "Which echo…?" and "What behind…?".
      if (posAt(s.text, head.start - s.start) !== 'NOUN') continue;
      // "wide range", "favorite part", "first step": an adjective's phrase is a way of speaking, not a thing the
      // person has or did ("pottery class", "adoption agency" are).
      const modifier = p.words[p.words.length - 2]!;
      const modifierPos = posAt(s.text, modifier.start - s.start);
      if (modifierPos !== 'NOUN' && modifierPos !== 'PROPN') continue;
      const answer = p.text.replace(/^the /, '');
      const list = out.get(head.stem) ?? [];
      if (!list.some((k) => k.answer.toLowerCase() === answer.toLowerCase())) list.push({ phrase: p, head, answer, sentence: s });
      out.set(head.stem, list);
    }
  }
  return out;
}

/**
 * `nounKinds` remembered per record and range. The templates ask for the same record's kinds once per candidate
 * (every linked pair, every utterance, every retry), and the noun phrases and part-of-speech tags behind them are
 * the generator's most expensive step; records and the history's noun usage never change within a rule context,
 * so the answer cannot either. Callers share the result and must not change it.
 */
export function kindsMemo(
  texts: readonly string[],
  usage: NounUsage,
): (index: number, from?: number, to?: number) => ReadonlyMap<string, readonly Kind[]> {
  const memo = new Map<string, Map<string, Kind[]>>();
  return (index, from = 0, to = Number.POSITIVE_INFINITY) => {
    const key = `${index}:${from}:${to}`;
    let kinds = memo.get(key);
    if (!kinds) memo.set(key, (kinds = nounKinds(texts[index]!, usage, from, to)));
    return kinds;
  };
}
