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
import type { Rng } from '../rng.ts';
import type { Sentence } from './facts.ts';
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
 * conversation of that month (or quarter) with a turn naming it (three to eight), the first such turn of each as
 * evidence. Each cited record is one of the conversations counted, so each is needed.
 */
export function mentionCountQuestion(ctx: RuleContext, i: number, name: string): RuleCandidate | undefined {
  const counted = countedAround(ctx, i, name);
  if (!counted) return undefined;
  const { firstOf, period } = counted;
  const facts: PlanFact[] = [];
  const contributions = new Map<string, string>();
  if (!mentionFacts(ctx, name, firstOf, period, facts, contributions)) return undefined;
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

/** The conversations around turn `i`'s month naming `name` ({@link countWindow}), when `name` names someone or something. */
function countedAround(
  ctx: RuleContext,
  i: number,
  name: string,
): ({ topic: string[] } & NonNullable<ReturnType<typeof countWindow>>) | undefined {
  const r = ctx.graph.records[i]!;
  const day = recordDate(r);
  if (r.kind !== 'turn' || !day || day.length < 7 || !namesSomeone(ctx, name)) return undefined;
  const topic = [...new Set(terms(name))];
  if (!topic.length) return undefined;
  const counted = countWindow(ctx, day.slice(0, 7), topic);
  return counted && { topic, ...counted };
}

/**
 * The conversations naming `topic` around `month`: that month's, or when it holds too few the quarter from it (within
 * the year), so a count spans the weeks a recurring thing takes to recur. Undefined outside three to eight.
 */
function countWindow(
  ctx: RuleContext,
  month: string,
  topic: readonly string[],
): { window: string[]; firstOf: Map<string, number>; period: string } | undefined {
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
  return { window, firstOf, period };
}

/** One fact per conversation in `firstOf`: the sentence of its first turn naming `name`. False when one cannot be placed. */
function mentionFacts(
  ctx: RuleContext,
  name: string,
  firstOf: ReadonlyMap<string, number>,
  period: string,
  facts: PlanFact[],
  contributions: Map<string, string>,
): boolean {
  for (const k of firstOf.values()) {
    const x = ctx.graph.records[k]!;
    // The sentence naming it when the fact extractor found it there; else the name itself.
    const { sentence, at } = naming(ctx, k, name);
    const span = sentence ?? (at >= 0 ? { start: at, end: at + name.length } : undefined);
    if (!span) return false;
    facts.push(fact(x, span, `${name} comes up in the conversation of ${recordDate(x)}`));
    contributions.set(x.id, `one conversation ${period} naming ${name} (${recordDate(x)})`);
  }
  return true;
}

/** Most records a comparison may cite: both sides' conversations together. */
const MAX_COMPARED = 10;
/**
 * How many more conversations the answer must name than the other option: a one-conversation lead is a coin toss
 * for whoever reads only part of them.
 */
const COMPARE_MARGIN = 2;

/**
 * "Which came up in more conversations in February 2024, Tiergarten or The Net Delusion?" → the one named in more
 * of that period's conversations, the first turn of each conversation naming either as evidence (four to ten
 * records). Real questions about a long history ask which person, place or thing figured most in a period ("which
 * site featured most frequently in my walking routines in January?"), and need every occasion of both to be
 * answered; the other option is another named thing of the same period, named in at least one conversation and at
 * least two fewer. The options are in a seeded order, so the answer is not always the first.
 */
export function mentionCompareQuestion(ctx: RuleContext, i: number, name: string, rng: Rng): RuleCandidate | undefined {
  const counted = countedAround(ctx, i, name);
  if (!counted) return undefined;
  const { topic, window, firstOf, period } = counted;
  const own = new Set(topic);
  const rivals = namedIn(ctx, window).filter(
    (x) =>
      !x.words.some((w) => own.has(w)) &&
      x.firstOf.size >= 1 &&
      x.firstOf.size <= firstOf.size - COMPARE_MARGIN &&
      x.firstOf.size + firstOf.size <= MAX_COMPARED,
  );
  // The rival most like the name in what is said around it ("lens", "shutter" around Canon EOS and Nikon): two
  // things of a kind are what one compares, not a camera and a vitamin. Only specific words count as shared (in at
  // most a twentieth of the records): in a long history "feel" and "work" are said around everything.
  const specific = Math.max(3, ctx.graph.records.length * SPECIFIC_DF);
  const around = new Set([...contextTerms(ctx, window, name, firstOf)].filter((t) => (ctx.postings.get(t)?.length ?? 0) <= specific));
  let best = 0;
  let rival: (typeof rivals)[0] | undefined;
  for (const x of rng.shuffle(rivals)) {
    const theirs = contextTerms(ctx, window, x.name, x.firstOf);
    let shared = 0;
    for (const t of theirs) if (around.has(t)) shared++;
    const sim = shared / Math.sqrt(Math.max(1, around.size * theirs.size));
    if (shared >= MIN_SHARED_CONTEXT && sim > best) {
      best = sim;
      rival = x;
    }
  }
  if (!rival) return undefined;
  const facts: PlanFact[] = [];
  const contributions = new Map<string, string>();
  if (!mentionFacts(ctx, name, firstOf, period, facts, contributions)) return undefined;
  if (!mentionFacts(ctx, rival.name, rival.firstOf, period, facts, contributions)) return undefined;
  // A conversation naming both is one record cited for both: its contribution says so.
  for (const [thread, k] of rival.firstOf) {
    if (firstOf.get(thread) === k) contributions.set(ctx.graph.records[k]!.id, `one conversation ${period} naming both`);
  }
  const options = rng.next() < 0.5 ? [name, rival.name] : [rival.name, name];
  return {
    type: 'aggregation',
    template: 'mention-compare',
    question: `Which came up in more conversations ${period}, ${options[0]} or ${options[1]}?`,
    plan: plan(
      'aggregation',
      `which of ${name} and ${rival.name} more conversations ${period} name (${firstOf.size} against ${rival.firstOf.size})`,
      name,
      'text',
      facts,
      contributions,
      ['lookup', 'count', 'compare'],
    ),
  };
}

/** Context words two compared names must share (see {@link mentionCompareQuestion}). */
const MIN_SHARED_CONTEXT = 2;
/** The largest share of a history's records a context word may occur in and still say what kind a name is. */
const SPECIFIC_DF = 0.05;

/** A named thing of a period with the conversations naming it ({@link firstTurns}). */
interface Named {
  name: string;
  words: string[];
  firstOf: Map<string, number>;
}

const namedCache = new WeakMap<RuleContext, Map<string, Named[]>>();

/**
 * The named things of a period's turns, first mention first, each with the conversations naming it: the candidates
 * for the other option of a comparison. Memoised per period, as every name asked about in it draws on the same list.
 */
function namedIn(ctx: RuleContext, window: readonly string[]): Named[] {
  let byWindow = namedCache.get(ctx);
  if (!byWindow) namedCache.set(ctx, (byWindow = new Map()));
  const key = window.join(' ');
  let out = byWindow.get(key);
  if (out) return out;
  out = [];
  const seen = new Set<string>();
  for (const month of window) {
    for (const { k } of turnsByMonth(ctx).get(month) ?? []) {
      for (const f of ctx.facts(k)) {
        if (f.kind !== 'entity' || seen.has(f.value.toLowerCase())) continue;
        seen.add(f.value.toLowerCase());
        const words = [...new Set(terms(f.value))];
        if (words.length && namesSomeone(ctx, f.value)) out.push({ name: f.value, words, firstOf: firstTurns(ctx, window, words) });
      }
    }
  }
  byWindow.set(key, out);
  return out;
}

/**
 * Where record `k` names `name`: the sentence the fact extractor found it in, and the name's offset in the text
 * (-1 when the words are split by punctuation, which the reader's word match ignores).
 */
function naming(ctx: RuleContext, k: number, name: string): { sentence?: Sentence; at: number } {
  const lower = name.toLowerCase();
  const f = ctx.facts(k).find((y) => y.kind === 'entity' && y.value.toLowerCase() === lower);
  return { sentence: f?.sentence, at: ctx.graph.records[k]!.text.toLowerCase().indexOf(lower) };
}

const contextCache = new WeakMap<RuleContext, Map<string, Set<string>>>();

/**
 * The content words (stemmed) of the sentences naming `name` in its counted conversations of `window`, its own
 * words left out. Memoised per period and name: a name is compared with others many times.
 */
function contextTerms(ctx: RuleContext, window: readonly string[], name: string, firstOf: ReadonlyMap<string, number>): Set<string> {
  let byKey = contextCache.get(ctx);
  if (!byKey) contextCache.set(ctx, (byKey = new Map()));
  const key = `${window.join(' ')}\u0000${name.toLowerCase()}`;
  let out = byKey.get(key);
  if (out) return out;
  const own = new Set(terms(name));
  const length = name.toLowerCase().length;
  out = new Set<string>();
  for (const k of firstOf.values()) {
    const { sentence, at } = naming(ctx, k, name);
    const text = ctx.graph.records[k]!.text;
    const around = sentence ? sentence.text : at >= 0 ? text.slice(Math.max(0, at - 120), at + length + 120) : '';
    for (const t of terms(around)) if (!own.has(t)) out.add(t);
  }
  byKey.set(key, out);
  return out;
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
