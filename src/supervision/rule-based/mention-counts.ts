/**
 * Counts over sessions with their evidence: "In how many conversations in May 2024 did Frau Lehmann come up?" → 3,
 * one record of each of those conversations as evidence. Real questions about a long personal history often ask
 * how often someone or something figured in a period ("how many times did I see my landlord in May?"), and
 * they need one record per occasion; a generator whose items cite one record mostly under-rates designs that
 * gather evidence from several sessions. Only named things (people, places, products) are counted, never common
 * words: how often a word came up is a fact about the transcript, not about the person.
 */
import { terms } from '../../text/text.ts';
import { recordDate } from '../bundles.ts';
import type { PlanFact } from '../plan.ts';
import { monthOf } from './phrases.ts';
import type { RuleContext } from './rule-context.ts';
import { fact, plan, type RuleCandidate } from './templates.ts';

/**
 * Fewest and most conversations a count answer may have: two is a two-session question the other families ask
 * already, a long census is not what people ask.
 */
const MIN_SESSIONS = 3;
const MAX_SESSIONS = 8;

/** Conversations (threads of turns) up to which a history counts as short; see {@link multiEvidenceShare}. */
const SHORT_HISTORY = 35;
/** Conversations from which the multi-evidence share is at its top. */
const LONG_HISTORY = 50;
/** The top share (of single-hop and temporal requests first tried as a count). */
const MAX_SHARE = 0.7;

const sessionCache = new WeakMap<RuleContext, number>();

/** How many conversations (threads of turns) the history holds. */
export function sessionCount(ctx: RuleContext): number {
  let n = sessionCache.get(ctx);
  if (n !== undefined) return n;
  const threads = new Set<string>();
  ctx.graph.records.forEach((r, i) => {
    if (r.kind === 'turn') threads.add(ctx.graph.threadOf[i] ?? r.id);
  });
  n = threads.size;
  sessionCache.set(ctx, n);
  return n;
}

/**
 * How often a single-hop or temporal request is first tried as a count over sessions (and whether aggregation
 * falls back to counts at all). It rises with how many conversations the history holds: a long history returns to
 * the same people and things month after month, so what one asks of it needs several records (RHELM's development
 * personas: 53 and 65 conversations, official questions citing 2.6 records on average, 38% three or more), while
 * a short one (LoCoMo's development conversations: 19 sessions each, 1.3 records, 5% three or more) is asked mostly
 * single-record questions. Calibrated on the development histories only. How many a set keeps is bounded by the
 * mention group's cap (fill-caps.ts).
 */
export function multiEvidenceShare(ctx: RuleContext): number {
  const n = sessionCount(ctx);
  return Math.max(0, Math.min(1, (n - SHORT_HISTORY) / (LONG_HISTORY - SHORT_HISTORY))) * MAX_SHARE;
}

/** A history's dated turns by month, each with its words (title and text, stemmed, as the blind reader reads them). */
type MonthIndex = Map<string, Array<{ k: number; words: Set<string> }>>;
const monthCache = new WeakMap<RuleContext, MonthIndex>();

function turnsByMonth(ctx: RuleContext): MonthIndex {
  let m = monthCache.get(ctx);
  if (m) return m;
  m = new Map();
  ctx.graph.records.forEach((r, k) => {
    const day = recordDate(r);
    if (r.kind !== 'turn' || !day || day.length < 7) return;
    const list = m!.get(day.slice(0, 7)) ?? [];
    list.push({ k, words: new Set(terms(`${r.title ?? ''} ${r.text}`)) });
    m!.set(day.slice(0, 7), list);
  });
  monthCache.set(ctx, m);
  return m;
}

/**
 * "In how many conversations in <month> did <name> come up?": the named thing of an entity fact in turn `i`, every
 * conversation of that month (or quarter) with a turn naming it (three to eight), the first such turn of each as evidence. Each
 * cited record is one of the conversations counted, so each is needed.
 */
