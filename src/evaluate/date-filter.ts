/**
 * The question-date protocol (RHELM's): when a question has a `date`, no record dated after it may reach its
 * context. The host enforces it, not the design: the questions of a date run against a memory of only the records
 * visible then. Groups of questions that see the same records share that memory; a history's groups are replayed
 * once in time order (eval-timeline.ts), growing the memory between them with the design's `add` when it has one,
 * else building it afresh in a new isolate.
 *
 * - A date-only cutoff (`YYYY-MM-DD`) includes the whole day: a record at 2024-03-05T18:00 is visible to a
 *   question dated 2024-03-05.
 * - A date-time cutoff is compared as an instant.
 * - Records without a time, or with a time that does not parse, are always visible (documents and notes often
 *   have no date; leaving them out would hide data the user had).
 * - Questions without a date see every record, and share one memory.
 */
import type { SourceRecord } from '../../sandbox/contract.ts';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

/**
 * Parses an ISO time. A date-time without an offset is read as UTC, not the machine's zone, so the same data
 * gives the same visible sets everywhere (records and question dates of one data set share their zone).
 */
function parseInstant(text: string): number {
  return Date.parse(LOCAL_DATE_TIME.test(text) ? `${text}Z` : text);
}

/** The last instant (epoch ms) a record may carry to be visible at `cutoff`, or null when there is no usable cutoff. */
export function cutoffInstant(cutoff: string | undefined | null): number | null {
  if (!cutoff) return null;
  const c = cutoff.trim();
  if (DATE_ONLY.test(c)) {
    const t = Date.parse(`${c}T23:59:59.999Z`);
    return Number.isNaN(t) ? null : t;
  }
  const t = parseInstant(c);
  return Number.isNaN(t) ? null : t;
}

/** When a record happened (epoch ms), or null when it has no usable time. Date-only times count as that day's start. */
export function recordInstant(time: string | undefined): number | null {
  if (!time) return null;
  const t = parseInstant(DATE_ONLY.test(time) ? `${time}T00:00:00` : time.trim());
  return Number.isNaN(t) ? null : t;
}

/** Whether a record may be seen by a question with this cutoff. */
export function isVisible(record: Pick<SourceRecord, 'time'>, cutoff: number | null): boolean {
  if (cutoff === null) return true;
  const t = recordInstant(record.time);
  return t === null || t <= cutoff;
}

/** Parsed record times per records array: a one-pass replay asks for the visible records of one history per date. */
const instantsOf = new WeakMap<readonly object[], Array<number | null>>();

/** The records visible at `cutoff` (order kept). */
export function visibleRecords<R extends Pick<SourceRecord, 'time'>>(records: readonly R[], cutoff: number | null): R[] {
  if (cutoff === null) return [...records];
  let instants = instantsOf.get(records);
  // A length check guards against an array grown after it was cached (callers replace arrays rather than edit them).
  if (!instants || instants.length !== records.length) {
    instants = records.map((r) => recordInstant(r.time));
    instantsOf.set(records, instants);
  }
  const known = instants;
  return records.filter((_r, i) => {
    const t = known[i]!;
    return t === null || t <= cutoff;
  });
}

/** Questions that share one memory: the same visible record set. */
export interface DateGroup<Q> {
  /** Cutoff instant, null for "all records". */
  cutoff: number | null;
  /** How many records the memory is built from. */
  visible: number;
  questions: Q[];
}

/**
 * Groups questions by the set of records they may see. Visible sets are nested (a later cutoff sees a
 * superset), so two dates with no record between them have the same count and share one memory: the
 * number of memory builds is the number of distinct visible sets, not of distinct dates. Groups come out
 * in increasing cutoff order, undated last.
 */
export function groupByVisibleRecords<Q extends { date?: string | undefined }>(
  records: ReadonlyArray<Pick<SourceRecord, 'time'>>,
  questions: readonly Q[],
): Array<DateGroup<Q>> {
  const times = records.map((r) => recordInstant(r.time));
  const undatedRecords = times.filter((t) => t === null).length;
  const sorted = (times.filter((t) => t !== null) as number[]).sort((a, b) => a - b);
  const countAt = (cutoff: number): number => {
    // Records with time ≤ cutoff: upper bound by binary search.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! <= cutoff) lo = mid + 1;
      else hi = mid;
    }
    return undatedRecords + lo;
  };
  const groups = new Map<number, DateGroup<Q>>();
  let all: DateGroup<Q> | null = null;
  for (const q of questions) {
    const cutoff = cutoffInstant(q.date);
    if (cutoff === null || countAt(cutoff) === records.length) {
      all ??= { cutoff: null, visible: records.length, questions: [] };
      all.questions.push(q);
      continue;
    }
    const visible = countAt(cutoff);
    let g = groups.get(visible);
    if (!g) {
      g = { cutoff, visible, questions: [] };
      groups.set(visible, g);
    }
    // Keep the earliest cutoff of the group: it selects the same records as any later one in it.
    if (cutoff < g.cutoff!) g.cutoff = cutoff;
    g.questions.push(q);
  }
  const out = [...groups.values()].sort((a, b) => a.visible - b.visible);
  if (all) out.push(all);
  return out;
}
