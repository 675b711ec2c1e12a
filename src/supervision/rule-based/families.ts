/**
 * Question families people ask of a personal memory, read from first-person clauses ("I painted a sunrise"):
 * what someone did, everything they did or like across sessions, when something happened (relative dates
 * resolved against the session's date), and yes/no questions whose premise is verified or false. Answers and
 * evidence are computed from the clauses, never guessed.
 */
import { Inflectors } from 'en-inflectors';
import type { SourceRecord } from '../../../sandbox/contract.ts';
import { daysBetween } from '../../text/date-parse.ts';
import { stem } from '../../text/text.ts';
import { recordDate } from '../bundles.ts';
import type { PlanFact } from '../plan.ts';
import type { Rng } from '../rng.ts';
import { aspectOf, ClauseIndex, classOf, clauseDate, clauseIso, distinctObjects, isoAsDate, type Stated, verbKey } from './clause-index.ts';
import type { Clause } from './clauses.ts';
import type { RuleContext } from './rule-context.ts';
import { namesOnlyADate } from './gist.ts';
import { isPerson } from './people.ts';
import { monthOf } from './phrases.ts';
import { whoAt } from './speakers.ts';
import { fact, plan, type RuleCandidate } from './templates.ts';

/** At most this many things in a list answer: a longer census is not what people ask a memory for. */
const MAX_LIST = 4;
const POSSESSIVE = new Set(['my', 'our', 'his', 'her', 'their', 'your']);

/** The object as a question names it: "a sunrise", "the beach", "that lake sunrise" → "the lake sunrise". */
function objectPhrase(c: Clause): string | undefined {
  if (POSSESSIVE.has(c.determiner)) return undefined;
  const det = /^(?:this|that|these|those)$/.test(c.determiner) ? 'the' : c.determiner;
  return det ? `${det} ${c.object}` : c.object;
}

function statement(c: Clause): string {
  if (c.attribute) return `${c.who}'s ${c.attribute} ${c.verb.text} ${c.object}`;
  return `${c.who} ${c.verb.text}${c.prep ? ` ${c.prep}` : ''} ${c.object}`;
}

/**
 * A user asking about their own past asks for the kind of thing: "Which program did I join?" (written here about
 * "the user"; see voice.ts). Attributes and ongoing activities keep their "what" form.
 */
export function whichQuestionOf(c: Clause): string {
  const aspect = aspectOf(c);
  const last = c.object.split(' ').pop()!;
  // A name is not a kind ("Which klein did I run into?"): ask "what".
  if (c.attribute || aspect === 'ongoing' || /^[A-Z]/.test(last)) return whatQuestion(c);
  const kind = last.toLowerCase();
  return `Which ${kind} ${aspect === 'present' ? 'does' : 'did'} ${c.who} ${verbKey(c)}?`;
}

/**
 * The "what" question of a clause, by its aspect: "What did Ana bake?", "What does Melanie play?", "What is
 * Jon reading?", "What is Gina's favorite style?" (the blind reader parses these same four forms).
 */
export function whatQuestion(c: Clause): string {
  if (c.attribute) return `What ${c.tense === 'past' ? 'was' : 'is'} ${c.who}'s ${c.attribute}?`;
  const aspect = aspectOf(c);
  if (aspect === 'ongoing') return `What is ${c.who} ${c.verb.text.toLowerCase()}${c.prep ? ` ${c.prep}` : ''}?`;
  return `What ${aspect === 'present' ? 'does' : 'did'} ${c.who} ${verbKey(c)}?`;
}

