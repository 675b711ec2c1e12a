import type { SourceRecord } from '../../../sandbox/contract.ts';
import { findDates, type CalendarDate } from '../../text/date-parse.ts';
import { parseNumberAnswer } from '../../scoring/answer-match.ts';

/** A sentence of a record with its offsets in the record's text. */
export interface Sentence {
  start: number;
  end: number;
  text: string;
}

/** A checkable fact found in a record's text: where it is, what it is, and the sentence around it. */
export type TextFact =
  | { kind: 'quantity'; record: string; start: number; end: number; value: string; unit: string; sentence: Sentence }
  | { kind: 'date'; record: string; start: number; end: number; value: string; date: CalendarDate; sentence: Sentence }
  | { kind: 'entity'; record: string; start: number; end: number; value: string; sentence: Sentence };

/** Sentences with offsets; newlines and ., !, ? end a sentence. */
export function splitSentences(text: string): Sentence[] {
  const out: Sentence[] = [];
  const re = /[^\n.!?]+(?:[.!?]+(?=\s|$)|[.!?]+|$)?/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!m[0]) {
      re.lastIndex++;
      continue;
    }
    const raw = m[0];
    const lead = raw.length - raw.trimStart().length;
    const body = raw.trim();
    if (body.length < 2) continue;
    out.push({ start: m.index + lead, end: m.index + lead + body.length, text: body });
  }
  return out;
}

const UNIT_WORDS = [
  'years?|months?|weeks?|days?|hours?|minutes?|seconds?|miles?|km|kilomet(?:er|re)s?|met(?:er|re)s?|feet|foot|inches',
  'pounds?|lbs?|kg|kilos?|kilograms?|dollars?|euros?|percent|people|persons|kids|children|students|participants',
  'patients|members|guests|times|books|pages|chapters|pieces|paintings|songs|episodes|games|classes|lessons|sessions',
  'tickets|copies|items|steps|stories|photos|pictures|dogs|cats|pets|plants|trees|cups|bottles|boxes|bags|rooms',
  'floors|tables|chairs|cars|bikes|countries|cities|states|languages|courses|credits|points|goals|miles|laps|sets',
  'reps|servings|slices|recipes|weeks|workshops|meetings|calls|emails|e-mails|files|documents|reports|cases|clients',
  'employees|volunteers|hours|nights|shifts|visits|trips|events|concerts|shows|races|marathons|medals|awards|stars',
].join('|');
const NUMBER_WORD =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|hundred|a couple of|a dozen';
const MONEY = '[$€£]\\s?\\d{1,3}(?:,\\d{3})*(?:\\.\\d+)?(?:\\s?(?:k|million|billion))?';
const PERCENT = '\\d+(?:\\.\\d+)?\\s?%';
const COUNTED = `(?:\\d{1,3}(?:,\\d{3})+|\\d+(?:\\.\\d+)?|${NUMBER_WORD})(?:[\\s-]+)(?:${UNIT_WORDS})`;
const QUANTITY = new RegExp(`(?<![\\p{L}\\p{N}$€£.,:/-])(?:${MONEY}|${PERCENT}|${COUNTED})(?![\\p{L}\\p{N}])`, 'giu');

const NOT_ENTITY = new Set([
  'i',
  "i'm",
  "i've",
  "i'll",
  "i'd",
  'ok',
  'okay',
  'hey',
  'hi',
  'hello',
  'thanks',
  'thank',
  'yes',
  'no',
  'wow',
  'oh',
  'yeah',
  'sure',
  'great',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'user',
  'assistant',
  'sender',
  'recipient',
  'subject',
  'summary',
  'mr',
  'mrs',
  'ms',
  'dr',
  'the',
  'a',
  'an',
  'my',
  'our',
  'your',
  'his',
  'her',
  'their',
  'this',
  'that',
  'these',
  'those',
  'it',
  'we',
  'you',
  'he',
  'she',
  'they',
  'and',
  'but',
  'or',
  'so',
  'if',
  'when',
  'what',
  'how',
  'why',
  'who',
  'where',
  'which',
  'also',
  'just',
  'lol',
  'omg',
  'upload',
  'christmas',
  'easter',
  'thanksgiving',
  'english',
  'god',
  'mom',
  'dad',
  'internet',
  'tv',
  'ai',
  'last',
  'next',
  'every',
  'yes',
  'please',
  'mon',
  'tue',
  'tues',
  'wed',
  'thu',
  'thurs',
  'fri',
  'sat',
  'sun',
]);

