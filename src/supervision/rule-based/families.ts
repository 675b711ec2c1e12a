/**
 * Question families people ask of a personal memory, read from first-person clauses ("I painted a sunrise"):
 * what someone did, everything they did or like across sessions, when something happened (relative dates
 * resolved against the session's date), and yes/no questions whose premise is verified or false. Answers and
 * evidence are computed from the clauses, never guessed.
 */
import { stem } from '../../text/text.ts';
import { recordDate } from '../bundles.ts';
import type { PlanFact } from '../plan.ts';
import type { Rng } from '../rng.ts';
import { clauseDate, distinctObjects, type Said, verbKey } from './clause-index.ts';
import type { Clause } from './clauses.ts';
import type { RuleContext } from './rule-context.ts';
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
  return `${c.who} ${c.verb.text}${c.prep ? ` ${c.prep}` : ''} ${c.object}`;
}

/** Single-hop "What did Caroline research?": the one thing the speaker said they did with that verb. */
export function eventWhatQuestion(ctx: RuleContext, i: number, c: Clause): RuleCandidate | undefined {
  if (c.tense === 'present') return undefined;
  const verb = verbKey(c);
  const objects = distinctObjects(ctx.clauses().said(c.who, verb));
  if (objects.length !== 1) return undefined;
  const r = ctx.graph.records[i]!;
  return {
    type: 'single-hop',
    template: 'event-what',
    question: `What did ${c.who} ${verb}?`,
    plan: plan(
      'single-hop',
      `what ${c.who} said they did (${verb})`,
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
  const present = c.tense === 'present';
  const verb = verbKey(c);
  const objects = distinctObjects(ctx.clauses().said(c.who, verb, present));
  if (objects.length < 2 || objects.length > MAX_LIST || new Set(objects.map((s) => s.i)).size < 2) return undefined;
  const facts: PlanFact[] = [];
  const contributions = new Map<string, string>();
  for (const s of objects) {
    const r = ctx.graph.records[s.i]!;
    facts.push(fact(r, s.c.sentence, statement(s.c)));
    contributions.set(r.id, `names ${s.c.object}${recordDate(r) ? ` (${recordDate(r)})` : ''}`);
  }
  return {
    type: 'aggregation',
    template: present ? 'preferences' : 'event-list',
    question: present ? `What does ${c.who} ${verb}?` : `What did ${c.who} ${verb}?`,
    plan: plan(
      'aggregation',
      present ? `everything ${c.who} says they ${verb}` : `everything ${c.who} says they did (${verb}), across sessions`,
      objects.map((s) => s.c.object).join(', '),
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
  if (c.tense === 'present') return undefined;
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
  if (c.tense === 'present') return undefined;
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
export function memberClauses(ctx: RuleContext, members: readonly number[], rng: Rng): Said[] {
  return members.flatMap((i) => rng.shuffle(ctx.clauses().of(i)));
}