/** Verbs of going somewhere: "cycled to Boxhagener Platz" names a place, even one that is said to be busy. */
const GOING = new Set('go went cycle bike walk drive head travel move return arrive ride fly hike commute'.split(' '));
/** Verbs whose own object is someone when it is a person's name ("met Marta", "e-mailed Dr. Sutherland"). */
const TO_SOMEONE = new Set(
  'meet email e-mail message text call phone ring thank ask invite hug help contact interview tell greet'.split(' '),
);
/** The last word of a verb's phrase after which a person's name is someone ("met up with", "responded to", "ran into"). */
const WITH_SOMEONE = new Set(['with', 'to', 'into']);
const NAME_WORD = /^\p{Lu}[\p{L}.'’-]*$/u;

/**
 * Whether a clause's object is a person the question should ask "who" of: "I ran into Marta Klein", "I met with Frau
 * Becker". The verb must be one done to or with someone ("packed Nikon", "settled in at ESTEC" and "cycled to
 * Boxhagener Platz" are not), and the object a name that has a title or that the history shows doing things.
 */
function objectIsAPerson(ctx: RuleContext, c: Clause): boolean {
  if (c.attribute || aspectOf(c) === 'ongoing' || !c.object.split(' ').every((w) => NAME_WORD.test(w))) return false;
  const words = verbKey(c).split(' ');
  const toSomeone = words.length === 1 ? TO_SOMEONE.has(words[0]!) : WITH_SOMEONE.has(words.at(-1)!) && !GOING.has(words[0]!);
  return toSomeone && isPerson(ctx, c.object);
}

/** The "who" form of a clause's question, for an object that is a person: "Who did I meet?", "Who does Ana call?". */
function askWhoQuestion(c: Clause): string {
  return whatQuestion(c).replace(/^What /, 'Who ');
}

/** Verbs whose present tense says what someone habitually does or likes ("What does Melanie play?"). */
const HABITS: ReadonlySet<string> = new Set([
  ...'like love enjoy adore prefer value hate dislike play read watch collect grow cook bake eat drink wear'.split(' '),
  ...'drive own practice practise teach study write paint draw speak visit follow support'.split(' '),
  'listen to',
  'volunteer at',
]);
/** Verbs whose progressive says what someone is working at ("What is Joanna writing?"). */
const UNDER_WAY: ReadonlySet<string> = new Set([
  ...'read write plan learn study build prepare organize organise cook bake knit paint draw research watch'.split(' '),
  ...'develop design practice practise host film record renovate'.split(' '),
  'work on',
  'train for',
  'listen to',
]);

/**
 * Whether a clause's "what" question asks a fact about the person. "What did I bake?" does; "What am I losing? →
 * touch", "What does John make? → progress", "What do I hit? → windy spot" and a bare gerund answer ("my main
 * concern is making sure …" → "making") do not. A present or progressive clause qualifies only with a verb that says
 * a habit, a liking or a piece of work under way.
 */
export function asksAFact(c: Clause): boolean {
  // "took part in Saturday": a day or month is when something was done, not what.
  if (truncatedGerund(c) || namesOnlyADate(c.object)) return false;
  const aspect = aspectOf(c);
  if (c.attribute || aspect === 'done') return true;
  return (aspect === 'present' ? HABITS : UNDER_WAY).has(verbKey(c));
}

/**
 * A bare -ing object with anything but the clause's end after it: "I love knitting by the fire" is not asked as
 * loving "knitting". "I love hiking." and "hiking and camping" are whole activities. The clear cases, where the
 * gerund's own object or particle follows ("picking out fresh herbs", "expressing myself"), are not read at all
 * (`cutShort`, clauses.ts); this keeps the doubtful rest out of "what" questions.
 */
function truncatedGerund(c: Clause): boolean {
  if (!/^\w+ing$/.test(c.object)) return false;
  const tokens = c.sentence.tokens;
  const k = tokens.findIndex((t) => t.start >= c.verb.end && t.text === c.object);
  const next = k < 0 ? undefined : tokens[k + 1];
  return next !== undefined && !['PUNCT', 'CCONJ', 'ADV', 'SCONJ'].includes(next.pos);
}

/**
 * Single-hop "What did Ana bake?" / "What does Melanie play?": the one thing the speaker said they did
 * (or do) with that verb.
 */
export function eventWhatQuestion(ctx: RuleContext, i: number, c: Clause): RuleCandidate | undefined {
  if (!asksAFact(c)) return undefined;
  const aspect = aspectOf(c);
  const verb = verbKey(c);
  const objects = distinctObjects(ctx.clauses().said(c.who, verb, aspect));
  if (objects.length !== 1) return undefined;
  const r = ctx.graph.records[i]!;
  return {
    type: 'single-hop',
    template: 'event-what',
    question: objectIsAPerson(ctx, c) ? askWhoQuestion(c) : ctx.userVoice ? whichQuestionOf(c) : whatQuestion(c),
    plan: plan(
      'single-hop',
      `${aspect === 'done' ? 'what happened' : 'what holds'}: ${statement(c)}`,
      c.object,
      'text',
      [fact(r, c.sentence, statement(c))],
      new Map([[r.id, `${c.who} says so`]]),
      ['lookup'],
    ),
  };
}

/**
 * Aggregation over sessions: "What did Melanie paint?" → "sunrise, lake" / "What does Melanie love?" → "live
 * music, camping trips": every distinct thing the speaker said they did (or like) with that verb, each record that
 * says one as evidence. Two to four things, from at least two records.
 */
export function eventListQuestion(ctx: RuleContext, c: Clause): RuleCandidate | undefined {
  if (c.attribute || !asksAFact(c)) return undefined;
  const aspect = aspectOf(c);
  const present = aspect === 'present';
  const verb = verbKey(c);
  const objects = distinctObjects(ctx.clauses().said(c.who, verb, aspect)).filter((s) => asksAFact(s.c));
  const evidence = listEvidence(ctx, objects);
  if (!evidence) return undefined;
  const { facts, contributions } = evidence;
  return {
    type: 'aggregation',
    template: present ? 'preferences' : 'event-list',
    // "What did I meet? → Neelam Singh, Mr. Ramesh" asks "who" when every one is a person.
    question: objects.every((o) => objectIsAPerson(ctx, o.c)) ? askWhoQuestion(c) : whatQuestion(c),
    plan: plan(
      'aggregation',
      present
        ? `everything ${c.who} says they ${verb}`
        : `everything ${c.who} says they ${aspect === 'done' ? 'did' : 'are doing'} (${verb})`,
      objects.map((s) => s.c.object).join(', '),
      'list',
      facts,
      contributions,
      ['lookup', 'union'],
    ),
  };
}

/**
 * The facts and per-record contributions of a list answer: two to MAX_LIST things, said in at least two records
 * (otherwise undefined: a list from one record is a single-hop question).
 */
function listEvidence(
  ctx: RuleContext,
  objects: ReturnType<typeof distinctObjects>,
): { facts: PlanFact[]; contributions: Map<string, string> } | undefined {
  if (objects.length < 2 || objects.length > MAX_LIST || new Set(objects.map((s) => s.i)).size < 2) return undefined;
  const facts: PlanFact[] = [];
  const contributions = new Map<string, string>();
  for (const s of objects) {
    const r = ctx.graph.records[s.i]!;
    facts.push(fact(r, s.c.sentence, statement(s.c)));
    contributions.set(r.id, `names ${s.c.object}${recordDate(r) ? ` (${recordDate(r)})` : ''}`);
  }
  return { facts, contributions };
}

/**
 * Aggregation over sessions by kind of activity: "Where has Caroline been?" → "LGBTQ support group, pride parade,
 * beach"; "What does Melanie enjoy?" → every thing said with any verb of the class, each record that says one as
 * evidence. Two to four things, from at least two records.
 */
export function classListQuestion(ctx: RuleContext, c: Clause): RuleCandidate | undefined {
  const cls = classOf(c);
  if (!cls) return undefined;
  const objects = distinctObjects(ctx.clauses().inClass(c.who, cls)).filter((s) => asksAFact(s.c));
  const evidence = listEvidence(ctx, objects);
  if (!evidence) return undefined;
  const { facts, contributions } = evidence;
  return {
    type: 'aggregation',
    template: `class-${cls.name}`,
    question: cls.ask(c.who),
    plan: plan(
      'aggregation',
      `everything ${c.who} says of this kind (${[...cls.verbs].slice(0, 4).join(', ')}…)`,
      objects.map((s) => s.c.object).join(', '),
      'list',
      facts,
      contributions,
      ['lookup', 'union'],
    ),
  };
}

/**
 * Aggregation over one month: "What did Melanie do in July 2023?" → "run a charity race, paint the lake sunrise":
 * every event the speaker says happened that month (the date its sentence gives, else the day it was said on),
 * each record as evidence. Two to four events, from at least two records.
 */
export function monthListQuestion(ctx: RuleContext, i: number, c: Clause): RuleCandidate | undefined {
  const own = eventDay(ctx, { i, c });
  if (!own || own.length < 7 || !eventPhrase(c)) return undefined;
  const month = own.slice(0, 7);
  const events = ctx
    .clauses()
    .all.filter(
      (s) => s.c.who === c.who && eventPhrase(s.c) && eventDay(ctx, s)?.startsWith(month) && (eventDay(ctx, s)?.length ?? 0) >= 7,
    );
  const seen = new Set<string>();
  const distinct = events.filter((s) => {
    const k = eventPhrase(s.c)!.base.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  if (distinct.length < 2 || distinct.length > MAX_LIST || new Set(distinct.map((s) => s.i)).size < 2) return undefined;
  const facts: PlanFact[] = [];
  const contributions = new Map<string, string>();
  for (const s of distinct) {
    const r = ctx.graph.records[s.i]!;
    facts.push(fact(r, s.c.sentence, `${statement(s.c)} (${eventDay(ctx, s)})`));
    contributions.set(r.id, `an event of ${monthOf(month)}`);
  }
  return {
    type: 'aggregation',
    template: 'month-events',
    question: `What did ${c.who} do in ${monthOf(month)}?`,
    plan: plan(
      'aggregation',
      `everything ${c.who} says they did in ${monthOf(month)}`,
      distinct.map((s) => eventPhrase(s.c)!.base).join(', '),
      'list',
      facts,
      contributions,
      ['lookup', 'union'],
    ),
  };
}

/**
 * Temporal "When did Melanie paint the lake sunrise?": the date the sentence gives for the event, relative phrases
 * ("yesterday", "last Saturday") resolved against the session's date. The speaker names that object with that
 * verb once in the history.
 */
export function eventWhenQuestion(ctx: RuleContext, i: number, c: Clause): RuleCandidate | undefined {
  if (aspectOf(c) !== 'done' || c.attribute) return undefined;
  const phrase = objectPhrase(c);
  if (!phrase) return undefined;
  const verb = verbKey(c);
  if (
    ctx
      .clauses()
      .said(c.who, verb)
      .filter((s) => s.c.head === c.head).length !== 1
  )
    return undefined;
  const r = ctx.graph.records[i]!;
  const date = clauseDate(r, c);
  if (!date) return undefined;
  return {
    type: 'temporal',
    template: 'event-when',
    question: `When did ${c.who} ${verb} ${phrase}?`,
    plan: plan(
      'temporal',
      `when ${c.who} ${verb} ${phrase}`,
      date,
      'date',
      [fact(r, c.sentence, `${statement(c)}, placed on ${date} (said on ${recordDate(r)})`)],
      new Map([[r.id, `says it and when, said on ${recordDate(r)}`]]),
      ['lookup', 'date-arithmetic'],
    ),
  };
}

/**
 * Temporal "When did I first cycle to the Maybachufer market?" / "When did I last …?": the speaker did the same
 * thing (verb and object head) on two or more days, and the answer is the earliest (or the latest) of those days.
 * People ask their memory for the first and the latest time (the RHELM development personas: "first" in 19 of 229
 * questions, "most recently" or "latest" in 9); the other days' records are the distractors that make it a question
 * about order, not a lookup. The evidence is the record of the asked day, which no other occurrence shares.
 */
export function ordinalWhenQuestion(ctx: RuleContext, i: number, c: Clause, rng: Rng): RuleCandidate | undefined {
  if (aspectOf(c) !== 'done' || c.attribute) return undefined;
  const verb = verbKey(c);
  const days = daysDone(ctx.graph.records, ctx.clauses(), c.who, verb, c.head);
  if (!days.some((d) => d.s.i === i && d.s.c === c) || new Set(days.map((d) => d.day)).size < 2) return undefined;
  const last = rng.next() < 0.5;
  const target = last ? days[days.length - 1]! : days[0]!;
  // The asked day must be this clause's, and no other occurrence may share it (one record answers it).
  if (target.s.i !== i || target.s.c !== c || days.filter((d) => d.day === target.day).length !== 1) return undefined;
  const phrase = objectPhrase(c);
  if (!phrase) return undefined;
  const r = ctx.graph.records[i]!;
  const word = last ? 'last' : 'first';
  const date = isoAsDate(target.day);
  return {
    type: 'temporal',
    template: last ? 'last-time' : 'first-time',
    question: `When did ${c.who} ${word} ${verb} ${phrase}?`,
    plan: plan(
      'temporal',
      `the ${last ? 'latest' : 'earliest'} of the ${days.length} days ${c.who} ${verb} ${c.head}`,
      date,
      'date',
      [fact(r, c.sentence, `${statement(c)}, placed on ${date} (said on ${recordDate(r)})`)],
      new Map([[r.id, `the ${word} time, ${date}; ${c.who} did it again on ${days.length - 1} other day(s)`]]),
      ['lookup', 'order-in-time'],
    ),
  };
}

/**
 * Every day `who` did `verb` to a thing with head `head`, earliest first (ties by place in the history), for the
 * occurrences the records date to the day: what the first-and-last-time family asks about and its blind reader reads.
 */
export function daysDone(
  records: readonly SourceRecord[],
  index: ClauseIndex,
  who: string,
  verb: string,
  head: string,
): Array<{ s: Stated; day: string }> {
  return index
    .said(who, verb)
    .filter((s) => s.c.head === head)
    .flatMap((s) => {
      const day = eventDayIn(records, s);
      return day && DAY.test(day) ? [{ s, day }] : [];
    })
    .sort((x, y) => (x.day < y.day ? -1 : x.day > y.day ? 1 : x.s.i - y.s.i));
}

const namedSpeakers = new WeakMap<RuleContext, string[]>();

/** The named speakers of turns, as the records write them. */
function turnSpeakers(ctx: RuleContext): string[] {
  let out = namedSpeakers.get(ctx);
  if (!out) {
    out = [...new Set(ctx.graph.records.filter((r) => r.kind === 'turn' && r.speaker).map((r) => whoAt(r, 0)!))].filter(
      (s) => s !== 'the user' && s !== 'the assistant',
    );
    namedSpeakers.set(ctx, out);
  }
  return out;
}

/**
 * Yes/no with a verified premise: "Did Caroline join a mentorship program?" → "Yes", the record that says so as
 * evidence. With `falsePremise`, the same event asked of another speaker who never mentions that thing: "Did
 * Melanie join a mentorship program?" → "No", marked as a false premise whose correction (Caroline did) is the
 * evidence.
 */
export function yesNoQuestion(ctx: RuleContext, i: number, c: Clause, rng: Rng, falsePremise: boolean): RuleCandidate | undefined {
  if (aspectOf(c) !== 'done' || c.attribute) return undefined;
  const phrase = objectPhrase(c);
  if (!phrase) return undefined;
  const verb = verbKey(c);
  const r = ctx.graph.records[i]!;
  const evidence = [fact(r, c.sentence, statement(c))];
  if (!falsePremise) {
    return {
      type: 'single-hop',
      template: 'yes-no',
      question: `Did ${c.who} ${verb} ${phrase}?`,
      plan: plan(
        'single-hop',
        `whether ${c.who} ${verb} ${phrase} (they say so)`,
        'Yes',
        'boolean',
        evidence,
        new Map([[r.id, `${c.who} says so`]]),
        ['lookup'],
      ),
    };
  }
  const headStem = stem(c.head);
  const mentions = ctx.postings.get(headStem) ?? [];
  // The other person must never mention the thing at all: "No" is then what the history says, not a guess.
  const others = turnSpeakers(ctx).filter(
    (x) =>
      x.toLowerCase() !== c.who.toLowerCase() &&
      !mentions.some((k) => whoAt(ctx.graph.records[k]!, 0) === x) &&
      !ctx
        .clauses()
        .said(x, verb)
        .some((s) => s.c.head === c.head),
  );
  if (!others.length) return undefined;
  const who = others[rng.int(others.length)]!;
  const p = plan(
    'false-premise',
    `whether ${who} ${verb} ${phrase}; it was ${c.who}`,
    'No',
    'boolean',
    evidence,
    new Map([[r.id, `${c.who}, not ${who}, says so`]]),
    ['lookup', 'negate'],
  );
  p.premise = { assumption: `${who} ${verb} ${phrase}`, correction: `${c.who} did, not ${who}: ${c.sentence.text}` };
  return { type: 'false-premise', template: 'yes-no-false-premise', question: `Did ${who} ${verb} ${phrase}?`, plan: p };
}

/** The clauses of a bundle's members, in the members' (shuffled) order. */
export function memberClauses(ctx: RuleContext, members: readonly number[], rng: Rng): Stated[] {
  return members.flatMap((i) => rng.shuffle(ctx.clauses().of(i)));
}

/** Whether date `a` is wholly before date `b`, compared at the coarser of their precisions ("2023-05" vs "2023-06-02"). */
export function before(a: string, b: string): boolean {
  const n = Math.min(a.length, b.length);
  return a.slice(0, n) < b.slice(0, n);
}

/**
 * "-ing" form of a verb lemma: "run" → "running", "forget" → "forgetting", "go to" → "going to" (en-inflectors, whose
 * rules and exception lists know the stressed final syllables a one-syllable rule misses: "forgeting", "admiting").
 */
export function gerund(verb: string): string {
  const [v, ...rest] = verb.split(' ');
  // "start sketching out": the -ing form is the second verb's ("before sketching out …", not "starting sketching").
  if (rest[0] && rest[0].length > 5 && rest[0].endsWith('ing')) return rest.join(' ');
  return [new Inflectors(v!).toGerund(), ...rest].join(' ');
}

/** A clause's event as a question names it, base form ("join a mentorship program") and -ing form. */
export function eventPhrase(c: Clause): { base: string; ing: string } | undefined {
  if (aspectOf(c) !== 'done' || c.attribute) return undefined;
  const phrase = objectPhrase(c);
  if (!phrase) return undefined;
  return { base: `${verbKey(c)} ${phrase}`, ing: `${gerund(verbKey(c))} ${phrase}` };
}

/** The day a record was said on. */
function dayOf(ctx: RuleContext, i: number): string | undefined {
  return recordDate(ctx.graph.records[i]!);
}

/** When a stated event happened: the date its sentence gives, else the day it was said on. */
export function eventDayIn(records: readonly SourceRecord[], s: Stated): string | undefined {
  return clauseIso(records[s.i]!, s.c) ?? recordDate(records[s.i]!);
}

function eventDay(ctx: RuleContext, s: Stated): string | undefined {
  return eventDayIn(ctx.graph.records, s);
}

const anchorMemo = new WeakMap<ClauseIndex, Map<string, readonly Stated[]>>();

/**
 * The speaker's "done" clauses whose event is named once (verb + object head) in the history. Memoised per clause
 * index: the temporal, multi-hop and description families ask it for every clause they try.
 */
export function anchors(ctx: RuleContext, who: string): readonly Stated[] {
  const index = ctx.clauses();
  let byWho = anchorMemo.get(index);
  if (!byWho) anchorMemo.set(index, (byWho = new Map()));
  let found = byWho.get(who);
  if (!found) {
    found = index.all.filter(
      (s) => s.c.who === who && eventPhrase(s.c) && index.said(who, verbKey(s.c)).filter((x) => x.c.head === s.c.head).length === 1,
    );
    byWho.set(who, found);
  }
  return found;
}

const latestMemo = new WeakMap<readonly Stated[], ReadonlyArray<{ a: Stated; aDay: string }>>();

/**
 * The speaker's {@link anchors} with their days, latest first; ties by place in the history, so the order does not
 * depend on the order they were found in. Memoised with the anchors: every multi-hop try walks them.
 */
function latestFirst(ctx: RuleContext, who: string): ReadonlyArray<{ a: Stated; aDay: string }> {
  const once = anchors(ctx, who);
  let dated = latestMemo.get(once);
  if (!dated) {
    const days = once.flatMap((a) => {
      const aDay = eventDay(ctx, a);
      return aDay ? [{ a, aDay }] : [];
    });
    days.sort((x, y) => (x.aDay === y.aDay ? y.a.i - x.a.i : x.aDay < y.aDay ? 1 : -1));
    latestMemo.set(once, (dated = days));
  }
  return dated;
}

/**
 * Multi-hop through time, two sessions: "What did Melanie paint after running the charity race?" The anchor event
 * (named once in the history) dates the first hop; the answer is the one thing the speaker says they did with the
 * asked verb in a later session. The verb has other objects earlier, so the anchor is needed. The anchor is the
 * latest that works: people date a thing by what came just before it, and one answer is asked once, not once per
 * earlier event (a random anchor asked "What did I leave after …? → Ridgecrest" seven times, with seven anchors).
 */
export function eventAfterQuestion(ctx: RuleContext, i: number, c: Clause): RuleCandidate | undefined {
  if (aspectOf(c) !== 'done' || c.attribute) return undefined;
  const verb = verbKey(c);
  const all = ctx.clauses().said(c.who, verb);
  if (distinctObjects(all).length < 2) return undefined;
  const day = eventDay(ctx, { i, c });
  if (!day) return undefined;
  for (const { a, aDay } of latestFirst(ctx, c.who)) {
    // Said in an earlier session, and happened before the asked event (dates compare at the coarser precision).
    if ((dayOf(ctx, a.i) ?? '') >= (dayOf(ctx, i) ?? '') || !before(aDay, day) || a.c.head === c.head) continue;
    const after = all.filter((s) => before(aDay, eventDay(ctx, s) ?? ''));
    if (after.length !== 1 || after[0]!.c !== c) continue;
    const earlier = all.filter((s) => before(eventDay(ctx, s) ?? '9999', aDay));
    if (!earlier.length) continue;
    const anchor = eventPhrase(a.c)!;
    const ra = ctx.graph.records[a.i]!;
    const rb = ctx.graph.records[i]!;
    return {
      type: 'multi-hop',
      template: 'event-after',
      question: `${objectIsAPerson(ctx, c) ? 'Who' : 'What'} did ${c.who} ${verb} after ${anchor.ing}?`,
      plan: plan(
        'multi-hop',
        `what ${c.who} ${verb} after ${anchor.ing} (${aDay})`,
        c.object,
        'text',
        [fact(ra, a.c.sentence, `${statement(a.c)} (${aDay})`), fact(rb, c.sentence, `${statement(c)} (${day})`)],
        new Map([
          [ra.id, `dates the anchor: ${aDay}`],
          [rb.id, `the one later ${verb}, ${day}`],
        ]),
        ['lookup', 'order-in-time', 'lookup'],
      ),
      askedRecord: rb.id,
    };
  }
  return undefined;
}

/**
 * Comparison over time: "Did Caroline join the mentorship program before visiting the LGBTQ center?" Two events of
 * one speaker, each named once, at different dates; the answer says whether the first named is the earlier. (A
 * "which first, A or B" form would put the answer in the question.)
 */
export function beforeQuestion(ctx: RuleContext, i: number, c: Clause, rng: Rng): RuleCandidate | undefined {
  const mine = eventPhrase(c);
  const day = eventDay(ctx, { i, c });
  if (!mine || !day || !anchors(ctx, c.who).some((s) => s.c === c)) return undefined;
  for (const o of rng.shuffle(anchors(ctx, c.who))) {
    const oDay = eventDay(ctx, o);
    if (!oDay || o.i === i || o.c.head === c.head || (!before(day, oDay) && !before(oDay, day))) continue;
    const other = eventPhrase(o.c)!;
    const yes = before(day, oDay);
    const r1 = ctx.graph.records[i]!;
    const r2 = ctx.graph.records[o.i]!;
    return {
      type: 'temporal',
      template: 'before',
      question: `Did ${c.who} ${mine.base} before ${other.ing}?`,
      plan: plan(
        'temporal',
        `whether ${c.who} did one event before another`,
        yes ? 'Yes' : 'No',
        'boolean',
        [fact(r1, c.sentence, `${statement(c)} (${day})`), fact(r2, o.c.sentence, `${statement(o.c)} (${oDay})`)],
        new Map([
          [r1.id, `dates the first event: ${day}`],
          [r2.id, `dates the second event: ${oDay}`],
        ]),
        ['lookup', 'lookup', 'order-in-time'],
      ),
    };
  }
  return undefined;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** Phrases that resolve to a day but mean a span ("last week" → seven days back): no count of days rests on them. */
const SPAN = /\b(?:weeks?|weekend|months?|few|couple|several|recently|lately|ago)\b/i;

/** The day a stated event happened on, when the record gives it to the day (see {@link SPAN}), else undefined. */
function exactDayIn(records: readonly SourceRecord[], s: Stated): string | undefined {
  const day = eventDayIn(records, s);
  return day && DAY.test(day) && !SPAN.test(s.c.sentence.text) ? day : undefined;
}

/**
 * Duration between two events of one speaker: "How many days after joining the mentorship program did Ana
 * paint the sunrise?" Both events are named once in the history and dated to the day (the session's date or a day
 * the sentence gives, such as "last Friday"), the anchor is the earlier one. It replaces, on conversations between
 * people, the count of days between two remarks: what people ask is how long lay between things someone did.
 */
export function daysAfterQuestion(ctx: RuleContext, i: number, c: Clause, rng: Rng): RuleCandidate | undefined {
  const mine = eventPhrase(c);
  const day = exactDayIn(ctx.graph.records, { i, c });
  if (!mine || !day || !anchors(ctx, c.who).some((s) => s.c === c)) return undefined;
  for (const a of rng.shuffle(anchors(ctx, c.who))) {
    const aDay = exactDayIn(ctx.graph.records, a);
    if (!aDay || a.i === i || a.c.head === c.head || !before(aDay, day)) continue;
    const anchor = eventPhrase(a.c)!;
    const days = daysBetween(aDay, day);
    const ra = ctx.graph.records[a.i]!;
    const rb = ctx.graph.records[i]!;
    return {
      type: 'temporal',
      template: 'days-after',
      question: `How many days after ${anchor.ing} did ${c.who} ${mine.base}?`,
      plan: plan(
        'temporal',
        `the days from one event of ${c.who}'s to a later one`,
        `${days} ${days === 1 ? 'day' : 'days'}`,
        'number',
        [fact(ra, a.c.sentence, `${statement(a.c)} (${aDay})`), fact(rb, c.sentence, `${statement(c)} (${day})`)],
        new Map([
          [ra.id, `dates the earlier event: ${aDay}`],
          [rb.id, `dates the later event: ${day}`],
        ]),
        ['lookup', 'lookup', 'date-arithmetic'],
      ),
    };
  }
  return undefined;
}

/**
 * The days-after reading of `question` over `records` ("How many days after A did X B?"): the answer and the
 * records of both events, or undefined when the question is not of this form or either event is not found once.
 */
export function readDaysAfter(
  question: string,
  records: readonly SourceRecord[],
  speakers: readonly string[],
): { answer: string; records: number[] } | undefined {
  const m = /^How many days after (.+) did (.+)\?$/.exec(question);
  if (!m) return undefined;
  const who = speakers.find((s) => m[2]!.startsWith(`${s} `));
  if (!who) return undefined;
  const later = m[2]!.slice(who.length + 1).toLowerCase();
  const mine = new ClauseIndex(records).all.filter((s) => s.c.who === who);
  const named = (text: string, form: 'base' | 'ing') => mine.filter((s) => eventPhrase(s.c)?.[form].toLowerCase() === text);
  const [a, b] = [named(m[1]!.toLowerCase(), 'ing'), named(later, 'base')];
  if (a.length !== 1 || b.length !== 1) return undefined;
  const [da, db] = [exactDayIn(records, a[0]!), exactDayIn(records, b[0]!)];
  if (!da || !db || !before(da, db)) return undefined;
  const days = daysBetween(da, db);
  return { answer: `${days} ${days === 1 ? 'day' : 'days'}`, records: [a[0]!.i, b[0]!.i] };
}