/** Proper-noun runs ("Forest Park", "Dr. Keller") that do not open a sentence. */
function entitiesIn(
  text: string,
  s: Sentence,
  exclude: ReadonlySet<string>,
  common: (lower: string) => boolean,
): Array<{ start: number; end: number; value: string }> {
  const out: Array<{ start: number; end: number; value: string }> = [];
  const re = /(?:[A-Z][\p{L}'’]*\.?(?:[\s-]+(?:of\s+|de\s+|the\s+)?[A-Z][\p{L}'’]*)*)/gu;
  const body = text.slice(s.start, s.end);
  for (let m = re.exec(body); m; m = re.exec(body)) {
    // A possessive ends the name: "Nowak’s Polish colleagues" names Nowak.
    let value = m[0]
      .replace(/(['’]s)\s.*$/su, '$1')
      .replace(/[.'’]+$/, '')
      .replace(/['’]s$/, '');
    const at = s.start + m.index;
    const before = text.slice(Math.max(0, at - 3), at);
    const lineHead = text.slice(text.lastIndexOf('\n', at - 1) + 1, at);
    const key = (w: string): string => w.toLowerCase().replace(/’/g, "'").replace(/\.$/, '');
    const heading = /^[\s>*#|\-–•\d.()[\]]*$/.test(lineHead);
    if (m.index === 0 || /[.!?:"“]\s*$/.test(before) || heading) {
      // A capital that opens a sentence says nothing of itself. A common word there ("Yesterday Leila …") is not
      // part of the name after it; any other word is the name's own ("Kottbusser Tor was busy", not "Tor"). A line
      // that opens with a common word in title case ("- **Privacy Landmarks:**") is a heading, not a name.
      const parts = value.split(/\s+/);
      if (parts.length < 2) continue;
      const first = key(parts[0]!);
      if (common(first) || NOT_ENTITY.has(first)) {
        if (heading && !NOT_ENTITY.has(first)) continue;
        value = parts.slice(1).join(' ');
      }
    }
    const words = value.split(/\s+/);
    while (words.length && NOT_ENTITY.has(key(words[0]!))) words.shift();
    while (words.length && NOT_ENTITY.has(key(words[words.length - 1]!))) words.pop();
    value = words.join(' ');
    if (value.length < 3 || words.length > 4) continue;
    if (words.every((w) => NOT_ENTITY.has(key(w)))) continue;
    if (words.some((w) => /['’](m|ve|ll|d|re)$/i.test(w))) continue;
    if (exclude.has(value.toLowerCase()) || words.some((w) => exclude.has(w.toLowerCase()))) continue;
    if (/^[A-Z]{1,2}$/.test(value)) continue;
    // A proper noun is never written in lower case; a word the history also writes lower-case is a common word.
    if (words.every((w) => common(w.toLowerCase()))) continue;
    const start = text.indexOf(value, at);
    if (start < 0 || start >= s.end) continue;
    out.push({ start, end: start + value.length, value });
  }
  return out;
}

/**
 * Checkable facts of one record: quantities with units ("3 years", "$1,200", "40%"), explicit calendar dates, and
 * proper-noun entities other than the history's speakers. Every fact's [start, end) points into `record.text`.
 */
export function extractFacts(
  record: SourceRecord,
  speakers: ReadonlySet<string>,
  common: (lower: string) => boolean = () => false,
): TextFact[] {
  const text = record.text;
  const facts: TextFact[] = [];
  const sentences = splitSentences(text);
  const sentenceAt = (pos: number): Sentence | undefined => sentences.find((s) => pos >= s.start && pos < s.end);
  for (const m of text.matchAll(QUANTITY)) {
    const start = m.index;
    const value = m[0];
    const parsed = parseNumberAnswer(value);
    const s = sentenceAt(start);
    if (!parsed || !s) continue;
    if (/^(19|20)\d{2}\b/.test(value) && !/[$€£%]/.test(value)) continue; // a year, not a quantity
    facts.push({ kind: 'quantity', record: record.id, start, end: start + value.length, value, unit: parsed.unit, sentence: s });
  }
  for (const d of findDates(text)) {
    if (d.date.day === undefined) continue; // a bare year or month is too vague to ask for
    const s = sentenceAt(d.start);
    if (!s) continue;
    facts.push({ kind: 'date', record: record.id, start: d.start, end: d.end, value: d.text, date: d.date, sentence: s });
  }
  if (record.kind !== 'document' || text.length < 6000) {
    for (const s of sentences) {
      for (const e of entitiesIn(text, s, speakers, common))
        facts.push({ kind: 'entity', record: record.id, start: e.start, end: e.end, value: e.value, sentence: s });
    }
  }
  return facts;
}
