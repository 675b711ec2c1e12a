/**
 * A false premise in a user's own history: the person they did something with, swapped for someone else they do
 * things with. The user says "This evening I played an online chess match with Justice Banerjee"; the question asks
 * "Can you remind me whether I played an online chess match with Rohan on 31 August 2024?" and the answer is "No",
 * corrected by the user's own sentence. People ask their assistant this way (a request to be reminded, built on a
 * wrong detail); a user-voice history has no second speaker to swap, so the companion is what gets swapped.
 *
 * "No" must be what the history says, not a guess: the question names the day the sentence places the event on, and
 * nothing of that day (its conversation, any record dated then) names the other person.
 */
import type { SourceRecord } from '../../../sandbox/contract.ts';
import { escapeRegExp } from '../../text/text.ts';
import { recordDate } from '../bundles.ts';
import type { Rng } from '../rng.ts';
import { isoAsDate, sentenceIso } from './clause-index.ts';
import { analyse, type NlpSentence, type NlpToken, sentenceAt } from './nlp.ts';
import type { RuleContext } from './rule-context.ts';
import { isPerson } from './people.ts';
import { nameWords, roleRange, TITLES } from './speakers.ts';
import { fact, plan, type RuleCandidate } from './templates.ts';

const USER = 'the user';
/** Words that start another clause: a "with" past them belongs to something else. */
const CLAUSE_BREAK = new Set('and but because while when after before so since until where who which that or to'.split(' '));
const NAME_WORD = /^\p{Lu}[\p{L}'’-]*$/u;
const MAX_NAME_WORDS = 3;
/** A sentence that says it happened on the day it was written ("this evening" too: a user's day ends late). */
const TODAY = /\b(?:just|today|this morning|this afternoon|this evening|tonight|right now)\b/i;
/** Words that place an event in time: the question gives the day instead ("had lunch today with …"). */
const TIME_WORDS = new Set('today tonight yesterday earlier morning afternoon evening night week weekend now'.split(' '));
/** Verbs of a state of mind, not of something done with someone ("I thought a walk …", "I felt a sense of calm …"). */
const MENTAL = new Set('think feel expect hope wish want need know realize realise wonder guess believe mean seem worry'.split(' '));
/** An event longer than this many words before its "with" is more than one thing. */
const MAX_EVENT_WORDS = 8;
/** Adverbs allowed between "I" and the verb ("I just had", "I finally caught up"). */
const MAX_ADVERBS = 2;

/** Something the user says they did with someone, on a day the sentence gives. */
export interface CompanionEvent {
  /** From the verb to "with", as the user said it: "played an online chess match", "had lunch at Café Einstein". */
  event: string;
  /**
   * The event as someone recalls it weeks later, without its modifiers: "played a match", "had lunch at Café
   * Einstein", "hopped on a call". Questions ask with this; people do not quote their own adjectives back.
   */
  gist: string;
  /** The companion as named ("Justice Banerjee"), and where in the record's text. */
  name: string;
  start: number;
  end: number;
  sentence: NlpSentence;
  /** The day it happened (ISO). */
  iso: string;
}

/**
 * "This evening I played chess with Rohan." → played chess, Rohan, that day: the user's past-tense sentence with a
 * name after "with", the event before it a few words long with no other clause in between, and a day to place it
 * on. Read from the user's half of a turn; nothing from the assistant's.
 */
export function companionEvents(r: SourceRecord): readonly CompanionEvent[] {
  let out = eventsMemo.get(r);
  if (!out) eventsMemo.set(r, (out = readEvents(r)));
  return out;
}

// The generator reads every record once and the blind reader reads the same records again per question.
const eventsMemo = new WeakMap<SourceRecord, CompanionEvent[]>();

function readEvents(r: SourceRecord): CompanionEvent[] {
  if (r.kind !== 'turn') return [];
  const [from, to] = roleRange(r, USER);
  const own = r.text.slice(from, to);
  if (!/\bwith \p{Lu}/u.test(own)) return [];
  const out: CompanionEvent[] = [];
  for (const sentence of analyse(own, from)) {
    const toks = sentence.tokens;
    for (let k = 0; k < toks.length; k++) {
      if (toks[k]!.text !== 'I') continue;
      const found = eventAfter(toks, k + 1, r.text);
      if (!found) continue;
      const iso = sentenceIso(r, sentence, TODAY);
      if (iso?.length === 10) out.push({ ...found, sentence, iso });
    }
  }
  return out;
}

/** The past-tense event that starts at token `k` (after "I") and its companion, or undefined. */
function eventAfter(toks: readonly NlpToken[], k: number, text: string): Omit<CompanionEvent, 'sentence' | 'iso'> | undefined {
  let v = k;
  while (v < k + MAX_ADVERBS && toks[v]?.pos === 'ADV') v++;
  const verb = toks[v];
  if (!verb || !pastEvent(toks, v)) return undefined;
  for (let w = v + 1; w < toks.length && w <= v + MAX_EVENT_WORDS; w++) {
    const t = toks[w]!;
    const word = t.text.toLowerCase();
    if (t.pos === 'PUNCT' || CLAUSE_BREAK.has(word) || (t.pos === 'PRON' && word === 'i') || TIME_WORDS.has(word)) return undefined;
    if (word !== 'with') continue;
    // "I went with Rohan": the event must say what was done, not only that something was.
    if (w === v + 1) return undefined;
    const n = nameAt(toks, w + 1, text);
    return n && { ...n, event: text.slice(verb.start, toks[w - 1]!.end), gist: gistOf(toks.slice(v, w)) };
  }
  return undefined;
}

/**
 * An event's words without adjectives, adverbs past its verb's particle, or nouns that only modify the next noun
 * ("a rather productive Zoom call" → "a call"); names stay, and "a"/"an" follows the word after it.
 */
function gistOf(toks: readonly NlpToken[]): string {
  const kept = toks.filter((t, k) => {
    if (k === 0) return true;
    // "finished clarifying roles": an -ing word right after the verb is what was done, not a modifier.
    if (t.pos === 'ADJ') return k === 1 && /ing$/.test(t.text);
    if (t.pos === 'ADV') return k === 1 && toks[0]!.pos !== 'AUX';
    const next = toks[k + 1]?.pos;
    if (t.pos === 'NOUN' && !/ing$/.test(t.text) && (next === 'NOUN' || next === 'ADJ')) return false;
    return true;
  });
  // Without its last word the event is cut off ("felt a sense of"): it is kept as said.
  const words = (kept[kept.length - 1] === toks[toks.length - 1] ? kept : toks).map((t) => t.text);
  words[0] = words[0]!.toLowerCase();
  return words.map((w, k) => (/^(?:a|an)$/.test(w) && words[k + 1] ? (/^[aeiou]/i.test(words[k + 1]!) ? 'an' : 'a') : w)).join(' ');
}

/**
 * Whether token `v` is a verb in the past tense that says what the user did: "played", "met", "had lunch"; not an
 * auxiliary of another verb ("had just finished", "’ve been"), a present form or a participle.
 */
function pastEvent(toks: readonly NlpToken[], v: number): boolean {
  const verb = toks[v]!;
  const lower = verb.text.toLowerCase();
  if ((verb.pos !== 'VERB' && verb.pos !== 'AUX') || MENTAL.has(verb.lemma)) return false;
  if (verb.pos === 'AUX') {
    if (lower !== 'had') return false;
    let n = v + 1;
    while (toks[n]?.pos === 'ADV') n++;
    return toks[n] !== undefined && toks[n]!.pos !== 'VERB' && toks[n]!.pos !== 'AUX';
  }
  return lower !== verb.lemma && !/ing$/.test(lower) && !/^['’]/.test(lower) && !/s$/.test(lower.replace(/ss$/, ''));
}

/** The name that starts at token `j` ("Dr. Emil Weber", "Rohan"), every word a proper noun; undefined if none. */
function nameAt(toks: readonly NlpToken[], j: number, text: string): Pick<CompanionEvent, 'name' | 'start' | 'end'> | undefined {
  const words: NlpToken[] = [];
  if (toks[j] && TITLES.has(toks[j]!.text.toLowerCase())) words.push(toks[j++]!);
  while (toks[j] && NAME_WORD.test(toks[j]!.text) && !TITLES.has(toks[j]!.text.toLowerCase()) && words.length <= MAX_NAME_WORDS) {
    words.push(toks[j++]!);
  }
  const named = words.filter((w) => !TITLES.has(w.text.toLowerCase()));
  // "with Miguel’s camera" names a thing, not a companion.
  if (!named.length || named.some((w) => w.pos !== 'PROPN') || /^['’]/.test(toks[j]?.text ?? '')) return undefined;
  const start = words[0]!.start;
  const end = words[words.length - 1]!.end;
  return { name: text.slice(start, end), start, end };
}

const namePatterns = new Map<string, RegExp>();

/** Where a text first names the person (any of the name's own words, as a whole word), or -1. */
function nameIndex(text: string, name: string): number {
  let re = namePatterns.get(name);
  if (!re) {
    const words = nameWords(name).map(escapeRegExp).join('|');
    namePatterns.set(name, (re = new RegExp(`(?<![\\p{L}])(?:${words})(?![\\p{L}])`, 'iu')));
  }
  return text.search(re);
}

/** Whether a text names the person. */
function names(text: string, name: string): boolean {
  return nameIndex(text, name) >= 0;
}

/** What the family reads of a history once: companion events by record, companions who are people, records by day. */
interface Companions {
  people: string[];
  events: Map<number, readonly CompanionEvent[]>;
  byDay: Map<string, SourceRecord[]>;
}

const memo = new WeakMap<RuleContext, Companions>();

/** The companion events of every record, and everyone named as a companion who is a person, first mention first. */
function companionsOf(ctx: RuleContext): Companions {
  let out = memo.get(ctx);
  if (!out) {
    const events = new Map<number, readonly CompanionEvent[]>();
    const byDay = new Map<string, SourceRecord[]>();
    const people: string[] = [];
    const checked = new Set<string>();
    ctx.graph.records.forEach((r, i) => {
      const day = recordDate(r);
      if (day) {
        const same = byDay.get(day);
        if (same) same.push(r);
        else byDay.set(day, [r]);
      }
      const found = companionEvents(r);
      if (found.length) events.set(i, found);
      for (const e of found) {
        if (checked.has(e.name)) continue;
        checked.add(e.name);
        if (isPerson(ctx, e.name)) people.push(e.name);
      }
    });
    memo.set(ctx, (out = { people, events, byDay }));
  }
  return out;
}

/** Most records a companion premise cites: the event's own and the encounter's other turns. */
const MAX_ENCOUNTER_RECORDS = 4;

/**
 * The other records of the event's conversation, dated its day, that name the companion, nearest turns first: the
 * correction is the whole encounter, as a person asking would be told it. The people's own false-premise questions
 * on the development histories (RHELM Jonas Richter and Justice Mehra) cite 4 or more records in 15 of 37 cases,
 * every turn about the real meeting; a premise read off one sentence cited one. `records` are in history order; the
 * generator and the blind reader call this alike, so the reader cites what the item gives as evidence.
 */
function encounter(
  records: readonly SourceRecord[],
  event: SourceRecord,
  e: CompanionEvent,
): Array<{ record: SourceRecord; sentence: NlpSentence }> {
  const at = records.indexOf(event);
  const sameDay = records
    .map((record, k) => ({ record, distance: Math.abs(k - at) }))
    .filter(({ record: x }) => x !== event && x.thread === event.thread && recordDate(x) === e.iso)
    .sort((a, b) => a.distance - b.distance);
  const out: Array<{ record: SourceRecord; sentence: NlpSentence }> = [];
  for (const { record: x } of sameDay) {
    if (out.length >= MAX_ENCOUNTER_RECORDS - 1) break;
    const k = nameIndex(x.text, e.name);
    const found = k >= 0 ? sentenceAt(x.text, k) : undefined;
    if (found) out.push({ record: x, sentence: found.sentence });
  }
  return out;
}

/** A companion event of record `i` and someone else to swap in: who, the day, and what corrects the premise. */
interface Swap {
  e: CompanionEvent;
  who: string;
  day: string;
  facts: ReturnType<typeof fact>[];
  contributions: Map<string, string>;
}

/** A swap for record `i`, or undefined when it names no companion of a dated event or nobody else can be asked of it. */
function swapAt(ctx: RuleContext, i: number, rng: Rng): Swap | undefined {
  const { people, events, byDay } = companionsOf(ctx);
  const mine = events.get(i);
  if (!mine) return undefined;
  const e = mine[rng.int(mine.length)]!;
  if (!people.includes(e.name)) return undefined;
  const r = ctx.graph.records[i]!;
  const thread = ctx.graph.threads.get(ctx.graph.threadOf[i]!) ?? [i];
  const sameDay = byDay.get(e.iso) ?? [];
  const own = new Set(nameWords(e.name));
  const others = people.filter(
    (n) =>
      !nameWords(n).some((w) => own.has(w)) &&
      !thread.some((k) => names(ctx.graph.records[k]!.text, n)) &&
      !sameDay.some((x) => names(x.text, n)),
  );
  if (!others.length) return undefined;
  const who = others[rng.int(others.length)]!;
  const day = isoAsDate(e.iso);
  const facts = [fact(r, e.sentence, `on ${day} the user ${e.event} with ${e.name}`)];
  const contributions = new Map([[r.id, `the user did it with ${e.name}, not ${who}, on ${day}`]]);
  for (const x of encounter(
    thread.map((k) => ctx.graph.records[k]!),
    r,
    e,
  )) {
    facts.push(fact(x.record, x.sentence, `on ${day} the user's conversation names ${e.name}`));
    contributions.set(x.record.id, `what the user and ${e.name} did on ${day}`);
  }
  return { e, who, day, facts, contributions };
}

/**
 * "Can you remind me whether I played chess with Justice Banerjee on 10 March 2024?" → "No" (written about "the
 * user"; see voice.ts), when record `i` says the user played chess with someone else that day. Undefined when the
 * record names no companion of a dated event, or nobody else can be asked of it.
 */
export function companionPremiseQuestion(ctx: RuleContext, i: number, rng: Rng): RuleCandidate | undefined {
  const swap = swapAt(ctx, i, rng);
  if (!swap) return undefined;
  const { e, who, day } = swap;
  return premiseCandidate(swap, {
    template: 'companion-false-premise',
    question: `Can you remind me whether the user ${e.gist} with ${who} on ${day}?`,
    intent: `whether the user ${e.gist} with ${who} on ${day}; it was with ${e.name}`,
    answer: 'No',
    answerType: 'boolean',
  });
}

/** The candidate of a swap asked as `asked`: the plan cites the encounter and states the premise and its correction. */
function premiseCandidate(
  swap: Swap,
  asked: { template: string; question: string; intent: string; answer: string; answerType: 'boolean' | 'text' },
): RuleCandidate {
  const { e, who, day } = swap;
  const p = plan('false-premise', asked.intent, asked.answer, asked.answerType, swap.facts, swap.contributions, ['lookup', 'negate']);
  p.premise = { assumption: `the user ${e.gist} with ${who} on ${day}`, correction: `with ${e.name}, not ${who}: ${e.sentence.text}` };
  return { type: 'false-premise', template: asked.template, question: asked.question, plan: p };
}

/**
 * Gists a request for what was talked about cannot build on: an event that is itself talking about something ("when
 * we talked about the budget"), one that did not happen ("missed the call", "ended up canceling my session"), and one
 * said of the user alone ("found myself in a conversation" does not become "when we found myself …").
 */
const NOT_ASKED_WHAT = /^(?:talked|discussed|chatted|spoke|debated|went over)\b|\b(?:miss\w*|cancel\w*|skipp\w*|postpon\w*|myself)\b/;

/**
 * The same swap asked as a request that takes the premise for granted: "Can you remind me what Justice Banerjee and I
 * talked about when we played chess on 10 March 2024?" → "It was with Rohan." People ask their assistant this way far
 * more than as yes/no: on the development histories (RHELM Jonas Richter and Justice Mehra) 37 of 229 questions build
 * on a false detail and want the correction, 34 of them as a "what"/"which" question or a request.
 */
export function companionPremiseWhat(ctx: RuleContext, i: number, rng: Rng): RuleCandidate | undefined {
  const swap = swapAt(ctx, i, rng);
  if (!swap || NOT_ASKED_WHAT.test(swap.e.gist)) return undefined;
  const { e, who, day } = swap;
  return premiseCandidate(swap, {
    template: 'companion-premise-what',
    question: `Can you remind me what the user and ${who} talked about when they ${e.gist} on ${day}?`,
    intent: `what the user and ${who} talked about when they ${e.gist} on ${day}; it was with ${e.name}, not ${who}`,
    answer: premiseCorrection(e.name),
    answerType: 'text',
  });
}

/**
 * The answer to a premise that swapped someone in for `name`, as the generator and the blind reader both write it.
 * It names only who it was with, so the same event asked with another swap is the same item to the de-duplication.
 */
function premiseCorrection(name: string): string {
  return `It was with ${name}.`;
}

/** The day a companion premise names, as the generator writes it ("10 March 2024"). */
const ASKED_DAY = String.raw`(\d{1,2} \p{Lu}\p{Ll}+ \d{4})`;
const ASK_WHETHER = new RegExp(`^Can you remind me whether the user (.+) with (.+) on ${ASKED_DAY}\\?$`, 'u');
const ASK_WHAT = new RegExp(`^Can you remind me what the user and (.+) talked about when they (.+) on ${ASKED_DAY}\\?$`, 'u');

/**
 * Reads "Can you remind me whether the user played chess with Rohan on 10 March 2024?" from the given records:
 * "Yes" when the user says they did it that day in a sentence naming that person, "No" when they say they did it
 * with someone else; undefined when the question is not of this form or no record says the user did it that day.
 * Reads "Can you remind me what the user and Rohan talked about when they played chess on 10 March 2024?" alike:
 * the correction when the user did it that day with one other person only, and undefined when they did it with Rohan
 * (what they talked about is not this reader's to say).
 */
export function readCompanionPremise(
  question: string,
  records: readonly SourceRecord[],
): { answerable: true; answer: string; citations: string[] } | undefined {
  const whether = ASK_WHETHER.exec(question);
  const what = whether ? null : ASK_WHAT.exec(question);
  const m = whether ?? what;
  if (!m) return undefined;
  const [event, who, day] = whether ? [m[1]!.toLowerCase(), m[2]!, m[3]!] : [m[2]!.toLowerCase(), m[1]!, m[3]!];
  const said = records.flatMap((r) =>
    companionEvents(r)
      .filter((e) => e.gist.toLowerCase() === event && isoAsDate(e.iso) === day)
      .map((e) => ({ r, e })),
  );
  if (!said.length) return undefined;
  const yes = said.filter(({ e }) => names(e.sentence.text, who));
  if (yes.length) return what ? undefined : { answerable: true, answer: 'Yes', citations: [...new Set(yes.map(({ r }) => r.id))] };
  // "No", and what happened instead: the encounter the user did have that day.
  const citations = [...new Set(said.flatMap(({ r, e }) => [r.id, ...encounter(records, r, e).map((x) => x.record.id)]))];
  if (whether) return { answerable: true, answer: 'No', citations };
  // Anyone naming them that day might be what they talked about: the premise is not known to be false.
  if (records.some((r) => recordDate(r) === said[0]!.e.iso && names(r.text, who))) return undefined;
  const with_ = [...new Set(said.map(({ e }) => e.name))];
  return with_.length === 1 ? { answerable: true, answer: premiseCorrection(with_[0]!), citations } : undefined;
}
