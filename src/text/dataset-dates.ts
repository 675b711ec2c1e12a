/**
 * Dates in the fixed formats of the data sets, read exactly. These stay hand-written on purpose: each format is
 * one known shape, a regular expression reads it completely, and a free-text parser (chrono-node, used for
 * running text in date-parse.ts) would accept more than the format and guess where it should refuse.
 */

/** Month names and three-letter abbreviations → 1-based month. */
const MONTHS: Record<string, number> = {};
['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'].forEach(
  (m, i) => {
    MONTHS[m] = i + 1;
    MONTHS[m.slice(0, 3)] = i + 1;
  },
);
MONTHS.sept = 9;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function validDay(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** Returns the 1-based month for a month name or abbreviation, or undefined. */
export function monthNumber(name: string): number | undefined {
  return MONTHS[name.toLowerCase().replace(/\.$/, '')];
}

/**
 * LoCoMo session date-times, e.g. `1:56 pm on 8 May, 2023` → `2023-05-08T13:56:00` (local time, no zone: the data
 * has none). Returns undefined when the text does not have that shape, so a malformed stamp is reported by the
 * loader instead of read loosely.
 */
export function parseLocomoDateTime(text: string): string | undefined {
  const m = /^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})\s*$/i.exec(text);
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = Number(m[2]);
  const pm = m[3]!.toLowerCase() === 'p';
  if (hour < 1 || hour > 12 || minute > 59) return undefined;
  if (hour === 12) hour = 0;
  if (pm) hour += 12;
  const day = Number(m[4]);
  const month = monthNumber(m[5]!);
  const year = Number(m[6]);
  if (month === undefined || !validDay(year, month, day)) return undefined;
  return `${year}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:00`;
}

/** LongMemEval dates, e.g. `2023/05/25 (Thu) 20:21` → `2023-05-25T20:21:00`. */
export function parseLongMemEvalDate(text: string): string | undefined {
  const m = /^\s*(\d{4})\/(\d{1,2})\/(\d{1,2})(?:\s*\([A-Za-z]+\))?(?:\s+(\d{1,2}):(\d{2}))?\s*$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!validDay(y, mo, d)) return undefined;
  const date = `${y}-${pad(mo)}-${pad(d)}`;
  return m[4] === undefined ? date : `${date}T${pad(Number(m[4]))}:${m[5]}:00`;
}

/**
 * Whether a whole answer string is a calendar date (not a phrase around one): `2023-05-08`, `8 May 2023`,
 * `May 8, 2023`, `May 2023`, `8 May`, `May 8`, `September 23, 2024`. A bare year counts as a number, not a date.
 * Kept exact: the type it gives an official answer decides how answers are matched, and chrono-node reads
 * `November 5-6, 2022` and `end of October 2023` (both in the data) as single dates, which would then match one day.
 */
export function isDateAnswer(answer: string): boolean {
  const s = answer.trim().replace(/\.$/, '');
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) {
    const [y, m, d] = s.split('-').map(Number) as [number, number, number];
    return validDay(y, m, d);
  }
  let m = /^(?:on\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]+)\.?,?(?:\s+(\d{4}))?$/i.exec(s);
  if (m) return monthNumber(m[2]!) !== undefined && Number(m[1]) >= 1 && Number(m[1]) <= 31;
  m = /^(?:on\s+)?([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?(?:\s+(\d{4}))?$/i.exec(s);
  if (m) return monthNumber(m[1]!) !== undefined && Number(m[2]) >= 1 && Number(m[2]) <= 31;
  m = /^(?:in\s+)?([A-Za-z]+),?\s+(\d{4})$/i.exec(s);
  if (m) return monthNumber(m[1]!) !== undefined;
  return false;
}
