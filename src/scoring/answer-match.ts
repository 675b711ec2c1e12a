/**
 * Type-aware answer normalisation and matching: the "exact match" half of correctness. Used by scoring and by
 * the supervision generator's blind-recovery check, so it knows nothing about any data set.
 */
import { CARDINALS } from '../text/number-words.ts';
import type { AnswerType } from '../history/record.ts';
import { isoDate, parseExactDate, sameDate } from '../text/date-parse.ts';

const ARTICLES = /(?<![\p{L}\p{N}])(?:a|an|the)(?![\p{L}\p{N}])/gu;

/** Lower-case, drop apostrophes, punctuation → space, drop articles a/an/the, collapse whitespace. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['’‘`]/g, '')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(ARTICLES, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** List items: split on commas, semicolons, "and"/"&" (an Oxford comma's "and" included). */
export function splitListItems(text: string): string[] {
  return text
    .split(/\s*(?:[,;]\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*|\n)\s*/i)
    .map((s) => normalizeText(s))
    .filter((s) => s.length > 0);
}

const UNITS: ReadonlyArray<[RegExp, string]> = [
  [/^(?:s|sec|secs|second|seconds)$/, 'second'],
  [/^(?:m|min|mins|minute|minutes)$/, 'minute'],
  [/^(?:h|hr|hrs|hour|hours)$/, 'hour'],
  [/^(?:d|day|days)$/, 'day'],
  [/^(?:wk|wks|week|weeks)$/, 'week'],
  [/^(?:mo|mos|month|months)$/, 'month'],
  [/^(?:y|yr|yrs|year|years)$/, 'year'],
  [/^(?:km|kms|kilometer|kilometers|kilometre|kilometres)$/, 'kilometer'],
  [/^(?:mi|mile|miles)$/, 'mile'],
  [/^(?:kg|kgs|kilo|kilos|kilogram|kilograms)$/, 'kilogram'],
  [/^(?:lb|lbs|pound|pounds)$/, 'pound'],
  [/^(?:%|percent|per cent|pct)$/, 'percent'],
  [/^(?:\$|usd|dollar|dollars|bucks)$/, 'dollar'],
  [/^(?:€|eur|euro|euros)$/, 'euro'],
  [/^(?:£|gbp)$/, 'pound-sterling'],
];

const SMALL: Record<string, number> = {
  ...CARDINALS,
  a: 1,
  an: 1,
  once: 1,
  twice: 2,
  thrice: 3,
  single: 1,
  couple: 2,
  pair: 2,
  dozen: 12,
  half: 0.5,
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
};
const SCALES: Record<string, number> = { hundred: 100, thousand: 1_000, million: 1_000_000, billion: 1_000_000_000 };

/** A parsed number answer: its value and a canonical unit ('' when none). */
export interface NumberAnswer {
  value: number;
  unit: string;
}

function canonicalUnit(word: string): string {
  for (const [re, unit] of UNITS) if (re.test(word)) return unit;
  // Plurals of anything else ("3 kids" / "3 kid").
  return word.replace(/(?<=[a-z]{3})(?:es|s)$/, '');
}

/**
 * Reads "25", "25 minutes", "$1,200", "three", "twenty-five", "3.5 hrs", "a dozen", "twice" as a value and a
 * unit. Null when the answer is not a number (or has more than one).
 */
export function parseNumberAnswer(text: string): NumberAnswer | null {
  let s = text
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, '');
  s = s.replace(/^(?:about|around|approximately|roughly|nearly|almost|over|just|exactly|only)\s+/, '');
  let prefixUnit = '';
  const cur = /^([$€£])\s*/.exec(s);
  if (cur) {
    prefixUnit = canonicalUnit(cur[1]!);
    s = s.slice(cur[0].length);
  }
  s = s.replace(/(\d)\s*%/, '$1 %').replace(/(\d)([a-z])/g, '$1 $2');
  const words = s.split(/[\s-]+/).filter(Boolean);
  let i = 0;
  let value: number | null = null;
  const digits = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$|^\d+(?:\.\d+)?$/;
  if (words[0] && digits.test(words[0])) {
    value = Number(words[0].replace(/,/g, ''));
    i = 1;
    const scale = words[1] ? SCALES[words[1]] : undefined;
    if (scale) {
      value *= scale;
      i = 2;
    }
  } else {
    // Number words: "twenty five", "two hundred and five", "a dozen".
    let total = 0;
    let current = 0;
    let any = false;
    while (i < words.length) {
      const w = words[i]!;
      if (w === 'and' && any) {
        i++;
        continue;
      }
      const small = SMALL[w];
      const scale = SCALES[w];
      if (small !== undefined) {
        if ((w === 'a' || w === 'an') && words[i + 1] && SMALL[words[i + 1]!] !== undefined && words[i + 1] !== 'a') {
          // "a dozen", "a couple": the article is not a count.
          i++;
          continue;
        }
        current += small;
        any = true;
      } else if (scale !== undefined && any) {
        current = (current || 1) * scale;
        if (scale >= 1000) {
          total += current;
          current = 0;
        }
      } else if (w === 'of' && any) {
        // "a couple of hours"
      } else break;
      i++;
    }
    if (any) value = total + current;
  }
  if (value === null || !Number.isFinite(value)) return null;
  const rest = words.slice(i).join(' ');
  if (/\d/.test(rest)) return null;
  const restWords = normalizeText(rest).split(' ').filter(Boolean);
  const unit = prefixUnit || (restWords.length > 0 ? restWords.map(canonicalUnit).join(' ') : '');
  if (prefixUnit && restWords.length > 0 && restWords.map(canonicalUnit).join(' ') !== prefixUnit) return null;
  return { value, unit };
}

