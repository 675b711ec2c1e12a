/**
 * Explicit calendar-date expressions: finding them in text, parsing a whole answer as one date, formatting and
 * day arithmetic. Shared by answer matching (date answers) and the extractive reader ('when' questions).
 * Only absolute dates are parsed here (chrono-node, see chrono-parsers.ts); relative phrases ("last week") need
 * the date they were said on: resolve-dates.ts.
 */
import type { Chrono, ParsedComponents, ParsedResult, ParsingReference } from 'chrono-node';
import { explicitDates } from './chrono-parsers.ts';

/** A calendar date at year, month or day precision. */
export interface CalendarDate {
  year: number;
  month?: number;
  day?: number;
}

/** One explicit date mention: where it is in the text and what it denotes. */
export interface DateMention {
  date: CalendarDate;
  start: number;
  end: number;
  text: string;
}

export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

export const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

const MONTHS: Record<string, number> = {
  january: 1,
  jan: 1,
  february: 2,
  feb: 2,
  march: 3,
  mar: 3,
  april: 4,
  apr: 4,
  may: 5,
  june: 6,
  jun: 6,
  july: 7,
  jul: 7,
  august: 8,
  aug: 8,
  september: 9,
  sep: 9,
  sept: 9,
  october: 10,
  oct: 10,
  november: 11,
  nov: 11,
  december: 12,
  dec: 12,
};

/** Month number (1–12) of a month name or abbreviation, else undefined. */
export function monthNumber(word: string): number | undefined {
  return MONTHS[word.toLowerCase().replace(/\.$/, '')];
}

// A word boundary that also holds next to non-ASCII letters.
const B0 = '(?<![\\p{L}\\p{N}])';
const B1 = '(?![\\p{L}\\p{N}])';

interface Pattern {
  re: RegExp;
  build(m: RegExpExecArray): CalendarDate | null;
}

/** What chrono does not do our way: numeric dates by its locale's order, and bare years (it skips them). */
const OWN_PATTERNS: Pattern[] = [
  {
    // 2023-05-08 and 2023/05/08 also inside names ("2024-07-12_siteA.jpg"), where chrono sees no word boundary.
    re: new RegExp(`${B0}(\\d{4})[-/](\\d{1,2})[-/](\\d{1,2})${B1}`, 'gu'),
    build: (m) => ymd(+m[1]!, +m[2]!, +m[3]!),
  },
  {
    // 5/8/2023 or 8.5.2023: only when the day/month order is unambiguous (one part > 12, or both equal).
    re: new RegExp(`${B0}(\\d{1,2})[/.](\\d{1,2})[/.](\\d{4})${B1}`, 'gu'),
    build: (m) => {
      const a = +m[1]!,
        b = +m[2]!,
        y = +m[3]!;
      if (a === b) return ymd(y, a, b);
      if (a > 12 && b <= 12) return ymd(y, b, a);
      if (b > 12 && a <= 12) return ymd(y, a, b);
      return null;
    },
  },
  {
    // A bare year (1900–2099).
    re: new RegExp(`${B0}((?:19|20)\\d{2})${B1}`, 'gu'),
    build: (m) => ({ year: +m[1]! }),
  },
];

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function ymd(year: number, month: number, day: number): CalendarDate | null {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return { year, month, day };
}

/** The calendar date chrono's components fix, at the precision the text gave (a weekday fixes the day). */
export function calendarOf(c: ParsedComponents): CalendarDate {
  const d: CalendarDate = { year: c.get('year')! };
  if (c.isCertain('month') || c.isCertain('day') || c.isCertain('weekday')) d.month = c.get('month')!;
  if (c.isCertain('day') || c.isCertain('weekday')) d.day = c.get('day')!;
  return d;
}

// chrono counts a leading preposition into the mention ("on 8 May, 2023"), and sometimes a bracket around it
// ("(Saturday, 2024-06-01", "19:15 PDT)"); the date is what lies between.
const LEADING_WORD = /^(?:[^\p{L}\p{N}]+|(?:on|in|at|by|of|the|from|since|until)\s+)+/iu;
const TRAILING_MARK = /[^\p{L}\p{N}]+$/u;

/** A chrono result as a mention, without a leading preposition or trailing punctuation. */
export function mentionOf(source: string, r: PlacedResult, date: CalendarDate): DateMention {
  const raw = source.slice(r.index, r.index + r.result.text.length);
  const lead = LEADING_WORD.exec(raw)?.[0].length ?? 0;
  const trail = TRAILING_MARK.exec(raw)?.[0].length ?? 0;
  const text = raw.slice(lead, Math.max(lead, raw.length - trail));
  return { date, start: r.index + lead, end: r.index + lead + text.length, text };
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Whether a mention stands as its own words: chrono also reads "apr2017" in a URL path and "August2024" in a name. */
export function standsAlone(text: string, m: { start: number; end: number; text: string }): boolean {
  return !WORD_CHAR.test(text[m.start - 1] ?? '') && !WORD_CHAR.test(text[m.end] ?? '') && !/\p{L}{3}\d/u.test(m.text);
}

/** Mentions of our own patterns (see {@link OWN_PATTERNS}). */
export function ownMentions(text: string): DateMention[] {
  const found: DateMention[] = [];
  for (const p of OWN_PATTERNS) {
    p.re.lastIndex = 0;
    for (let m = p.re.exec(text); m; m = p.re.exec(text)) {
      const date = p.build(m);
      if (date) found.push({ date, start: m.index, end: m.index + m[0].length, text: m[0] });
    }
  }
  return found;
}

/** Left to right; where mentions overlap the longest (most precise) stays. */
export function longestFirst<T extends { start: number; end: number }>(found: T[]): T[] {
  const sorted = [...found].sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start));
  const out: T[] = [];
  for (const f of sorted) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) {
      if (f.end - f.start > last.end - last.start) out[out.length - 1] = f;
      continue;
    }
    out.push(f);
  }
  return out;
}

