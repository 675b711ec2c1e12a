import type { Token } from './cues.ts';
import { splitSentences, type Sentence } from './facts.ts';
import { posAt, sentenceAt } from './nlp.ts';
import { nounPhrases, type Phrase } from './phrases.ts';
import { lemmaCandidates, wordClasses } from './wordnet.ts';

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
      if (!nounHeaded(s, p)) continue;
      const answer = p.text.replace(/^the /, '');
      const list = out.get(head.stem) ?? [];
      if (!list.some((k) => k.answer.toLowerCase() === answer.toLowerCase())) list.push({ phrase: p, head, answer, sentence: s });
      out.set(head.stem, list);
    }
  }
  return out;
}

/** Determiners a plural noun cannot follow: "a notes section" is one thing, never "a notes" doing something. */
const SINGULAR_DETERMINERS = new Set(['a', 'an', 'each', 'every', 'another']);
/** Words before a plural-looking modifier that make it a verb: "This sets expectations", "one that balances precision". */
const SUBJECTS = new Set(['this', 'that', 'it', 'which', 'who', 'one', 'he', 'she']);
/** Words that open a clause whose subject may look like a noun phrase: "where the money goes". */
const QUESTION_WORDS = new Set(['where', 'how', 'why', 'what', 'when', 'whether', 'if']);
/** Tagged verb uses (WordNet) that make a word after a plural noun read as its verb: "matter" 21, "section" 0. */
const VERB_TAGS = 5;

/**
 * Whether phrase `p` of sentence `s` names a thing, not a clause wink's light model read as a noun phrase. After a
 * plural noun, a word that is commonly a verb or an adverb is usually the clause's verb ("why these small victories
 * matter", "how the colors blend", "your reflections show") or an adverb ("rotate their positions halfway"); as
 * the object of a preposition ("in the ingredients table") or after "a" ("a notes section") it is the phrase's head.
 * After a question word, a verb's -s form is the clause's verb ("where the money goes"). A head WordNet knows, but
 * not as a noun ("halfway"), never heads one.
 */
function nounHeaded(s: Sentence, p: Phrase): boolean {
  const found = sentenceAt(s.text, p.start - s.start);
  const toks = found?.sentence.tokens ?? [];
  const tokenAt = (t: Token) => toks.find((x) => x.start === t.start - s.start);
  const head = p.words[p.words.length - 1]!;
  const headWord = head.word.toLowerCase();
  // wink's lemma as well as morphy's: morphy leaves "bushes" whole (too short to detach "shes").
  const headToken = tokenAt(head);
  const lemmas = (pos: 'noun' | 'verb') => [...new Set([...lemmaCandidates(headWord, pos), headToken?.lemma ?? headWord])];
  const asNoun = lemmas('noun').map((l) => wordClasses(l));
  const known = [...asNoun, ...lemmas('verb').map((l) => wordClasses(l))].some((c) => Object.keys(c).length);
  if (known && !asNoun.some((c) => c.noun !== undefined)) return false;
  const first = toks.findIndex((t) => t.start === p.start - s.start);
  const before = first > 0 ? toks[first - 1]! : undefined;
  const beforeThat = first > 1 ? toks[first - 2]! : undefined;
  const b = before?.text.toLowerCase();
  // "where the money goes", "how the plan works": after a question word a singular noun and a verb's -s form are a
  // clause's subject and verb.
  const thirdPerson = !!headToken && /s$/.test(headWord) && headToken.lemma !== headWord && (wordClasses(headToken.lemma).verb ?? 0) > 0;
  const clauseOpener = [b, before && ['DET', 'PRON'].includes(before.pos) ? beforeThat?.text.toLowerCase() : undefined];
  if (thirdPerson && clauseOpener.some((w) => w && QUESTION_WORDS.has(w))) return false;
  const tok = tokenAt(p.words[p.words.length - 2]!);
  const plural = !!tok && /s$/i.test(tok.text) && tok.lemma !== tok.text.toLowerCase();
  if (!plural) return true;
  if (b && SUBJECTS.has(b) && before!.pos !== 'ADP') return false;
  if (b && SINGULAR_DETERMINERS.has(b)) return true;
  const objectOfPreposition = before?.pos === 'ADP' || (!!before && ['DET', 'PRON'].includes(before.pos) && beforeThat?.pos === 'ADP');
  if (objectOfPreposition) return true;
  const c = wordClasses(headWord);
  return !((c.verb ?? 0) >= VERB_TAGS || (c.adverb !== undefined && (c.adverb ?? 0) >= (c.noun ?? 0)));
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
