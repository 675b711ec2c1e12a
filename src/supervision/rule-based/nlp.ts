/**
 * Sentence, part-of-speech and lemma analysis from wink-nlp's English light model, with character offsets into the
 * analysed text. The question families read clauses ("I painted a sunrise") from it instead of guessing parts of
 * speech from capitals and suffixes.
 */
import winkNLP, { type ItemSentence, type ItsFunction, type WinkMethods } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';

/** One token with its offsets in the analysed text. */
export interface NlpToken {
  text: string;
  /** Lower-case lemma ("paint" for "painted"). */
  lemma: string;
  /** Universal part of speech (NOUN, VERB, PROPN, AUX, PRON, ADJ, ADP, DET…). */
  pos: string;
  start: number;
  end: number;
}

/** One sentence with its offsets and tokens. */
export interface NlpSentence {
  start: number;
  end: number;
  text: string;
  tokens: NlpToken[];
}

let engine: WinkMethods | undefined;

/** The model loads once per process (~60 ms), on first use. */
function nlp(): WinkMethods {
  engine ??= winkNLP(model);
  return engine;
}

/**
 * The text wink reads, with each character's offset in the original. wink's light model keeps "I'm" and "we're" as
 * one proper-noun token (and then misreads the verb after it), so they are spelt out ("I am") for it.
 */
function forWink(text: string): { text: string; orig: number[] } {
  let out = '';
  const orig: number[] = [];
  let last = 0;
  for (const m of text.matchAll(/\b(I|[Ww]e|[Yy]ou|[Tt]hey)['’](m|re)\b/g)) {
    for (let k = last; k < m.index; k++) orig.push(k);
    out += text.slice(last, m.index);
    const spelt = `${m[1]} ${m[2] === 'm' ? 'am' : 'are'}`;
    const apostrophe = m.index + m[1]!.length;
    // The subject keeps its characters; the spelt-out verb maps onto the apostrophe and the contraction's letters.
    for (let k = 0; k < spelt.length; k++)
      orig.push(k < m[1]!.length ? m.index + k : Math.min(apostrophe + Math.max(0, k - m[1]!.length - 1), m.index + m[0].length - 1));
    out += spelt;
    last = m.index + m[0].length;
  }
  for (let k = last; k < text.length; k++) orig.push(k);
  out += text.slice(last);
  orig.push(text.length);
  return { text: out, orig };
}

/**
 * The sentences of `text` with their tokens, offsets located in `text` itself (so quotes taken from them verify),
 * shifted by `offset` when `text` is a slice of a longer one.
 */
export function analyse(text: string, offset = 0): NlpSentence[] {
  const w = nlp();
  const its = w.its;
  const read = forWink(text);
  const doc = w.readDoc(read.text);
  const values = doc.tokens().out(its.value) as string[];
  // wink's typings give `its.lemma` a narrower signature than `out` accepts; it is a token property like the others.
  const lemmas = doc.tokens().out(its.lemma as unknown as ItsFunction<string>) as string[];
  const pos = doc.tokens().out(its.pos) as string[];
  // One entry per wink token (undefined for a token not found in the text), so sentences can be cut by count.
  const tokens: Array<NlpToken | undefined> = [];
  let at = 0;
  for (let k = 0; k < values.length; k++) {
    const v = values[k]!;
    const found = read.text.indexOf(v, at);
    if (found < 0) {
      // wink normalised the token's characters (some quotes): it cannot be placed in the text, so it is left out.
      tokens.push(undefined);
      continue;
    }
    at = found + v.length;
    const start = read.orig[found]! + offset;
    const end = read.orig[at - 1]! + 1 + offset;
    tokens.push({ text: v, lemma: (lemmas[k] ?? v).toLowerCase(), pos: pos[k] ?? 'X', start, end });
  }
  const out: NlpSentence[] = [];
  let k = 0;
  doc.sentences().each((s: ItemSentence) => {
    const n = (s.tokens().out(its.value) as string[]).length;
    const own = tokens.slice(k, k + n).filter((t): t is NlpToken => t !== undefined);
    k += n;
    if (!own.length) return;
    const start = own[0]!.start;
    const end = own[own.length - 1]!.end;
    out.push({ start, end, text: text.slice(start - offset, end - offset), tokens: own });
  });
  return out;
}

const sentenceCache = new Map<string, NlpSentence[]>();

/** The analysed sentence of `text` holding `offset` and the index of the token starting there (-1: none); cached. */
export function sentenceAt(text: string, offset: number): { sentence: NlpSentence; at: number } | undefined {
  let a = sentenceCache.get(text);
  if (!a) {
    // Bounded: a long history's sentences are asked about a few times each, close together.
    if (sentenceCache.size > 50_000) sentenceCache.clear();
    sentenceCache.set(text, (a = analyse(text)));
  }
  const sentence = a.find((s) => s.start <= offset && offset < s.end);
  return sentence && { sentence, at: sentence.tokens.findIndex((t) => t.start === offset) };
}

/** The part of speech of the word starting at `offset` of `text` (a sentence), or undefined; analyses are cached. */
export function posAt(text: string, offset: number): string | undefined {
  const found = sentenceAt(text, offset);
  return found && found.at >= 0 ? found.sentence.tokens[found.at]!.pos : undefined;
}
