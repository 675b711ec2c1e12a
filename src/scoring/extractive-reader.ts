/**
 * The extractive reader: memsteer's offline answerer. It is not a language model: it picks the sentences of the
 * context that best cover the question's terms and cuts a short span out of them according to the answer the
 * question asks for.
 *
 * 1. The context is split into lines (a line may start with a `[date]` stamp and a `Speaker:` name, as seeds
 *    write them; a line that is only a date sets the date for the lines below) and lines into sentences.
 * 2. Each sentence is scored by the IDF-weighted share of question terms it covers (stemmed; IDF within the
 *    context; the line's speaker counts as a term of the sentence), plus a proximity bonus and a bonus when it
 *    holds an entity of the expected answer type.
 * 3. The expected type comes from the wh-word: when → date, how many/much/long → number, who → name,
 *    where → place, is/did/would… → yes/no, else a phrase.
 * 4. When the best coverage is under a threshold the reader says "Not mentioned": a context that does not
 *    cover the question gives no grounds for an answer.
 * 5. 'When' questions resolve relative phrases ("yesterday", "last week", "last Saturday") against the date of
 *    the line that says them, and fall back to that line's date.
 */
import { LRUCache } from 'lru-cache';
import { CARDINALS } from '../text/number-words.ts';
import type { AnswerType } from '../history/record.ts';
import { isStopword, stem } from '../text/text.ts';
import {
  MONTH_NAMES,
  WEEKDAY_NAMES,
  addDays,
  addMonths,
  findDates,
  formatDate,
  monthNumber,
  type CalendarDate,
} from '../text/date-parse.ts';

/** Name and version of this algorithm, as recorded in traces and manifests. */
export const EXTRACTIVE_READER = 'extractive-reader@2';

/** What the reader answers when the context does not cover the question. */
export const NOT_MENTIONED = 'Not mentioned';

export interface ExtractiveReaderOptions {
  /** The answer type the question expects, when known (overrides the wh-word guess). */
  answerType?: AnswerType;
  /** Minimum IDF-weighted share of question terms the best sentence must cover to answer (default 0.25). */
  minCoverage?: number;
  /** Longest span returned for phrase answers, in words (default 14). */
  maxWords?: number;
  /** The abstention answer (default "Not mentioned"). */
  abstain?: string;
}

export interface ExtractiveAnswer {
  answer: string;
  /** 0–1: how well the chosen sentence covers the question (0 when abstaining). */
  confidence: number;
  /** Character offsets of the answer in the context, when it is a verbatim substring. */
  span?: [number, number];
}

// ---------------------------------------------------------------- tokens, lines, sentences

// Tokens' keys, a line's speaker keys and a sentence's keys are shared between contexts through the parsed-line
// cache (parseContext): they are read-only.
interface Token {
  text: string;
  lower: string;
  keys: readonly string[];
  start: number;
  end: number;
  stop: boolean;
  cap: boolean;
}

interface Line {
  date?: CalendarDate;
  /** Keys of the line's date (month name, year, day) so "in May 2023" in a question can match the stamp. */
  dateKeys: string[];
  speaker?: string;
  speakerKeys: readonly string[];
  index: number;
}

interface Sentence {
  /** Ends with a question mark. */
  asks: boolean;
  start: number;
  end: number;
  tokens: Token[];
  line: Line;
  keys: ReadonlySet<string>;
}

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

// Porter leaves irregular past forms alone; a question's "make" must still find the context's "made".
const IRREGULAR: Record<string, string> = {
  made: 'make',
  went: 'go',
  gone: 'go',
  took: 'take',
  taken: 'take',
  saw: 'see',
  seen: 'see',
  bought: 'buy',
  got: 'get',
  gotten: 'get',
  gave: 'give',
  given: 'give',
  found: 'find',
  felt: 'feel',
  thought: 'think',
  told: 'tell',
  met: 'meet',
  ran: 'run',
  won: 'win',
  wrote: 'write',
  written: 'write',
  ate: 'eat',
  eaten: 'eat',
  drove: 'drive',
  driven: 'drive',
  began: 'begin',
  begun: 'begin',
  brought: 'bring',
  taught: 'teach',
  caught: 'catch',
  kept: 'keep',
  left: 'leave',
  lost: 'lose',
  paid: 'pay',
  sold: 'sell',
  sent: 'send',
  spent: 'spend',
  built: 'build',
  held: 'hold',
  heard: 'hear',
  knew: 'know',
  known: 'know',
  grew: 'grow',
  grown: 'grow',
  threw: 'throw',
  flew: 'fly',
  drew: 'draw',
  drawn: 'draw',
  wore: 'wear',
  worn: 'wear',
  sang: 'sing',
  sung: 'sing',
  swam: 'swim',
  chose: 'choose',
  chosen: 'choose',
  spoke: 'speak',
  spoken: 'speak',
  broke: 'break',
  broken: 'break',
  forgot: 'forget',
  forgotten: 'forget',
  fell: 'fall',
  fallen: 'fall',
  rode: 'ride',
  ridden: 'ride',
  became: 'become',
  came: 'come',
  did: 'do',
  done: 'do',
  said: 'say',
  understood: 'understand',
  stood: 'stand',
  sat: 'sit',
  led: 'lead',
  fed: 'feed',
  hung: 'hang',
  shot: 'shoot',
  dealt: 'deal',
  meant: 'mean',
  slept: 'sleep',
  bit: 'bite',
  hid: 'hide',
  lent: 'lend',
  shook: 'shake',
  woke: 'wake',
  kids: 'kid',
  children: 'kid',
  child: 'kid',
  mom: 'mother',
  mum: 'mother',
  dad: 'father',
  pics: 'photo',
  pic: 'photo',
  picture: 'photo',
  pictures: 'photo',
  photos: 'photo',
};

