import type { SourceRecord } from '../../../sandbox/contract.ts';
import { formatDate } from '../../text/date-parse.ts';
import { resolveDates } from '../../text/resolve-dates.ts';
import { recordDate } from '../bundles.ts';
import { type Clause, clausesOf } from './clauses.ts';
import type { NlpSentence } from './nlp.ts';

/** A clause and the record (by index in the records given) that says it. */
export interface Stated {
  i: number;
  c: Clause;
}

/** The verb as questions use it: lemma and preposition ("go to", "paint"); "'s favorite book" for an attribute. */
export function verbKey(c: Pick<Clause, 'lemma' | 'prep' | 'attribute'>): string {
  if (c.attribute) return `'s ${c.attribute}`;
  return c.prep ? `${c.lemma} ${c.prep}` : c.lemma;
}

/** done: it happened (past, perfect); present: a habit, liking or attribute; ongoing: under way when said. */
export type Aspect = 'done' | 'present' | 'ongoing';

export function aspectOf(c: Pick<Clause, 'tense'>): Aspect {
  return c.tense === 'present' ? 'present' : c.tense === 'progressive' ? 'ongoing' : 'done';
}

/** Clauses of a set of records, indexed by speaker and verb (past and perfect clauses: things that happened). */
export class ClauseIndex {
  readonly all: Stated[] = [];
  private readonly byVerb = new Map<string, Stated[]>();
  private readonly byRecord = new Map<number, Stated[]>();

  constructor(records: readonly SourceRecord[]) {
    records.forEach((r, i) => {
      for (const c of clausesOf(r)) {
        this.all.push({ i, c });
        const own = this.byRecord.get(i) ?? [];
        own.push({ i, c });
        this.byRecord.set(i, own);
        const key = `${c.who.toLowerCase()}\u0000${verbKey(c)}\u0000${aspectOf(c)}`;
        const list = this.byVerb.get(key) ?? [];
        list.push({ i, c });
        this.byVerb.set(key, list);
      }
    });
  }

  /** The clauses of record `i`. */
  of(i: number): Stated[] {
    return this.byRecord.get(i) ?? [];
  }

  /** What `who` said they did, do or are doing (by `aspect`) with the verb `verb` ("go to"). */
  said(who: string, verb: string, aspect: Aspect = 'done'): Stated[] {
    return this.byVerb.get(`${who.toLowerCase()}\u0000${verb}\u0000${aspect}`) ?? [];
  }

  /** What `who` said of the verbs of a class (in the class's aspect), in record order. */
  inClass(who: string, cls: ClauseClass): Stated[] {
    return this.all.filter((s) => s.c.who.toLowerCase() === who.toLowerCase() && classOf(s.c) === cls);
  }

  /** Whether anyone other than `who` said `verb` of an object with this head (a false premise's correction). */
  others(who: string, verb: string, head: string): Stated[] {
    return this.all.filter((s) => s.c.who.toLowerCase() !== who.toLowerCase() && verbKey(s.c) === verb && s.c.head === head);
  }
}

/** Titles, which name no one by themselves: "Dr. Fiona MacLeod" is Fiona MacLeod. */
const TITLE = /^(?:mr|mrs|ms|miss|dr|prof|professor|sir|madam|advocate|justice)\.?$/i;

