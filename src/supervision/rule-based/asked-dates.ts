/**
 * Questions asked on a day. A person asks about their past on a day of their own and names other days as that day
 * makes clear: "on June 2nd", "in March", seldom with the year. The templates write every date in full ("on 2 June
 * 2024"), which no one says, and which a design's date handling never has to resolve. So the offline generator
 * stamps each item with the day it is asked and writes a seeded share of its dates without their year, in the forms
 * real questions use.
 *
 * When is it asked? A user's history with an assistant is questioned as it goes: RHELM's questions are asked a few
 * weeks after their evidence, each on its own day, and see only the records up to it (the question-date protocol).
 * Asked all at the end, every question would see the whole history, and a design could not be rewarded for what
 * such a question favours: the records of the last weeks before it. So in those histories each item is asked a
 * seeded number of days after its latest dated evidence, drawn from the development questions' own delays
 * ({@link ASKED_AFTER_DECILES}) and taken to the nearest day of a monthly grid ({@link ASKING_STEP}). Chats between
 * people (LoCoMo) are questioned after the fact, undated: their items are all asked the day after the history's last
 * dated record, and see every record.
 *
 * A date loses its year only when the host's date resolver, reading the new question against the asked day, finds
 * that date where it was. The resolver picks the year nearest the asked day, so a date more than about half a year
 * before it keeps its year: the question must still mean what its evidence says.
 */
import type { SourceRecord } from '../../../sandbox/contract.ts';
import { findDates, isoDate, MONTH_NAMES } from '../../text/date-parse.ts';
import { resolveDates } from '../../text/resolve-dates.ts';
import type { Rng } from '../rng.ts';

/** Version of these rules, recorded with the runs that used them. */
export const ASKED_DATES = 'asked-dates@3';

/**
 * The share of date mentions that keep their year, by kind of history. Calibrated on the development histories only:
 * RHELM Jonas_Richter and Justice_Arvind_Prakash_Mehra (a user asking an assistant) write the year in 17 of 89 day
 * and month mentions of their official questions; LoCoMo conv-26 and conv-30 (two people chatting) in 6 of 11.
 */
export const KEEP_YEAR = { conversation: 0.55, userAssistant: 0.2 } as const;

/**
 * How a day is written without its year, with weights: the same development questions write 21 "June 2nd", 15 "June
 * 2" and 2 "2 June".
 */
const DAY_FORMS: ReadonlyArray<readonly [(month: string, day: number) => string, number]> = [
  [(m, d) => `${m} ${ordinal(d)}`, 21],
  [(m, d) => `${m} ${d}`, 15],
  [(m, d) => `${d} ${m}`, 2],
];

function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** The day the questions about `records` are asked: the day after the last dated record; undefined when none is dated. */
export function askedDayOf(records: readonly Pick<SourceRecord, 'time'>[]): string | undefined {
  let last: string | undefined;
  for (const r of records) {
    const day = dayOf(r.time);
    if (day && (last === undefined || day > last)) last = day;
  }
  return last === undefined ? undefined : plusDays(last, 1);
}

/**
 * Days from a question's latest dated evidence to the day it is asked, at the deciles (0th to 100th percentile) of
 * the 160 official questions with dated evidence of RHELM's development personas (Jonas_Richter,
 * Justice_Arvind_Prakash_Mehra): median 38 days, 90th percentile 88. Their lowest decile (evidence on or after the
 * question's own day) is raised to one day, so the evidence is always visible.
 */
export const ASKED_AFTER_DECILES = [1, 5, 14, 22, 35, 38, 44, 53, 61, 88, 330] as const;

/** A delay drawn from {@link ASKED_AFTER_DECILES}, linear between deciles (one draw). */
export function askedAfterDays(rng: Rng): number {
  const u = rng.next() * 10;
  const i = Math.min(9, Math.floor(u));
  const a = ASKED_AFTER_DECILES[i]!;
  const b = ASKED_AFTER_DECILES[i + 1]!;
  return Math.round(a + (b - a) * (u - i));
}

function dayOf(time: string | undefined): string | undefined {
  return /^\d{4}-\d{2}-\d{2}/.exec(time ?? '')?.[0];
}