/**
 * chrono's results line by line, offsets into the whole text: a date does not run over a line break, and chrono
 * would otherwise join "v1.10" at the end of one line to the date starting the next. Underscores read as spaces
 * (same length, so offsets hold): chrono takes `_June 29, 2024_` (Markdown italics) for one word.
 */
export function parseByLine(parser: Chrono, text: string, reference?: ParsingReference): PlacedResult[] {
  const out: PlacedResult[] = [];
  let offset = 0;
  for (const line of text.split('\n')) {
    if (/\S/.test(line)) {
      for (const result of parser.parse(line.replaceAll('_', ' '), reference)) out.push({ result, index: offset + result.index });
    }
    offset += line.length + 1;
  }
  return out;
}

/** A chrono result and where it starts in the whole text. */
export interface PlacedResult {
  result: ParsedResult;
  index: number;
}

/** Every explicit date in `text`, left to right; overlapping matches resolve to the longest (most precise). */
export function findDates(text: string): DateMention[] {
  // An explicit date always has a digit (its year or day); most sentences have none and skip the parser.
  if (!/\d/.test(text)) return [];
  const found = ownMentions(text);
  for (const r of parseByLine(explicitDates, text)) {
    // Without its year a date is relative to when it was said ("8 May"): not explicit.
    if (!r.result.start.isCertain('year')) continue;
    const m = mentionOf(text, r, calendarOf(r.result.start));
    if (standsAlone(text, m)) found.push(m);
  }
  return longestFirst(found);
}

const WEEKDAY_PREFIX = /^(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+)/i;
// "1:56 pm on 8 May, 2023" is how LoCoMo stamps sessions.
const TIME_PREFIX = /^\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?\s+on\s+/i;

/**
 * The date an answer denotes when the whole answer is one explicit date ("8 May 2023", "May 8, 2023",
 * "2023-05-08", "May 2023", "2023"), else null. Relative phrases ("the week before 21 March 2024") are not dates.
 */
export function parseExactDate(text: string): CalendarDate | null {
  let s = text
    .trim()
    .replace(/[.!]+$/, '')
    .trim();
  s = s
    .replace(/^(?:on|in|at)\s+/i, '')
    .replace(TIME_PREFIX, '')
    .replace(WEEKDAY_PREFIX, '')
    .replace(/^the\s+/i, '');
  const mentions = findDates(s);
  if (mentions.length !== 1) return null;
  const m = mentions[0]!;
  const rest = (s.slice(0, m.start) + s.slice(m.end)).replace(/[\s,.;:()]+/g, '');
  return rest === '' ? m.date : null;
}

/** "8 May 2023", "May 2023" or "2023", as LoCoMo writes dates. */
export function formatDate(d: CalendarDate): string {
  if (d.month === undefined) return String(d.year);
  const month = MONTH_NAMES[d.month - 1]!;
  return d.day === undefined ? `${month} ${d.year}` : `${d.day} ${month} ${d.year}`;
}

/** "2023-05-08", "2023-05" or "2023". */
export function isoDate(d: CalendarDate): string {
  const p2 = (n: number) => String(n).padStart(2, '0');
  if (d.month === undefined) return String(d.year);
  return d.day === undefined ? `${d.year}-${p2(d.month)}` : `${d.year}-${p2(d.month)}-${p2(d.day)}`;
}

/** Same calendar date at the same precision. */
export function sameDate(a: CalendarDate, b: CalendarDate): boolean {
  return a.year === b.year && a.month === b.month && a.day === b.day;
}

/** A day-precision date moved by `days` (negative: earlier). */
export function addDays(d: CalendarDate, days: number): CalendarDate {
  const t = new Date(Date.UTC(d.year, (d.month ?? 1) - 1, d.day ?? 1) + days * 86_400_000);
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

/** Whole days from one ISO day (`YYYY-MM-DD…`) to another; negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  const day = (iso: string) => Date.UTC(+iso.slice(0, 4), +iso.slice(5, 7) - 1, +iso.slice(8, 10)) / 86_400_000;
  return day(to) - day(from);
}

/** A month-precision date moved by `months`. */
export function addMonths(d: CalendarDate, months: number): CalendarDate {
  const index = d.year * 12 + (d.month ?? 1) - 1 + months;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

/** 0 = Sunday … 6 = Saturday, for a day-precision date. */
export function weekday(d: CalendarDate): number {
  return new Date(Date.UTC(d.year, (d.month ?? 1) - 1, d.day ?? 1)).getUTCDay();
}