/** An object's words (lower case, titles left out), and whether every one of them is capitalised (a name). */
function objectWords(object: string): { words: string[]; name: boolean } {
  const words = object.split(/\s+/).filter((w) => w && !TITLE.test(w));
  return { words: words.map((w) => w.toLowerCase().replace(/['’]s$/, '')), name: words.every((w) => /^\p{Lu}/u.test(w)) };
}

/**
 * Distinct objects of a list of clauses, first mention first: by head, and one thing said two ways once, under the
 * fuller way: one person by first name and in full ("Fiona", "Fiona MacLeod"), one thing bare and described
 * ("juniper", "juniper bonsai"; "coffee", "cup of Ethiopian coffee"). A list answer naming both names one thing twice.
 */
export function distinctObjects(list: readonly Stated[]): Stated[] {
  const seen = new Set<string>();
  const out: Array<{ s: Stated; w: ReturnType<typeof objectWords> }> = [];
  for (const s of list) {
    if (seen.has(s.c.head)) continue;
    seen.add(s.c.head);
    const w = objectWords(s.c.object);
    const same = out.findIndex((o) => {
      if (o.w.name !== w.name) return false;
      const [short, long] = o.w.words.length <= w.words.length ? [o.w.words, w.words] : [w.words, o.w.words];
      return short.every((x) => long.includes(x));
    });
    if (same < 0) out.push({ s, w });
    else if (w.words.length > out[same]!.w.words.length) out[same] = { s, w };
  }
  return out.map((o) => o.s);
}

const NOW = /\b(?:just|today|this morning|this afternoon|tonight|right now)\b/i;

/**
 * When the event of a clause happened, as an ISO date at the precision the text gives ("2023-05-07", "2023-05"):
 * the one date its sentence gives, resolved against the record's own date ("yesterday" said on 8 May 2023 →
 * 2023-05-07), or the record's date when the sentence says it just happened. Undefined when the sentence does not
 * place it in time.
 */
export function clauseIso(r: SourceRecord, c: Clause): string | undefined {
  // Clauses are cached per record, so one parse per clause serves every question that compares it.
  if (isoCache.has(c)) return isoCache.get(c);
  const iso = sentenceIso(r, c.sentence);
  isoCache.set(c, iso);
  return iso;
}

const isoCache = new WeakMap<Clause, string | undefined>();

/**
 * The one date a sentence of record `r` places what it says on, resolved against the record's time ("yesterday",
 * "on May 3"), or the record's day when the sentence says it happened today (`now`: "this morning", "just");
 * undefined when it gives none or several.
 */
export function sentenceIso(r: SourceRecord, s: Pick<NlpSentence, 'start' | 'end' | 'text'>, now: RegExp = NOW): string | undefined {
  const day = recordDate(r);
  if (!day) return undefined;
  const found = resolveDates(r.text.slice(s.start, s.end), r.time ?? day);
  if (found.length > 1) return undefined;
  if (found.length === 1) return found[0]!.date;
  return now.test(s.text) ? day : undefined;
}

/** {@link clauseIso} as a date answer ("7 May 2023", "May 2023"). */
export function clauseDate(r: SourceRecord, c: Clause): string | undefined {
  const iso = clauseIso(r, c);
  return iso && isoAsDate(iso);
}

/** "2023-05-07" → "7 May 2023", "2023-05" → "May 2023": an ISO date as answers write it. */
export function isoAsDate(iso: string): string {
  const [year, month, day] = iso.split('-').map(Number);
  return formatDate({ year: year!, ...(month ? { month } : {}), ...(day ? { day } : {}) });
}

/** Verbs that answer one question about a person together ("Where has Caroline been?"). */
export interface ClauseClass {
  name: string;
  aspect: Aspect;
  /** Verb keys (lemma and preposition) of the class. */
  verbs: ReadonlySet<string>;
  ask(who: string): string;
}

/** The classes, each asked as people ask about someone's activities over months. */
export const CLAUSE_CLASSES: readonly ClauseClass[] = [
  {
    name: 'made',
    aspect: 'done',
    verbs: new Set(['make', 'build', 'create', 'bake', 'cook', 'knit', 'sew', 'craft', 'design', 'sculpt', 'write', 'finish']),
    ask: (w) => `What has ${w} made?`,
  },
  {
    name: 'art',
    aspect: 'done',
    verbs: new Set(['paint', 'draw', 'sketch', 'photograph']),
    ask: (w) => `What has ${w} painted or drawn?`,
  },
  {
    name: 'places',
    aspect: 'done',
    verbs: new Set(['go to', 'visit', 'travel to', 'move to', 'fly to', 'drive to', 'head to', 'return to', 'go on', 'explore']),
    ask: (w) => `Where has ${w} been?`,
  },
  {
    name: 'activities',
    aspect: 'done',
    verbs: new Set([
      'join',
      'attend',
      'sign up for',
      'volunteer at',
      'participate in',
      'take part in',
      'run',
      'start',
      'try',
      'start playing',
      'start taking',
      'take up',
    ]),
    ask: (w) => `What activities has ${w} taken part in?`,
  },
  {
    name: 'likes',
    aspect: 'present',
    verbs: new Set(['love', 'enjoy', 'like', 'adore']),
    ask: (w) => `What does ${w} enjoy?`,
  },
  {
    name: 'media',
    aspect: 'done',
    verbs: new Set(['read', 'watch', 'listen to', 'see', 'finish reading', 'start reading', 'start watching']),
    ask: (w) => `What has ${w} read, watched or listened to?`,
  },
];

/** The class a clause's verb belongs to, in that class's aspect. */
export function classOf(c: Clause): ClauseClass | undefined {
  if (c.attribute) return undefined;
  const key = verbKey(c);
  const aspect = aspectOf(c);
  return CLAUSE_CLASSES.find((k) => k.aspect === aspect && k.verbs.has(key));
}
