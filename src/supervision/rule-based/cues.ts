import { isStopword, stem } from '../../text/text.ts';
import type { RecordGraph } from '../record-graph.ts';

/** Record indices containing each stemmed term (built once per history from the graph's term sets). */
export type Postings = Map<string, number[]>;

export function buildPostings(graph: RecordGraph): Postings {
  const postings: Postings = new Map();
  graph.termSets.forEach((set, i) => {
    for (const t of set) {
      let list = postings.get(t);
      if (!list) postings.set(t, (list = []));
      list.push(i);
    }
  });
  return postings;
}

/** A word of a text with its offsets and stem. */
export interface Token {
  word: string;
  stem: string;
  start: number;
  end: number;
}

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

export function tokensIn(text: string, start = 0, end = text.length): Token[] {
  const out: Token[] = [];
  const body = text.slice(start, end);
  for (const m of body.matchAll(WORD)) {
    const lower = m[0].toLowerCase();
    out.push({ word: m[0], stem: stem(lower), start: start + m.index, end: start + m.index + m[0].length });
  }
  return out;
}

const VAGUE = new Set([
  'thing',
  'things',
  'really',
  'much',
  'many',
  'lot',
  'lots',
  'good',
  'great',
  'glad',
  'sure',
  'yeah',
  'also',
  'just',
  'like',
  'know',
  'think',
  'feel',
  'feeling',
  'time',
  'times',
  'day',
  'days',
  'today',
  'yesterday',
  'tomorrow',
  'week',
  'month',
  'year',
  'years',
  'amazing',
  'awesome',
  'thanks',
  'thank',
  'wow',
  'cool',
  'nice',
  'love',
  'happy',
  'user',
  'assistant',
  'sender',
  'recipient',
  'subject',
  'summary',
  'would',
  'could',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'hey',
  'hi',
  'hello',
  'sounds',
  'make',
  'made',
  'get',
  'got',
  'going',
  'want',
  'need',
  'way',
  'let',
  'keep',
  'well',
  'right',
  'even',
  'still',
  'new',
  'help',
  'helps',
  'see',
  'say',
  'said',
  'tell',
  'told',
  'whoa',
  'anything',
  'everything',
  'something',
  'nothing',
  'everyone',
  'someone',
  'anyone',
  'definitely',
  'absolutely',
  'totally',
  'recently',
  'especially',
  'actually',
  'probably',
  'maybe',
  'never',
  'always',
  'often',
  'sometimes',
  'usually',
  'totally',
  'person',
  'people',
  'stuff',
  'big',
  'little',
  'start',
  'started',
  'thinking',
  'awesome',
  'gorgeous',
  'wonderful',
  'beautiful',
  'incredible',
  'super',
  'pretty',
  'lovely',
  'enjoy',
  'enjoyed',
  'looking',
  'look',
  'looks',
  'forward',
  'glad',
  'hope',
  'hoping',
  'wish',
  'care',
  'care',
  'cool',
  'fun',
  'exciting',
  'excited',
  "how'd",
  "that's",
  "it's",
  "what's",
]);

/** A word worth asking about: not vague, not an adverb in -ly, not a contraction. */
export function isTopicWord(lower: string): boolean {
  return lower.length >= 4 && !VAGUE.has(lower) && !/ly$/.test(lower) && !/['’]/.test(lower) && !/\d/.test(lower);
}

/** Cue words that point a question at its evidence without giving the answer away. */
export interface Cues {
  /** Surface words, in the order they appear in the text. */
  words: string[];
  stems: string[];
  /** Records of the history that contain every cue stem. */
  matches: number[];
}

export interface CueOptions {
  min?: number;
  max?: number;
  /** Stems that must not be cues (the answer's words, speaker names…). */
  exclude?: ReadonlySet<string>;
  /** Terms in more than this share of records are too common to be cues. Default 0.05. */
  maxDfShare?: number;
}

/**
 * Chooses cue words from `[start, end)` of a record's text: content words shared with a few other records first
 * (so a question reads like one about the history, not a copy of the sentence), then rarer ones, adding words
 * until `accept` holds for the set of records that contain all of them (e.g. "only this record").
 */
export function pickCues(
  graph: RecordGraph,
  postings: Postings,
  recordIndex: number,
  start: number,
  end: number,
  accept: (matches: number[]) => boolean,
  options: CueOptions = {},
): Cues | undefined {
  const min = options.min ?? 2;
  const max = options.max ?? 4;
  const maxDf = Math.max(3, Math.floor(graph.records.length * (options.maxDfShare ?? 0.05)));
  const text = graph.records[recordIndex]!.text;
  const seen = new Set<string>();
  const cands: Token[] = [];
  for (const t of tokensIn(text, start, end)) {
    const lower = t.word.toLowerCase();
    if (lower.length < 3 || /\d/.test(lower) || isStopword(lower) || VAGUE.has(lower)) continue;
    if (/ly$/.test(lower) || /['’]/.test(lower)) continue;
    if (options.exclude?.has(t.stem) || seen.has(t.stem)) continue;
    const df = postings.get(t.stem)?.length ?? 0;
    if (df === 0 || df > maxDf) continue;
    seen.add(t.stem);
    cands.push(t);
  }
  const df = (t: Token): number => postings.get(t.stem)!.length;
  // The most widely shared words first (under the cap), words found nowhere else only when needed: the cue set
  // then identifies its record only in combination, as a real question does, instead of by one rare word that
  // makes retrieval trivial.
  cands.sort((a, b) => (df(a) === 1 ? 1 : 0) - (df(b) === 1 ? 1 : 0) || df(b) - df(a) || a.start - b.start);
  const chosen: Token[] = [];
  let matches: number[] | undefined;
  for (const c of cands) {
    if (chosen.length >= max) break;
    const list = postings.get(c.stem)!;
    const next = matches ? intersect(matches, list) : [...list];
    if (!next.includes(recordIndex)) continue;
    chosen.push(c);
    matches = next;
    if (chosen.length >= min && accept(matches)) {
      chosen.sort((a, b) => a.start - b.start);
      return { words: chosen.map((t) => displayWord(t.word, text, t.start)), stems: chosen.map((t) => t.stem), matches };
    }
  }
  return undefined;
}

function displayWord(word: string, text: string, start: number): string {
  // Keep a capital only where it is not just the start of a sentence.
  const before = text.slice(Math.max(0, start - 3), start);
  const opensSentence = start === 0 || /[.!?:\n"“]\s*$/.test(before);
  return /^[A-Z][a-z]/.test(word) && !opensSentence ? word : /^[A-Z]{2,}$/.test(word) ? word : word.toLowerCase();
}

/** Records containing every stem of `stems`, in the order of the first stem's postings. */
export function recordsWithAll(postings: Postings, stems: readonly string[]): number[] {
  let out: number[] | undefined;
  for (const t of stems) {
    const l = postings.get(t) ?? [];
    out = out ? intersect(out, l) : [...l];
  }
  return out ?? [];
}

function intersect(a: number[], b: number[]): number[] {
  const set = new Set(b);
  return a.filter((x) => set.has(x));
}

/** "a", "a and b", "a, b and c". */
export function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
