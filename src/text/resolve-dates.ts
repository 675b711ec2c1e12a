/**
 * Date mentions resolved against a reference date: what `tools.text.dates` gives designs, so a time-aware design
 * can turn "last Saturday" in a turn said on 2023-05-08 into 2023-05-06. chrono-node reads the phrases.
 */
import { resolvingDates } from './chrono-parsers.ts';
import { calendarOf, findDates, isoDate, longestFirst, mentionOf, ownMentions, parseByLine, standsAlone } from './date-parse.ts';

/** One date mention: where it is in the text and the date it denotes. */
export interface ResolvedDate {
  /** The mention as written. */
  text: string;
  /** Offsets of `text` in the input (`end` exclusive). */
  start: number;
  end: number;
  /** `YYYY-MM-DD`; `YYYY-MM` or `YYYY` when the text names only a month ("last month") or a year ("in 2019"). */
  date: string;
}

const REFERENCE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The instant an ISO date or date-time stands for, read as written (its wall-clock date and time, in UTC): a
 * record's "yesterday" is the day before the date written on it, whatever its zone. A date alone is its noon.
 * Undefined when `reference` is not an ISO date.
 */
export function referenceInstant(reference: string): Date | undefined {
  const m = REFERENCE.exec(reference.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4] ?? '12', m[5] ?? '00', m[6] ?? '00'].map(Number) as number[];
  const t = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
  const valid = t.getUTCFullYear() === y && t.getUTCMonth() === mo! - 1 && t.getUTCDate() === d && h! < 24 && mi! < 60 && s! < 60;
  return valid ? t : undefined;
}

/**
 * Every date mention in `text`, left to right. With a `reference` (an ISO date or date-time, e.g. the record's own
 * time) relative phrases resolve against it ("yesterday", "last Saturday", "two weeks ago", "next month", "May 8");
 * without one only dates the text fixes by itself are returned, so the result never depends on the clock.
 * Throws a RangeError when `reference` is given and is not an ISO date.
 */
export function resolveDates(text: string, reference?: string): ResolvedDate[] {
  if (reference === undefined) return findDates(text).map((m) => ({ text: m.text, start: m.start, end: m.end, date: isoDate(m.date) }));
  const instant = referenceInstant(reference);
  if (instant === undefined) throw new RangeError(`'${reference}' is not an ISO date (YYYY-MM-DD or YYYY-MM-DDTHH:MM)`);
  const found = ownMentions(text);
  for (const r of parseByLine(resolvingDates, text, { instant, timezone: 0 })) {
    const c = r.result.start;
    const fixed = (['year', 'month', 'day', 'weekday'] as const).some((k) => c.isCertain(k));
    // "this morning" fixes only the hour, but its day is the reference's; a bare "at 5pm" is a time, not a date.
    const casualDay = [...r.result.tags()].some((t) => t.startsWith('casualReference/'));
    if (!fixed && !casualDay) continue;
    const date = calendarOf(c);
    if (casualDay && !fixed) Object.assign(date, { month: c.get('month')!, day: c.get('day')! });
    const m = mentionOf(text, r, date);
    if (m.text !== '' && standsAlone(text, m) && !namesNoDay(m.text)) found.push(m);
  }
  return longestFirst(found).map((m) => ({ text: m.text, start: m.start, end: m.end, date: isoDate(m.date) }));
}

/**
 * Words chrono reads as dates that in prose name no day: a weekday abbreviation written in lower case ("I sat on
 * the porch", "lounging in the sun", "we wed in June") and a part of day on its own ("later that morning", "in the
 * evening"), which says when in a day, not which day ("this morning", "tonight", "last night" still resolve).
 */
function namesNoDay(mention: string): boolean {
  return /^(?:sun|mon|tue|tues|wed|thu|thur|thurs|fri|sat)$/.test(mention) || /^(?:morning|afternoon|evening|night)$/i.test(mention);
}