function keyOf(word: string): string {
  const w = word
    .toLowerCase()
    .replace(/['’]s$/, '')
    .replace(/['’]/g, '');
  return stem(IRREGULAR[w] ?? w);
}

function tokensOf(text: string, offset: number): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) {
    const t = m[0];
    const lower = t.toLowerCase();
    const keys = [keyOf(lower)];
    if (lower.includes('-')) for (const part of lower.split('-')) if (part) keys.push(keyOf(part));
    out.push({
      text: t,
      lower,
      keys,
      start: offset + m.index,
      end: offset + m.index + t.length,
      stop: isStopword(lower) || isStopword(lower.replace(/['’]s$/, '')),
      cap: /^\p{Lu}/u.test(t),
    });
  }
  return out;
}

const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'st', 'jr', 'sr', 'vs', 'etc', 'eg', 'ie', 'prof', 'mt', 'no']);

function splitSentences(text: string, offset: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let from = 0;
  for (const m of text.matchAll(/[.!?…]+["')\]]*\s+(?=["'([]?[\p{Lu}\p{N}])/gu)) {
    const before = /([\p{L}.]+)\.$/u.exec(text.slice(Math.max(0, m.index - 6), m.index + 1));
    if (m[0].startsWith('.') && before && (ABBREVIATIONS.has(before[1]!.replace(/\./g, '').toLowerCase()) || /^\p{Lu}$/u.test(before[1]!)))
      continue;
    const end = m.index + m[0].trimEnd().length;
    if (end > from) out.push([offset + from, offset + end]);
    from = m.index + m[0].length;
  }
  if (from < text.length && text.slice(from).trim()) out.push([offset + from, offset + text.length]);
  return out;
}

const SPEAKER = /^([\p{Lu}][\p{L}\p{M}'’.-]*(?:\s+[\p{Lu}][\p{L}\p{M}'’.-]*){0,3})\s*:\s+/u;
const BRACKET = /^\s*(?:[-*•]\s+)?((?:\[[^\]\n]{0,120}\]\s*|\([^)\n]{0,120}\)\s*)+)/u;

/** A sentence of one line, its offsets counted from the line's start. */
type LineSentence = Omit<Sentence, 'line'>;

/** What a context line says on its own: the date it heads the next lines with, or its stamp, speaker and sentences. */
type LineParse =
  | { header: CalendarDate }
  | { header?: undefined; date?: CalendarDate; speaker?: string; speakerKeys: readonly string[]; sentences: LineSentence[] };

/**
 * Parsed lines by their text. A design's contexts repeat the same records question after question and candidate
 * after candidate, and parsing (tokens, stems, chrono's dates) was most of the offline answerer's time.
 */
const parsedLines = new LRUCache<string, LineParse>({ max: 20_000 });

/** Forgets every parsed line (benchmarks compare answering with and without them). */
export function clearParsedLines(): void {
  parsedLines.clear();
}

function parseLine(raw: string): LineParse {
  let bodyStart = 0;
  let date: CalendarDate | undefined;
  const br = BRACKET.exec(raw);
  if (br) {
    const stamped = findDates(br[1]!).sort((a, b) => precision(b.date) - precision(a.date))[0];
    if (stamped) date = stamped.date;
    bodyStart = br[0].length;
  }
  let body = raw.slice(bodyStart);
  let speaker: string | undefined;
  const sp = SPEAKER.exec(body);
  if (sp && !/^(?:subject|from|to|cc|date|re|note|title|session)$/i.test(sp[1]!)) {
    speaker = sp[1]!;
    bodyStart += sp[0].length;
    body = raw.slice(bodyStart);
  }
  if (!date && !speaker) {
    // A line that is mostly a date ("Session 3 — 8 May 2023", "## 2023-05-08") dates the lines under it.
    const ds = findDates(raw);
    const words = tokensOf(raw, 0).length;
    const best = ds.sort((a, b) => precision(b.date) - precision(a.date))[0];
    if (best && words <= 10 && precision(best.date) >= 2) return { header: best.date };
  }
  const sentences: LineSentence[] = [];
  for (const [s, e] of splitSentences(body, bodyStart)) {
    const tokens = tokensOf(raw.slice(s, e), s);
    if (tokens.length === 0) continue;
    const keys = new Set<string>();
    for (const t of tokens) for (const k of t.keys) keys.add(k);
    sentences.push({ asks: /\?["')\]]*\s*$/.test(raw.slice(s, e)), start: s, end: e, tokens, keys });
  }
  return {
    ...(date ? { date } : {}),
    ...(speaker ? { speaker } : {}),
    speakerKeys: speaker ? tokensOf(speaker, 0).map((t) => t.keys[0]!) : [],
    sentences,
  };
}

function parseContext(context: string): Sentence[] {
  const sentences: Sentence[] = [];
  let headerDate: CalendarDate | undefined;
  let offset = 0;
  let index = 0;
  for (const raw of context.split('\n')) {
    const lineStart = offset;
    offset += raw.length + 1;
    if (!raw.trim()) continue;
    let parsed = parsedLines.get(raw);
    if (!parsed) parsedLines.set(raw, (parsed = parseLine(raw)));
    if (parsed.header) {
      headerDate = parsed.header;
      continue;
    }
    const lineDate = parsed.date ?? headerDate;
    const line: Line = {
      date: lineDate,
      dateKeys: lineDate ? dateKeys(lineDate) : [],
      speaker: parsed.speaker,
      speakerKeys: parsed.speakerKeys,
      index: index++,
    };
    for (const s of parsed.sentences) {
      // Cached tokens are shared between contexts: each context gets its own, placed at this line's offset.
      const tokens = s.tokens.map((t) => ({ ...t, start: t.start + lineStart, end: t.end + lineStart }));
      sentences.push({ asks: s.asks, start: s.start + lineStart, end: s.end + lineStart, tokens, line, keys: s.keys });
    }
  }
  return sentences;
}

function dateKeys(d: CalendarDate): string[] {
  const out = [String(d.year)];
  if (d.month !== undefined) out.push(keyOf(MONTH_NAMES[d.month - 1]!), keyOf(MONTH_NAMES[d.month - 1]!.slice(0, 3)));
  if (d.day !== undefined) out.push(String(d.day));
  return out;
}

function precision(d: CalendarDate): number {
  return d.day !== undefined ? 3 : d.month !== undefined ? 2 : 1;
}

// ---------------------------------------------------------------- the question

type Kind = 'date' | 'number' | 'person' | 'place' | 'yesno' | 'phrase';

interface QuestionInfo {
  kind: Kind;
  list: boolean;
  yearOnly: boolean;
  monthOnly: boolean;
  /** how long / how old / how far: keep the unit after the number. */
  withUnit: boolean;
  ago: boolean;
  hedge: boolean;
  terms: Array<{ key: string; cap: boolean }>;
  keys: Set<string>;
  /** Keys of capitalised words in a person's slot: "did X", "X's", "does X"… */
  people: Set<string>;
  /** Alternatives of a choice question ("X or Y?"). */
  options: string[];
}

const QUESTION_WORDS = new Set([
  'what',
  'when',
  'where',
  'who',
  'whom',
  'whose',
  'which',
  'why',
  'how',
  'many',
  'much',
  'long',
  'kind',
  'kinds',
  'type',
  'types',
  'sort',
  'does',
  'did',
  'do',
  'is',
  'are',
  'was',
  'were',
  'has',
  'have',
  'had',
  'would',
  'likely',
  'year',
  'month',
  'date',
  'day',
  'time',
  'ago',
  'old',
  'often',
  'something',
  'anything',
  'recently',
  'mention',
  'mentioned',
  'specific',
  'specifically',
  'particular',
  'exactly',
  'ever',
]);

const PLACE_FOCUS = new RegExp(
  String.raw`\b(?:what|which) (?:\w+ )?` +
    String.raw`(?:country|countries|city|cities|states?|towns?|places?|locations?|restaurant|park|region|continent|island|` +
    String.raw`venue|neighborhood|neighbourhood)\b`,
);

const PLURAL_NOT = new Set(['is', 'was', 'has', 'does', 'this', 'his', 'its', 'us', 'yes', 'always', 'sometimes', 'always']);

function analyseQuestion(question: string, answerType: AnswerType | undefined): QuestionInfo {
  const q = question.trim();
  const lower = q.toLowerCase();
  let kind: Kind = 'phrase';
  const yearOnly = /\b(?:what|which|in what)\s+year\b/.test(lower);
  const monthOnly = /\b(?:what|which|in what)\s+month\b/.test(lower);
  const ago = /\bhow long ago\b/.test(lower);
  let withUnit = /\bhow (?:long|old|far|much time|often)\b/.test(lower) || ago;
  if (ago) kind = 'number';
  else if (
    /^\s*when\b/.test(lower) ||
    /\b(?:what|which)\s+(?:date|day|year|month|week|season|time of year)\b/.test(lower) ||
    (/\bwhen\b/.test(lower) && !/^\s*(?:how|what|who|where)\b/.test(lower))
  )
    kind = 'date';
  else if (/\bhow (?:many|much|long|old|far|often)\b/.test(lower) || /\bwhat (?:number|percentage|amount|age)\b/.test(lower))
    kind = 'number';
  else if (
    /^\s*(?:who|whom|whose)\b/.test(lower) ||
    /\bwhat (?:is|was|are|were) (?:the )?names?\b/.test(lower) ||
    /\b(?:with|to|for|by|from) whom\b/.test(lower) ||
    /\b(?:what|which) (?:person|friend|artist|author|singer|band|musician|actor|actress)\b/.test(lower)
  )
    kind = 'person';
  else if (/^\s*where\b/.test(lower) || PLACE_FOCUS.test(lower)) kind = 'place';
  else if (/^\s*(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|shall|may|might)\b/.test(lower)) kind = 'yesno';
  if (answerType === 'date') kind = 'date';
  else if (answerType === 'number') kind = 'number';
  else if (answerType === 'boolean') kind = 'yesno';
  if (kind === 'number' && /\bhow much\b/.test(lower)) withUnit = true;
  const focus = /\b(?:what|which)\s+(?:(?:kind|kinds|type|types|sort|sorts)\s+of\s+)?(?:[a-z]+\s+)?([a-z]+)\b/.exec(lower);
  const plural =
    !!focus && /[a-z]{3,}s$/.test(focus[1]!) && !/ss$/.test(focus[1]!) && !PLURAL_NOT.has(focus[1]!) && !QUESTION_WORDS.has(focus[1]!);
  const list =
    answerType === 'list' ||
    (kind !== 'yesno' &&
      kind !== 'number' &&
      kind !== 'date' &&
      (plural || /\bwhat (?:are|were) (?:some|the)\b/.test(lower) || /\b(?:what|which) (?:kinds|types|things)\b/.test(lower)));
  let options: string[] = [];
  if (kind === 'yesno' && /\bor\b/.test(lower)) {
    const m = /(?:\b(?:in|to|about|with|for|at|be|prefer|like|choose|rather)\s+)?([^,?]+?)\s+or\s+([^,?]+)\??$/i.exec(q);
    if (m) options = [m[1]!.trim(), m[2]!.trim()];
  }
  const terms: Array<{ key: string; cap: boolean }> = [];
  const keys = new Set<string>();
  const qTokens = tokensOf(q, 0);
  // The type noun of a typed question ("which city", "what country") names the answer's kind, not its words.
  const typeNoun =
    /\b(?:what|which)\s+(?:\w+\s+)?(countr(?:y|ies)|cit(?:y|ies)|states?|towns?|places?|locations?|persons?|people|regions?)\b/.exec(
      lower,
    )?.[1];
  qTokens.forEach((t, i) => {
    if (t.stop || QUESTION_WORDS.has(t.lower) || t.lower === typeNoun) return;
    const key = t.keys[0]!;
    if (keys.has(key)) return;
    keys.add(key);
    terms.push({ key, cap: t.cap && i > 0 });
  });
  const people = new Set<string>();
  qTokens.forEach((t, i) => {
    if (!t.cap || i === 0) return;
    const prev = qTokens[i - 1]!.lower;
    if (/['’]s$/.test(t.text) || /^(?:did|does|do|is|was|has|have|had|would|will|can|could|were|are|and|about|for|with)$/.test(prev))
      people.add(t.keys[0]!);
  });
  return { kind, list, yearOnly, monthOnly, withUnit, ago, hedge: /\blikely\b|^\s*would\b/.test(lower), terms, keys, people, options };
}

// ---------------------------------------------------------------- scoring sentences

interface Scored {
  sentence: Sentence;
  score: number;
  coverage: number;
  matched: Set<string>;
  /** Token indices that match a question term. */
  hits: number[];
}

function idfWeights(sentences: Sentence[], info: QuestionInfo): Map<string, number> {
  const n = sentences.length;
  const w = new Map<string, number>();
  for (const { key } of info.terms) {
    let df = 0;
    for (const s of sentences) if (s.keys.has(key) || s.line.speakerKeys.includes(key) || s.line.dateKeys.includes(key)) df++;
    // Terms absent from the context weigh as much as the rarest present one: absent terms speak against answering,
    // but in a context of one or two sentences plain IDF would let them drown every match.
    w.set(key, Math.log(1 + (n - Math.max(df, 1) + 0.5) / (Math.max(df, 1) + 0.5)) + 0.1);
  }
  return w;
}

function scoreSentences(sentences: Sentence[], info: QuestionInfo): Scored[] {
  const w = idfWeights(sentences, info);
  const total = info.terms.reduce((a, t) => a + (w.get(t.key) ?? 0), 0);
  const out: Scored[] = [];
  for (const s of sentences) {
    const matched = new Set<string>();
    const hits: number[] = [];
    s.tokens.forEach((t, i) => {
      if (t.keys.some((k) => info.keys.has(k))) {
        hits.push(i);
        for (const k of t.keys) if (info.keys.has(k)) matched.add(k);
      }
    });
    for (const k of s.line.speakerKeys) if (info.keys.has(k)) matched.add(k);
    for (const k of s.line.dateKeys) if (info.keys.has(k)) matched.add(k);
    let got = 0;
    for (const k of matched) got += w.get(k) ?? 0;
    const coverage = total > 0 ? got / total : 0;
    let proximity = 0;
    if (hits.length >= 2)
      proximity = Math.min(1, new Set(hits.map((i) => s.tokens[i]!.keys[0])).size / (hits[hits.length - 1]! - hits[0]! + 1));
    const typed = hasTyped(s, info) ? 0.08 : 0;
    // A question in the context is rarely its answer.
    const asks = s.asks ? 0.7 : 1;
    out.push({ sentence: s, score: (coverage + 0.1 * proximity + typed) * asks, coverage: coverage * asks, matched, hits });
  }
  return out.sort((a, b) => b.score - a.score || a.sentence.start - b.sentence.start);
}

function hasTyped(s: Sentence, info: QuestionInfo): boolean {
  const text = s.tokens.map((t) => t.text).join(' ');
  switch (info.kind) {
    case 'date':
      return findDates(text).length > 0 || RELATIVE.some((r) => r.re.test(text));
    case 'number':
      return s.tokens.some((t) => isNumberToken(t));
    case 'person':
    case 'place':
      return s.tokens.some((t, i) => t.cap && i > 0 && !info.keys.has(t.keys[0]!));
    default:
      return false;
  }
}

// ---------------------------------------------------------------- typed extraction

interface Candidate {
  text: string;
  span?: [number, number];
  /** Token distance to the nearest question-term hit (smaller is better). */
  distance: number;
}

function distanceTo(hits: number[], from: number, to: number): number {
  if (hits.length === 0) return 5;
  let d = Infinity;
  for (const h of hits) d = Math.min(d, h < from ? from - h : h > to ? h - to : 0);
  return d;
}

const NUMBER_WORDS = new Set([
  // every cardinal but zero, which reads as "none" rather than a count
  ...Object.keys(CARDINALS).filter((w) => w !== 'zero'),
  'hundred',
  'thousand',
  'million',
  'dozen',
  'couple',
  'few',
  'several',
  'once',
  'twice',
]);
const UNIT_WORDS = new RegExp(
  `^(?:${[
    'seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yrs?|decades?|times?',
    'miles?|km|kilometers?|kilometres?|meters?|metres?|feet|foot|pounds?|lbs?|kg|kilos?',
    'dollars?|bucks|euros?|percent|%|people|kids|children|books|pages|paintings|pets|dogs|cats',
  ].join('|')})$`,
);

function isNumberToken(t: Token): boolean {
  return /^\d+(?:[.,]\d+)?$/.test(t.lower) || NUMBER_WORDS.has(t.lower) || /^\d+(?:st|nd|rd|th|s)$/.test(t.lower);
}

function numberCandidates(sc: Scored, info: QuestionInfo, context: string): Candidate[] {
  const s = sc.sentence;
  const text = context.slice(s.start, s.end);
  const dateSpans = findDates(text)
    .filter((d) => d.date.month !== undefined || info.kind !== 'number' || !info.withUnit)
    .map((d) => [d.start + s.start, d.end + s.start]);
  const out: Candidate[] = [];
  for (let i = 0; i < s.tokens.length; i++) {
    const t = s.tokens[i]!;
    if (!isNumberToken(t)) continue;
    if (dateSpans.some(([a, b]) => t.start >= a! && t.end <= b!)) continue;
    if (/^(?:19|20)\d{2}$/.test(t.lower) && !info.withUnit) continue;
    if (info.keys.has(t.keys[0]!)) continue;
    let j = i;
    // "twenty five", "a couple of", "3 and a half"
    while (j + 1 < s.tokens.length && isNumberToken(s.tokens[j + 1]!)) j++;
    const next = s.tokens[j + 1];
    if (info.withUnit && next && UNIT_WORDS.test(next.lower)) {
      j++;
      const after = s.tokens[j + 1];
      if (info.ago && after && after.lower === 'ago') j++;
    }
    const a = s.tokens[i]!;
    const b = s.tokens[j]!;
    out.push({ text: context.slice(a.start, b.end), span: [a.start, b.end], distance: distanceTo(sc.hits, i, j) });
    i = j;
  }
  return out;
}

const NUM: Record<string, number> = {
  a: 1,
  an: 1,
  ...Object.fromEntries(Object.entries(CARDINALS).filter(([, n]) => n >= 1 && n <= 10)),
  couple: 2,
  few: 3,
};

interface Relative {
  re: RegExp;
  resolve(m: RegExpExecArray, d: CalendarDate, info: QuestionInfo): string | null;
}

const W = formatDate;
const RELATIVE: Relative[] = [
  { re: /\bthe day before yesterday\b/i, resolve: (_m, d) => W(addDays(d, -2)) },
  { re: /\b(?:yesterday|last night)\b/i, resolve: (_m, d) => W(addDays(d, -1)) },
  { re: /\b(?:today|tonight|this (?:morning|afternoon|evening)|earlier today)\b/i, resolve: (_m, d) => W(d) },
  { re: /\btomorrow\b/i, resolve: (_m, d) => W(addDays(d, 1)) },
  { re: /\blast weekend\b/i, resolve: (_m, d) => `the weekend before ${W(d)}` },
  { re: /\bthis weekend\b/i, resolve: (_m, d) => `the weekend of ${W(d)}` },
  { re: /\bnext weekend\b/i, resolve: (_m, d) => `the weekend after ${W(d)}` },
  { re: /\blast week\b/i, resolve: (_m, d) => `the week before ${W(d)}` },
  { re: /\bthis week\b/i, resolve: (_m, d) => `the week of ${W(d)}` },
  { re: /\bnext week\b/i, resolve: (_m, d) => `the week after ${W(d)}` },
  { re: /\blast month\b/i, resolve: (_m, d) => W(addMonths(d, -1)) },
  { re: /\bthis month\b/i, resolve: (_m, d) => W({ year: d.year, month: d.month ?? 1 }) },
  { re: /\bnext month\b/i, resolve: (_m, d) => W(addMonths(d, 1)) },
  { re: /\blast year\b/i, resolve: (_m, d) => String(d.year - 1) },
  { re: /\bthis year\b/i, resolve: (_m, d) => String(d.year) },
  { re: /\bnext year\b/i, resolve: (_m, d) => String(d.year + 1) },
  {
    re: /\b(?:last|this past|on|this) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i,
    resolve: (m, d) => `the ${m[1]!.toLowerCase()} before ${W(d)}`,
  },
  {
    re: /\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a couple of|a few) (days?|weeks?|months?|years?) ago\b/i,
    resolve: (m, d) => {
      const nWord = m[1]!.toLowerCase().replace(/^a (?:couple|few) of$/, (x) => (x.includes('couple') ? 'couple' : 'few'));
      const n = /^\d+$/.test(nWord) ? Number(nWord) : (NUM[nWord] ?? 1);
      const unit = m[2]!.toLowerCase().replace(/s$/, '');
      if (unit === 'day') return W(addDays(d, -n));
      if (unit === 'week') return `${m[1]} ${m[2]} before ${W(d)}`;
      if (unit === 'month') return W(addMonths(d, -n));
      return String(d.year - n);
    },
  },
];

function narrow(d: CalendarDate, info: QuestionInfo): string {
  if (info.yearOnly) return String(d.year);
  if (info.monthOnly && d.month !== undefined) return `${MONTH_NAMES[d.month - 1]} ${d.year}`;
  return formatDate(d);
}

function dateCandidates(sc: Scored, info: QuestionInfo, context: string): Candidate[] {
  const s = sc.sentence;
  const text = context.slice(s.start, s.end);
  const out: Candidate[] = [];
  const tokenIndexAt = (offset: number) =>
    Math.max(
      0,
      s.tokens.findIndex((t) => t.end > offset),
    );
  for (const m of findDates(text)) {
    const i = tokenIndexAt(s.start + m.start);
    out.push({ text: narrow(m.date, info), span: [s.start + m.start, s.start + m.end], distance: distanceTo(sc.hits, i, i) });
  }
  // "in May" without a year: the year of the line.
  const lineDate = s.line.date;
  if (lineDate) {
    for (const m of text.matchAll(
      new RegExp(
        String.raw`\b(?:in|since|during|last|this|next|early|late|mid|end of|beginning of)\s+` +
          String.raw`(january|february|march|april|june|july|august|september|october|november|december|may)\b(?!\s*,?\s*\d)`,
        'gi',
      ),
    )) {
      const month = monthNumber(m[1]!)!;
      const before = /^(?:last)/i.test(m[0]) || (lineDate.month !== undefined && month > lineDate.month && !/^(?:next)/i.test(m[0]));
      const year = before && lineDate.month !== undefined && month >= lineDate.month ? lineDate.year - 1 : lineDate.year;
      const i = tokenIndexAt(s.start + m.index);
      out.push({ text: narrow({ year, month }, info), distance: distanceTo(sc.hits, i, i) });
    }
    for (const r of RELATIVE) {
      const m = r.re.exec(text);
      if (!m) continue;
      const resolved = r.resolve(m, lineDate, info);
      if (!resolved) continue;
      const i = tokenIndexAt(s.start + m.index);
      let answer = resolved;
      if (info.yearOnly) answer = /\d{4}/.exec(resolved)?.[0] ?? resolved;
      out.push({ text: answer, distance: distanceTo(sc.hits, i, i) });
    }
  }
  return out;
}

const NOT_NAMES = new Set([
  'i',
  "i'm",
  "i've",
  "i'll",
  "i'd",
  'hey',
  'hi',
  'hello',
  'wow',
  'oh',
  'thanks',
  'thank',
  'yeah',
  'yes',
  'no',
  'ok',
  'okay',
  'sure',
  'great',
  'awesome',
  'cool',
  'nice',
  'haha',
  'lol',
  'omg',
  'congrats',
  'congratulations',
  'sounds',
  'that',
  "that's",
  'it',
  "it's",
  'this',
  'what',
  'how',
  'so',
  'well',
  'good',
  'glad',
  'love',
  'really',
  'totally',
  ...MONTH_NAMES.map((m) => m.toLowerCase()),
  ...WEEKDAY_NAMES.map((d) => d.toLowerCase()),
]);

function capitalisedRuns(
  sc: Scored,
  info: QuestionInfo,
  known: Set<string>,
  context: string,
): Array<{ from: number; to: number; text: string; span: [number, number] }> {
  const s = sc.sentence;
  const out: Array<{ from: number; to: number; text: string; span: [number, number] }> = [];
  for (let i = 0; i < s.tokens.length; i++) {
    const t = s.tokens[i]!;
    // A capitalised first word is a name only when the context knows it as one.
    const nameLike = t.cap && !NOT_NAMES.has(t.lower) && (i > 0 || known.has(t.keys[0]!));
    if (!nameLike || info.keys.has(t.keys[0]!)) continue;
    let j = i;
    while (j + 1 < s.tokens.length) {
      const n = s.tokens[j + 1]!;
      if (n.cap && !NOT_NAMES.has(n.lower) && !info.keys.has(n.keys[0]!)) j++;
      else if ((n.lower === 'of' || n.lower === 'de' || n.lower === 'the') && s.tokens[j + 2]?.cap) j += 2;
      else break;
    }
    const a = s.tokens[i]!;
    const b = s.tokens[j]!;
    out.push({ from: i, to: j, text: context.slice(a.start, b.end), span: [a.start, b.end] });
    i = j;
  }
  return out;
}

const KIN = new RegExp(
  `^(?:${[
    'mom|mother|mum|dad|father|sister|brother|friend|friends|husband|wife|partner|boyfriend|girlfriend|son|daughter',
    'kids|children|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|boss|coworker|coworkers|colleague|colleagues',
    'teacher|mentor|family|neighbor|neighbour|neighbors|roommate|therapist|coach|parents',
  ].join('|')})$`,
);

function personCandidates(sc: Scored, info: QuestionInfo, known: Set<string>, context: string): Candidate[] {
  const out: Candidate[] = capitalisedRuns(sc, info, known, context).map((r) => ({
    text: r.text,
    span: r.span,
    distance: distanceTo(sc.hits, r.from, r.to),
  }));
  if (out.length > 0) return out;
  const s = sc.sentence;
  s.tokens.forEach((t, i) => {
    if (KIN.test(t.lower) && !info.keys.has(t.keys[0]!))
      out.push({ text: t.text, span: [t.start, t.end], distance: distanceTo(sc.hits, i, i) + 1 });
  });
  return out;
}

const PLACE_PREP = /^(?:in|at|to|from|near|visit|visited|visiting|around|through|into|across|toward|towards)$/;

function placeCandidates(
  sc: Scored,
  info: QuestionInfo,
  known: Set<string>,
  speakers: Set<string>,
  context: string,
  strict = false,
): Candidate[] {
  const s = sc.sentence;
  const out: Candidate[] = [];
  for (const r of capitalisedRuns(sc, info, known, context)) {
    // People are not places: skip speakers' names unless a preposition says otherwise ("to Ana's").
    if (speakers.has(s.tokens[r.from]!.keys[0]!) && !(r.from > 0 && PLACE_PREP.test(s.tokens[r.from - 1]!.lower))) continue;
    const prep =
      (r.from > 0 && PLACE_PREP.test(s.tokens[r.from - 1]!.lower)) || (r.from > 1 && PLACE_PREP.test(s.tokens[r.from - 2]!.lower));
    if (strict && !prep) continue;
    out.push({ text: r.text, span: r.span, distance: distanceTo(sc.hits, r.from, r.to) + (prep ? 0 : 8) });
  }
  // Lower-case places: "at the beach", "to the mountains".
  s.tokens.forEach((t, i) => {
    if (!PLACE_PREP.test(t.lower)) return;
    let j = i + 1;
    while (j < s.tokens.length && s.tokens[j]!.stop && j - i < 3) j++;
    const head = s.tokens[j];
    if (!head || head.stop || head.cap || info.keys.has(head.keys[0]!)) return;
    let k = j;
    while (k + 1 < s.tokens.length && !s.tokens[k + 1]!.stop && k - j < 2 && !info.keys.has(s.tokens[k + 1]!.keys[0]!)) k++;
    out.push({
      text: context.slice(head.start, s.tokens[k]!.end),
      span: [head.start, s.tokens[k]!.end],
      distance: distanceTo(sc.hits, j, k) + 2,
    });
  });
  return out;
}

const TITLE_FOCUS = new RegExp(
  String.raw`\b(?:what|which)\s+(?:\w+\s+)?` +
    String.raw`(?:movie|film|book|novel|song|album|show|series|game|play|title|trilogy|band|podcast|poem|painting|artist)s?\b`,
  'i',
);

/** Quoted spans and capitalised runs: the shape of titles ("Little Women"). */
function quotedCandidates(sc: Scored, info: QuestionInfo, context: string): Candidate[] {
  const s = sc.sentence;
  const out: Candidate[] = [];
  const text = context.slice(s.start, s.end);
  for (const m of text.matchAll(/["“]([^"”]{2,80})["”]/g)) {
    const start = s.start + m.index + 1;
    const inner = m[1]!;
    if (tokensOf(inner, 0).every((t) => info.keys.has(t.keys[0]!))) continue;
    const i = Math.max(
      0,
      s.tokens.findIndex((t) => t.start >= start),
    );
    out.push({ text: inner, span: [start, start + inner.length], distance: distanceTo(sc.hits, i, i) });
  }
  return out;
}

// ---------------------------------------------------------------- phrase extraction

const WEAK = new Set([
  'really',
  'just',
  'also',
  'so',
  'yeah',
  'yes',
  'oh',
  'wow',
  'well',
  'actually',
  'definitely',
  'totally',
  'pretty',
  'super',
  'got',
  'get',
  'like',
  'love',
  'loved',
  'went',
  'go',
  'going',
  'gone',
  'did',
  'made',
  'make',
  'feel',
  'felt',
  'think',
  'thought',
  'know',
  'great',
  'awesome',
  'amazing',
  'cool',
  'nice',
  'good',
  'hey',
  'hi',
  'thanks',
  'um',
  'lately',
  'recently',
  'finally',
  'still',
  'always',
  'even',
  'ago',
  'yesterday',
  'today',
  'last',
  'week',
  'tomorrow',
  'mine',
  'started',
  'start',
  'tried',
  'try',
  'decided',
  've',
  'll',
  'been',
  'im',
  "i'm",
  "i've",
  "it's",
  "that's",
  'night',
  'weekend',
  'morning',
  'evening',
  'afternoon',
  'month',
  'year',
  ...WEEKDAY_NAMES.map((d) => d.toLowerCase()),
]);

const CLAUSE_BREAK = /^(?:but|because|so|although|though|while|whereas|since|which|who|when|if)$/;

function phraseCandidate(sc: Scored, info: QuestionInfo, context: string, maxWords: number): Candidate | null {
  const s = sc.sentence;
  const toks = s.tokens;
  if (toks.length === 0) return null;
  // Clauses: token ranges split at punctuation between tokens and before subordinating conjunctions.
  const clauses: Array<[number, number]> = [];
  let from = 0;
  for (let i = 1; i < toks.length; i++) {
    const gap = context.slice(toks[i - 1]!.end, toks[i]!.start);
    if (/[,;:—–()"!?.]/.test(gap) || CLAUSE_BREAK.test(toks[i]!.lower)) {
      clauses.push([from, i - 1]);
      from = i;
    }
  }
  clauses.push([from, toks.length - 1]);
  const isQ = (t: Token) => t.keys.some((k) => info.keys.has(k));
  const novel = ([a, b]: [number, number]) => {
    let n = 0;
    for (let i = a; i <= b; i++) if (!toks[i]!.stop && !isQ(toks[i]!) && !WEAK.has(toks[i]!.lower)) n++;
    return n;
  };
  const qIn = ([a, b]: [number, number]) => sc.hits.filter((h) => h >= a && h <= b).length;
  let best = 0;
  for (let c = 1; c < clauses.length; c++) {
    const better =
      qIn(clauses[c]!) > qIn(clauses[best]!) ||
      (qIn(clauses[c]!) === qIn(clauses[best]!) && novel(clauses[c]!) > 0 && novel(clauses[best]!) === 0);
    if (better) best = c;
  }
  if (novel(clauses[best]!) === 0) {
    const after = clauses.findIndex((c, i) => i > best && novel(c) > 0);
    const before = [...clauses.keys()].reverse().find((i) => i < best && novel(clauses[i]!) > 0);
    if (after >= 0) best = after;
    else if (before !== undefined) best = before;
  }
  let [a, b] = clauses[best]!;
  // Inside the clause the answer is the run of words between the question's terms that says something new
  // ("my favourite hobby is | gardening"), preferring a run that follows a matched term.
  const hitSet = new Set(sc.hits);
  let bestRun: [number, number] | null = null;
  let bestRunScore = 0;
  for (let i = a; i <= b; ) {
    if (hitSet.has(i)) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 <= b && !hitSet.has(j + 1)) j++;
    const score = novel([i, j]) + (i > a && hitSet.has(i - 1) ? 0.5 : 0);
    if (novel([i, j]) > 0 && score > bestRunScore) {
      bestRunScore = score;
      bestRun = [i, j];
    }
    i = j + 1;
  }
  if (bestRun && sc.hits.some((h) => h >= a && h <= b)) [a, b] = bestRun;
  const trimmable = (t: Token) => t.stop || isQ(t) || WEAK.has(t.lower) || (t.lower.length === 1 && !/\d/.test(t.lower));
  const [a0, b0] = [a, b];
  while (a <= b && trimmable(toks[a]!)) a++;
  while (b >= a && trimmable(toks[b]!)) b--;
  if (a > b) [a, b] = [a0, b0];
  if (b - a + 1 > maxWords) {
    // Keep the window nearest the question's terms.
    const anchor = sc.hits.find((h) => h >= a && h <= b) ?? a;
    const start = Math.max(a, Math.min(anchor, b - maxWords + 1));
    a = start;
    b = Math.min(b, start + maxWords - 1);
    while (a <= b && trimmable(toks[a]!)) a++;
    while (b >= a && trimmable(toks[b]!)) b--;
    if (a > b) return null;
  }
  const start = toks[a]!.start;
  const end = toks[b]!.end;
  return { text: context.slice(start, end), span: [start, end], distance: distanceTo(sc.hits, a, b) };
}

// ---------------------------------------------------------------- yes/no

const NEGATION = new RegExp(
  `^(?:${[
    "not|no|never|n't|don't|didn't|doesn't|isn't|wasn't|aren't|weren't|haven't|hasn't|won't",
    "can't|cannot|couldn't|wouldn't|nope|nobody|nothing|neither",
  ].join('|')})$`,
);

function yesNo(ranked: Scored[], info: QuestionInfo, question: string, context: string): ExtractiveAnswer {
  const prefix = info.hedge ? 'Likely ' : '';
  if (info.options.length === 2) {
    // A choice: the alternative whose terms the context supports more.
    const support = info.options.map((opt) => {
      const keys = tokensOf(opt, 0)
        .filter((t) => !t.stop)
        .map((t) => t.keys[0]!);
      let best = 0;
      for (const sc of ranked.slice(0, 20)) {
        const got = keys.filter((k) => sc.sentence.keys.has(k)).length / Math.max(1, keys.length);
        best = Math.max(best, got * (0.5 + sc.coverage));
      }
      return best;
    });
    const pick = support[0]! >= support[1]! ? 0 : 1;
    return { answer: info.options[pick]!.replace(/^(?:a|an|the)\s+/i, ''), confidence: Math.min(1, support[pick]!) };
  }
  const top = ranked[0];
  if (!top) return { answer: `${prefix}no`.replace(/^./, (c) => c.toUpperCase()), confidence: 0 };
  const qNeg = tokensOf(question, 0).some((t) => NEGATION.test(t.lower));
  const sNeg = top.sentence.tokens.some((t) => NEGATION.test(t.lower) || /n't$/.test(t.lower));
  const yes = top.coverage >= 0.6 && qNeg === sNeg;
  void context;
  const word = yes ? 'yes' : 'no';
  return { answer: prefix ? `Likely ${word}` : word === 'yes' ? 'Yes' : 'No', confidence: Math.min(1, top.coverage) };
}

// ---------------------------------------------------------------- the reader

/**
 * Answers `question` from `context` by extraction: the best short span of the best-covering sentence, typed by
 * the question's wh-word; "Not mentioned" when no sentence covers enough of the question.
 */
export function extractiveAnswer(question: string, context: string, options: ExtractiveReaderOptions = {}): ExtractiveAnswer {
  const o = {
    minCoverage: options.minCoverage ?? 0.25,
    maxWords: options.maxWords ?? 14,
    abstain: options.abstain ?? NOT_MENTIONED,
  };
  const info = analyseQuestion(question, options.answerType);
  const sentences = parseContext(context);
  if (sentences.length === 0 || info.terms.length === 0) return { answer: o.abstain, confidence: 0 };
  const speakers = new Set<string>();
  for (const s of sentences) for (const k of s.line.speakerKeys) speakers.add(k);
  const ranked = scoreSentences(sentences, info);
  const top = ranked[0]!;
  if (info.kind === 'yesno') return yesNo(ranked, info, question, context);
  if (top.coverage < o.minCoverage || top.matched.size === 0) return { answer: o.abstain, confidence: 0 };

  // Names the context knows: speakers and words capitalised mid-sentence somewhere.
  const known = new Set(speakers);
  for (const s of sentences)
    s.tokens.forEach((t, i) => {
      if (i > 0 && t.cap) known.add(t.keys[0]!);
    });

  const pool = ranked.filter((r) => r.score >= top.score * 0.5 && r.coverage >= o.minCoverage).slice(0, 5);
  const pick = (extract: (sc: Scored) => Candidate[]): { c: Candidate; sc: Scored } | null => {
    let best: { c: Candidate; sc: Scored; v: number } | null = null;
    for (const sc of pool) {
      for (const c of extract(sc)) {
        const v = sc.score - 0.03 * Math.min(c.distance, 10);
        if (!best || v > best.v) best = { c, sc, v };
      }
    }
    return best;
  };
  const done = (c: Candidate, sc: Scored): ExtractiveAnswer => ({
    answer: c.text,
    confidence: Math.min(1, sc.coverage),
    ...(c.span && context.slice(c.span[0], c.span[1]) === c.text ? { span: c.span } : {}),
  });

  if (info.list) {
    const parts: string[] = [];
    const spans: Array<[number, number]> = [];
    const seenLines = new Set<number>();
    for (const sc of ranked.filter((r) => r.score >= top.score * 0.6 && r.coverage >= o.minCoverage).slice(0, 6)) {
      if (seenLines.has(sc.sentence.line.index) && parts.length > 0) continue;
      const typedHere =
        info.kind === 'place'
          ? placeCandidates(sc, info, known, speakers, context)
          : info.kind === 'person'
            ? personCandidates(sc, info, known, context)
            : [];
      const c =
        typedHere.sort((x, y) => x.distance - y.distance)[0] ??
        (info.kind === 'phrase' ? phraseCandidate(sc, info, context, Math.min(o.maxWords, 8)) : null);
      if (!c || parts.some((p) => p.toLowerCase() === c.text.toLowerCase())) continue;
      seenLines.add(sc.sentence.line.index);
      parts.push(c.text);
      if (c.span) spans.push(c.span);
    }
    if (parts.length > 0)
      return {
        answer: parts.join(', '),
        confidence: Math.min(1, top.coverage),
        ...(parts.length === 1 && spans[0] ? { span: spans[0] } : {}),
      };
  }

  let typed: { c: Candidate; sc: Scored } | null = null;
  if (info.kind === 'phrase' && TITLE_FOCUS.test(question)) typed = pick((sc) => quotedCandidates(sc, info, context));
  switch (typed ? 'done' : info.kind) {
    case 'date': {
      typed = pick((sc) => dateCandidates(sc, info, context));
      if (!typed && top.sentence.line.date)
        return { answer: narrow(top.sentence.line.date, info), confidence: Math.min(1, top.coverage) * 0.8 };
      break;
    }
    case 'number':
      typed = pick((sc) => numberCandidates(sc, info, context));
      break;
    case 'person':
      typed = pick((sc) => personCandidates(sc, info, known, context));
      break;
    case 'place':
      // A capitalised name after "in/at/to/from" beats one without, wherever it is in the pool.
      typed =
        pick((sc) => placeCandidates(sc, info, known, speakers, context, true)) ??
        pick((sc) => placeCandidates(sc, info, known, speakers, context));
      break;
    default:
      break;
  }
  if (typed) return done(typed.c, typed.sc);
  const phrase = phraseCandidate(top, info, context, o.maxWords);
  if (phrase) return done(phrase, top);
  return {
    answer: context.slice(top.sentence.start, top.sentence.end),
    confidence: Math.min(1, top.coverage) * 0.5,
    span: [top.sentence.start, top.sentence.end],
  };
}