function plusDays(day: string, n: number): string {
  const t = new Date(`${day}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + n);
  return t.toISOString().slice(0, 10);
}

/**
 * Days between the days a user's items can be asked: every ASKING_STEP days from the history's first dated day. Each
 * asked day is a group the evaluator replays (a memory grown by the design's `add`, derived state rebuilt): with a day
 * per item, an iteration of a RHELM search took about three times as long as on this grid. On a 30-day grid the drawn
 * delays keep their median (the nearest grid day is taken) and a history has about one asked day per month of its span.
 */
export const ASKING_STEP = 30;

const DAY_MS = 86_400_000;

/** When the items of one history are asked. */
export interface AskedDays {
  /** True when each item gets its own day after its evidence; false when all are asked after the history. */
  perItem: boolean;
  /** Whether the history has a dated record (without one, no item is asked on a day). */
  dated: boolean;
  /**
   * The day an item resting on these records (its evidence, and the record its question names its day by) is asked
   * (draws from `rng` when `perItem`): the {@link ASKING_STEP} grid day nearest the latest of their dated days plus a
   * drawn delay, and after that day; undefined when the history has no dated record. An item whose records are all
   * undated (documents) is asked on the first grid day after a dated record drawn uniformly: any point of the
   * history's activity.
   */
  dayFor(evidence: readonly string[], rng: Rng): string | undefined;
}

/** Asked days for the items of a history; `perItem` for a user's history with an assistant (see the module note). */
export function createAskedDays(records: readonly Pick<SourceRecord, 'id' | 'time'>[], perItem: boolean): AskedDays {
  const end = askedDayOf(records);
  const dayById = new Map<string, string>();
  const days: string[] = [];
  let firstDay = '9999-12-31';
  for (const r of records) {
    const d = dayOf(r.time);
    if (d === undefined) continue;
    dayById.set(r.id, d);
    days.push(d);
    if (d < firstDay) firstDay = d;
  }
  const first = Date.parse(`${firstDay}T00:00:00Z`);
  // The grid day nearest `target` that comes after `latest` (both epoch ms of a day).
  const gridDay = (latest: number, target: number) => {
    let k = Math.round((target - first) / (ASKING_STEP * DAY_MS));
    while (first + k * ASKING_STEP * DAY_MS <= latest) k++;
    return new Date(first + k * ASKING_STEP * DAY_MS).toISOString().slice(0, 10);
  };
  return {
    perItem,
    dated: end !== undefined,
    dayFor(evidence, rng) {
      if (!perItem || end === undefined) return end;
      const draw = rng.next();
      let latest: string | undefined;
      for (const id of evidence) {
        const d = dayById.get(id);
        if (d !== undefined && (latest === undefined || d > latest)) latest = d;
      }
      if (latest === undefined) {
        const at = Date.parse(`${days[Math.min(days.length - 1, Math.floor(draw * days.length))]!}T00:00:00Z`);
        return gridDay(at, at);
      }
      const at = Date.parse(`${latest}T00:00:00Z`);
      return gridDay(at, at + askedAfterDays(rng) * DAY_MS);
    },
  };
}

/** Inside quotation marks (a document's title names a date as part of a name, which must not change). */
function quoted(text: string, at: number): boolean {
  const before = text.slice(0, at);
  const open = (before.match(/[“"]/g) ?? []).length - (before.match(/”/g) ?? []).length;
  return before.includes('“') ? open > 0 : open % 2 === 1;
}

/**
 * `question` as asked on `asked`: each date it writes in full keeps its year with probability `keepYear`, else is
 * written without it, when the resolver reads it back as the same day or month against `asked`. Dates inside quotes
 * and the second date of a range ("between May and June 2024", whose year the first one shares) are left as written.
 */
export function askedForm(question: string, asked: string, keepYear: number, rng: Rng): string {
  let out = question;
  // Right to left, so earlier offsets stay valid while later mentions are rewritten.
  for (const m of findDates(question).reverse()) {
    if (m.date.month === undefined || !m.text.includes(String(m.date.year))) continue;
    if (quoted(question, m.start) || /\b(?:and|to|through|until|or)\s+$|[-–]\s*$/.test(question.slice(0, m.start))) continue;
    // One draw per mention, kept or not, so whether one date loses its year never shifts another's draw.
    const keep = rng.next() < keepYear;
    const form = rng.weighted(DAY_FORMS.map(([, w]) => w));
    if (keep) continue;
    const month = MONTH_NAMES[m.date.month - 1]!;
    const written = m.date.day === undefined ? month : DAY_FORMS[form]![0](month, m.date.day);
    const next = out.slice(0, m.start) + written + out.slice(m.end);
    const read = resolveDates(next, asked).find((r) => r.start === m.start);
    if (read?.date === isoDate(m.date) && read.end === m.start + written.length) out = next;
  }
  return out;
}