const YES = new Set(['yes', 'true', 'y', 'correct', 'yeah', 'yep']);
const NO = new Set(['no', 'false', 'n', 'incorrect', 'nope']);

/** 'yes' | 'no' when the answer is a (possibly hedged) yes/no, else null. "Likely no, because…" → 'no'. */
export function parseBoolean(text: string): 'yes' | 'no' | null {
  const words = normalizeText(text).split(' ').filter(Boolean);
  let first = words[0];
  if ((first === 'likely' || first === 'probably' || first === 'most') && words.length > 1) {
    first = words[1] === 'likely' ? words[2] : words[1];
  }
  if (first === undefined) return null;
  if (YES.has(first)) return 'yes';
  if (NO.has(first)) return 'no';
  return null;
}

const ABSTENTION = [
  /\bnot mentioned\b/,
  /\bno information\b/,
  /\bnot (?:enough|sufficient) information\b/,
  /\bdid not mention\b/,
  /\bdidn'?t mention\b/,
  /\bnever mentioned\b/,
  /\bnot (?:stated|specified|provided|available|discussed)\b/,
  /\bcannot be (?:determined|answered)\b/,
  /\bunanswerable\b/,
  /\bunknown\b/,
  /\bno mention\b/,
  /\bi don'?t know\b/,
];

/** True when the text declines to answer ("Not mentioned", "No information available", "unknown"…). */
export function isAbstention(text: string): boolean {
  const s = text.toLowerCase().replace(/’/g, "'");
  return ABSTENTION.some((re) => re.test(s));
}

/**
 * The canonical form of an answer of the given type, such that two answers match iff their canonical forms are
 * equal: text → normalised text; list → sorted, de-duplicated normalised items joined by ' | '; number →
 * "<value> <unit>"; boolean → 'yes' | 'no'; date → ISO date at its precision. Falls back to normalised text when
 * the answer does not parse as its type.
 */
export function normalizeAnswer(text: string, type: AnswerType): string {
  switch (type) {
    case 'list':
      return [...new Set(splitListItems(text))].sort().join(' | ');
    case 'number': {
      const n = parseNumberAnswer(text);
      return n ? `${n.value}${n.unit ? ` ${n.unit}` : ''}` : normalizeText(text);
    }
    case 'boolean':
      return parseBoolean(text) ?? normalizeText(text);
    case 'date': {
      const d = parseExactDate(text);
      return d ? isoDate(d) : normalizeText(text);
    }
    default:
      return normalizeText(text);
  }
}

/**
 * Whether a predicted answer matches the reference under the answer type's equality: text equality after
 * normalising; list = set equality of items; number = same value, and same unit when both give one ("25 min" =
 * "25 minutes" = "twenty-five minutes"); boolean = same yes/no; date = same calendar date at the same precision
 * (relative phrases never equal an absolute date).
 */
export function answersMatch(predicted: string, reference: string, type: AnswerType): boolean {
  switch (type) {
    case 'number': {
      const p = parseNumberAnswer(predicted);
      const r = parseNumberAnswer(reference);
      if (p && r) return Math.abs(p.value - r.value) < 1e-9 && (p.unit === r.unit || p.unit === '' || r.unit === '');
      break;
    }
    case 'boolean': {
      const p = parseBoolean(predicted);
      const r = parseBoolean(reference);
      if (p && r) return p === r;
      break;
    }
    case 'date': {
      const p = parseExactDate(predicted);
      const r = parseExactDate(reference);
      if (p && r) return sameDate(p, r);
      if (p || r) return false;
      break;
    }
    case 'list': {
      const p = new Set(splitListItems(predicted));
      const r = new Set(splitListItems(reference));
      return p.size > 0 && p.size === r.size && [...p].every((x) => r.has(x));
    }
    default:
      break;
  }
  const a = normalizeText(predicted);
  return a.length > 0 && a === normalizeText(reference);
}
