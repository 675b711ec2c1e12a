import type { SourceRecord } from '../../../sandbox/contract.ts';
import { formatDate, parseExactDate } from '../../text/date-parse.ts';
import { resolveDates } from '../../text/resolve-dates.ts';
import { recordDate } from '../bundles.ts';
import { type Clause, clausesOf } from './clauses.ts';

/** A clause and the record (by index in the records given) that says it. */
export interface Said {
  i: number;
  c: Clause;
}

/** The verb as questions use it: lemma and preposition ("go to", "paint"). */
export function verbKey(c: Pick<Clause, 'lemma' | 'prep'>): string {
  return c.prep ? `${c.lemma} ${c.prep}` : c.lemma;
}

/** Clauses of a set of records, indexed by speaker and verb (past and perfect clauses: things that happened). */
export class ClauseIndex {
  readonly all: Said[] = [];
  private readonly byVerb = new Map<string, Said[]>();
  private readonly byRecord = new Map<number, Said[]>();

  constructor(records: readonly SourceRecord[]) {
    records.forEach((r, i) => {
      for (const c of clausesOf(r)) {
        this.all.push({ i, c });
        const own = this.byRecord.get(i) ?? [];
        own.push({ i, c });
        this.byRecord.set(i, own);
        const key = `${c.who.toLowerCase()}\u0000${verbKey(c)}\u0000${c.tense === 'present' ? 'present' : 'done'}`;
        const list = this.byVerb.get(key) ?? [];
        list.push({ i, c });
        this.byVerb.set(key, list);
      }
    });
  }

  /** The clauses of record `i`. */
  of(i: number): Said[] {
    return this.byRecord.get(i) ?? [];
  }

  /** What `who` said they did (past, perfect) or like (present) with the verb `verb` ("go to"). */
  said(who: string, verb: string, present = false): Said[] {
    return this.byVerb.get(`${who.toLowerCase()}\u0000${verb}\u0000${present ? 'present' : 'done'}`) ?? [];
  }

  /** Whether anyone other than `who` said `verb` of an object with this head (a false premise's correction). */
  others(who: string, verb: string, head: string): Said[] {
    return this.all.filter((s) => s.c.who.toLowerCase() !== who.toLowerCase() && verbKey(s.c) === verb && s.c.head === head);
  }
}

/** Distinct objects (by head) of a list of clauses, first mention first. */
export function distinctObjects(list: readonly Said[]): Said[] {
  const seen = new Set<string>();
  const out: Said[] = [];
  for (const s of list) {
    if (seen.has(s.c.head)) continue;
    seen.add(s.c.head);
    out.push(s);
  }
  return out;
}

const NOW = /\b(?:just|today|this morning|this afternoon|tonight|right now)\b/i;

/**
 * When the event of a clause happened, as a date answer ("7 May 2023", "May 2023"): the one date its sentence
 * gives, resolved against the record's own date ("yesterday" said on 8 May 2023 → 7 May 2023), or the record's
 * date when the sentence says it just happened. Undefined when the sentence does not place it in time.
 */
export function clauseDate(r: SourceRecord, c: Clause): string | undefined {
  const day = recordDate(r);
  if (!day) return undefined;
  const s = c.sentence;
  const found = resolveDates(r.text, r.time ?? day).filter((m) => m.start >= s.start && m.end <= s.end);
  if (found.length > 1) return undefined;
  if (found.length === 1) {
    const [year, month, dayOf] = found[0]!.date.split('-').map(Number);
    return formatDate({ year: year!, ...(month ? { month } : {}), ...(dayOf ? { day: dayOf } : {}) });
  }
  if (!NOW.test(s.text)) return undefined;
  return formatDate(parseExactDate(day)!);
}