export function mentionCountQuestion(ctx: RuleContext, i: number, name: string): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const day = recordDate(r);
  if (r.kind !== 'turn' || !day || day.length < 7 || !namesSomeone(ctx, name)) return undefined;
  const lower = name.toLowerCase();
  const topic = [...new Set(terms(name))];
  if (!topic.length) return undefined;
  // The month it was said in; when that month holds too few such conversations, the quarter from it
  // (within the year), so a count spans the weeks a recurring thing takes to recur.
  const month = day.slice(0, 7);
  let window = [month];
  let firstOf = firstTurns(ctx, window, topic);
  const m = Number(month.slice(5, 7));
  if (firstOf.size < MIN_SESSIONS && m <= 10) {
    const quarter = [0, 1, 2].map((d) => `${month.slice(0, 4)}-${String(m + d).padStart(2, '0')}`);
    const wider = firstTurns(ctx, quarter, topic);
    if (wider.size >= MIN_SESSIONS && wider.size <= MAX_SESSIONS) {
      window = quarter;
      firstOf = wider;
    }
  }
  if (firstOf.size < MIN_SESSIONS || firstOf.size > MAX_SESSIONS) return undefined;
  const period =
    window.length === 1 ? `in ${monthOf(month)}` : `between ${monthOf(window[0]!).split(' ')[0]} and ${monthOf(window.at(-1)!)}`;
  const facts: PlanFact[] = [];
  const contributions = new Map<string, string>();
  for (const k of firstOf.values()) {
    const x = ctx.graph.records[k]!;
    const at = x.text.toLowerCase().indexOf(lower);
    const f = ctx.facts(k).find((y) => y.kind === 'entity' && y.value.toLowerCase() === lower);
    // The sentence naming it when the fact extractor found it there; else the name itself (its words may be split
    // by punctuation, which the reader's word match ignores).
    const span = f ? f.sentence : at >= 0 ? { start: at, end: at + name.length } : undefined;
    if (!span) return undefined;
    facts.push(fact(x, span, `${name} comes up in the conversation of ${recordDate(x)}`));
    contributions.set(x.id, `one conversation ${period} naming ${name} (${recordDate(x)})`);
  }
  return {
    type: 'aggregation',
    template: 'mention-count',
    question: `In how many conversations ${period} did ${name} come up?`,
    plan: plan('aggregation', `how many conversations ${period} name ${name}`, String(firstOf.size), 'number', facts, contributions, [
      'lookup',
      'count',
    ]),
  };
}

/** The first turn naming the topic of each conversation dated in one of `months`, by conversation. */
function firstTurns(ctx: RuleContext, months: readonly string[], topic: readonly string[]): Map<string, number> {
  const firstOf = new Map<string, number>();
  for (const month of months) {
    for (const { k, words } of turnsByMonth(ctx).get(month) ?? []) {
      const thread = ctx.graph.threadOf[k] ?? ctx.graph.records[k]!.id;
      if (!firstOf.has(thread) && topic.every((t) => words.has(t))) firstOf.set(thread, k);
    }
  }
  return firstOf;
}

const MONTH_WORD = new RegExp(
  '^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|' +
    'october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\\.?$',
  'i',
);

/**
 * Whether a name names someone or something one deals with (a person, a place, a book, a product), not a speaker
 * (their names come up in every conversation they have), a month or weekday, an acronym ("USB", "NGOs") or a
 * word the history also uses as a modifier ("German", "European").
 */
export function namesSomeone(ctx: RuleContext, name: string): boolean {
  const lower = name.toLowerCase();
  if (ctx.speakers.has(lower) || lower.split(/\s+/).some((w) => ctx.speakers.has(w))) return false;
  const words = name.split(/\s+/);
  if (words.some((w) => MONTH_WORD.test(w))) return false;
  if (words.length === 1) {
    if (/^[A-Z0-9-]{2,6}s?$/.test(name)) return false;
    // A nationality or language ("German", "Ethiopian") is never a phrase's head; a person named so ("Damian") is.
    if (/(?:an|ish|ese)$/.test(lower) && ctx.nounUsage(lower) !== 'head') return false;
  }
  return true;
}

/** The named things of a bundle's turns, in the members' (shuffled) order: what a count question may ask about. */
export function memberNames(ctx: RuleContext, members: readonly number[]): Array<{ i: number; name: string }> {
  const out: Array<{ i: number; name: string }> = [];
  for (const i of members) {
    if (ctx.graph.records[i]!.kind !== 'turn') continue;
    for (const f of ctx.facts(i)) if (f.kind === 'entity') out.push({ i, name: f.value });
  }
  return out;
}
