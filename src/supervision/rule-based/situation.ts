import type { AnswerType } from '../../history/record.ts';
import type { BlindReader } from '../blind-recovery.ts';
import type { RecordGraph } from '../record-graph.ts';
import type { Rng } from '../rng.ts';
import { daysBetween, MONTH_NAMES } from '../../text/date-parse.ts';
import { resolveDates } from '../../text/resolve-dates.ts';
import { recordDate } from '../bundles.ts';
import { contentStems } from '../calibration.ts';
import { aspectOf } from './clause-index.ts';
import { anchors, eventDayIn } from './families.ts';
import type { Clause } from './clauses.ts';
import type { RuleContext } from './rule-context.ts';
import { thingWord } from './contextual.ts';
import { isTopicWord, recordsWithAll } from './cues.ts';
import { endsOnNoun, maxPhraseDf, namesADate } from './gist.ts';
import { nounPhrases } from './phrases.ts';
import { roleRange } from './speakers.ts';
import { inUserVoice } from './voice.ts';

/** Version of the situating step: part of what made the items (and of the resume journal's run key). */
export const SITUATION = 'situation@4';

/**
 * Share of the eligible questions of a user–assistant history placed in their day: all of them. On the RHELM
 * development personas their own questions have 13.6 content words of which 41% are in the evidence, the templated
 * ones 6 and two thirds; placing every eligible one (a third of a set) still leaves them shorter and closer to
 * their evidence, 6.6 words and 56% (bench/results/2026-12-03-situated-days).
 */
export const SITUATION_SHARE = 1;

/**
 * Share of the questions naming their date whose date is replaced by a situation (the rest keep it, the situation
 * beside it). Calibrated on the RHELM development personas, whose own questions name a month or date 34.9% of the
 * time: replacing every date took the generated share from 42% to 29% (bench/results/2026-12-03-situated-days); at
 * `rule-based@17`, which asks fewer undated two-hop questions, 0.5 gives 38.8%, 0.65 36.9% and 0.8 34.5% (seed 1,
 * bench/results/2026-12-03-situated-more).
 */
export const IN_PLACE_SHARE = 0.8;

/** How a question names its day by something else the user did (one drawn per question). */
const LEADS = [', the same day I ', ', the day I also ', ', on the day I '] as const;
/** How a situation takes the place of the date a question named ("… on 27 July 2024" → "… on the day I …"). */
const IN_PLACE = [' on the day I ', ' the same day I '] as const;
const MONTHS = MONTH_NAMES.join('|');
/** The one date phrase a templated question names its time with: "on 27 July 2024", "in August 2024". */
const DATE_PHRASE = new RegExp(` (?:on \\d{1,2} (?:${MONTHS}) \\d{4}|in (?:${MONTHS}) \\d{4})(?=[ ,?])`, 'g');
/**
 * How a question whose answer is a day is placed by another day: two days apart at least (an event told "yesterday"
 * is dated a day off), within a month (people place a day by what was near it, not by last year's keynote).
 */
const near = (a: string, b: string) => {
  const apart = Math.abs(daysBetween(a, b));
  return apart >= 2 && apart <= 31;
};
const BEFORE = [', before I ', ', some time before I '] as const;
const AFTER = [', after I ', ', some time after I '] as const;
/**
 * The same places, by what the user and the assistant talked about that day ("…, the day we talked about the
 * dust-mitigation checklist?"), as RHELM's own questions often do ("after our midday discussion about vocational
 * outreach strategies").
 */
const TOPIC = {
  leads: [', the same day we ', ', on the day we ', ', the day we '],
  inPlace: [' on the day we ', ' the same day we '],
  before: [', before we ', ', some time before we '],
  after: [', after we ', ', some time after we '],
} as const;
const TALKED = ['talked about', 'discussed'] as const;
const EVENT = { leads: LEADS, inPlace: IN_PLACE, before: BEFORE, after: AFTER } as const;
/** Words that name no topic of their own ("the first hints", "the sheer number", "the money goes"). */
const VAGUE_TOPIC = new Set(
  [
    'first last next sheer usual whole main other same recent overall general specific particular certain various',
    'number half part goes bit point idea sense moment kind sort type question thought thoughts issue approach',
  ]
    .join(' ')
    .split(' '),
);
/** Questions that ask for a day: "When did I …?", "On which day (in May 2024) did you talk about …?". */
const ASKS_DAY = new RegExp(`^(?:When|On which day(?: in (?:${MONTHS}) \\d{4})?) did `);
/** The month a question asking for a day may name (it narrows the day; a situation near the day still adds). */
const MONTH_PHRASE = new RegExp(`^ in (?:${MONTHS}) \\d{4}$`);
/** Question forms a situation may follow: lookups, not yes/no (it would join a second claim) or a choice. */
const SITUABLE = /^(?:What|Which|Who|Where|How|After|Right before)\b/;
/** Any other time a question names ("in 2024", "2024-05-04"): placing a day next to it would say it twice. */
const DATED = new RegExp(`\\b(?:${MONTHS}|\\d{4})\\b`);
/** Heads that say how long or how much, not what was done ("spent a while", "made some progress"). */
const VAGUE = new Set('progress break look note step steps effort attempt sight track care bed'.split(' '));
/** Verbs whose first object is a person, the thing given left out ("sent Sofia …"). */
const GIVING = new Set(['send', 'give', 'show', 'tell', 'ask', 'offer', 'bring', 'hand', 'text', 'email', 'message', 'pass']);

/** A question placed in its day, and what placed it. */
export interface Situation {
  question: string;
  /**
   * What else the user did that day, as the question says it ("met up with Leila at Café Neun"), or what the user and
   * the assistant talked about ("discussed the dust-mitigation checklist", the user and the assistant being "we").
   */
  phrase: string;
  /** The record that says so (not evidence: the answer does not depend on it). */
  record: string;
}

/** The checks fields an item keeps of its situation (what was added, from which record, the question before). */
export function situationChecks(s: Situation, unsituated: string): Record<string, string> {
  return { situation: s.phrase, situationRecord: s.record, unsituatedQuestion: unsituated };
}

/** An item's checks without its situation's fields (its question given back its templated wording). */
export function withoutSituation<T extends Record<string, unknown>>(checks: T): T {
  const { situation: _s, situationRecord: _r, unsituatedQuestion: _u, ...rest } = checks;
  return rest as T;
}

/** What the situating step reads of an item. */
export interface SituableItem {
  question: string;
  answer: string;
  /** A day answer is placed by another day: a same-day situation's own record would give the day away. */
  answerType: AnswerType;
  /** The evidence record ids. */
  evidence: readonly string[];
  /**
   * The evidence record whose day the question asks about, when its evidence spans days ("What did I check on after
   * closing the windows?": the later one). Without it, all evidence must be of one conversation and day.
   */
  askedRecord?: string;
}

/** The situating step of the offline generator. */
export interface Situating {
  /** The question with the day it is about placed by another thing the user did then, or undefined. */
  situate(item: SituableItem, rng: Rng): Situation | undefined;
  /** A blind reader for the questions this step situated: it reads the question as it was before. */
  reader(base: BlindReader): BlindReader;
}

/**
 * People place a memory by what else happened then: "Which tracker did I use during my recent retreat?", "On which
 * date was my midweek lunch first affected by a power cut, prior to the later occasion when my wrap was
 * unavailable?". A templated question names only what its evidence says (and its date), so nearly every word of it
 * points at the evidence, and a retriever finds it easily. This step places it by another thing the user said they
 * did, named once in the history, from a record that is not evidence:
 * - on the same day, from the evidence's conversation: appended ("Which kit did I use, the same day I met up with
 *   Leila?"), in place of the date the template named ("After I talked about the projector on the day I arrived
 *   at the Humboldt Forum, which name did you mention?") or beside it ("What projector did you mention on 20 April
 *   2024, the day I also ran into Dr. van der Meer?"); a two-hop question, by the day of the later event it asks
 *   about ("After closing the windows, what did I check on, the same day I noted the wind speed?");
 * - when the answer is a date (the same day's event would give it away), on another day, before or after:
 *   "When did I repair the rear tire, some time before I flew to Lisbon?".
 * When the user did nothing else that day that the history names once, the day is placed by something the user
 * talked about in another turn of that conversation, in words no other conversation has ("…, the day we talked
 * about the dust-mitigation checklist?"). At `situation@3` half of the eligible RHELM questions found no event, and
 * those were retrieved twice as easily as the placed ones (Base-BM25 context recall 0.41 against 0.18 for cue-reply
 * questions, development personas).
 * Its words point away from the evidence, as a real question's do; it changes no answer. Such a question is asked
 * in the user's own voice ("I", "you" for the assistant), as RHELM's are. Only for a user's own history (the
 * one-day-per-conversation histories this was measured on), and only when all evidence is of one conversation and day
 * or the template names the record whose day it asks about.
 */
export function createSituating(ctx: RuleContext, graph: RecordGraph, share = SITUATION_SHARE, inPlaceShare = IN_PLACE_SHARE): Situating {
  // The user's events named once in the history with their day and phrase (read on first use: the clause index
  // covers the whole history). Something done once marks a day; a routine ("settled into my study") does not.
  let events: Array<{ i: number; day: string; phrase: string; stems: string[] }> | undefined;
  const known = () =>
    (events ??= anchors(ctx, 'the user').flatMap((s) => {
      const phrase = pastPhrase(s.c);
      const day = eventDayIn(graph.records, s);
      // Said of the record's own day: "yesterday I …" would place the wrong one.
      return phrase && day && day.length === 10 && day === recordDate(graph.records[s.i]!)
        ? [{ i: s.i, day, phrase, stems: [...contentStems(phrase)] }]
        : [];
    }));
  let topics: ReadonlyMap<string, readonly Topic[]> | undefined;
  // The topics of the day itself, or of the days near a day answered (see near).
  const topicsNear = (day: string, dated: boolean): readonly Topic[] => {
    topics ??= userTopics(ctx, graph);
    return dated ? [...topics].flatMap(([d, list]) => (near(d, day) ? list : [])) : (topics.get(day) ?? []);
  };
  // Situated question → the question it was: what the blind reader reads.
  const before = new Map<string, string>();
  return {
    situate({ question, answer, answerType, evidence, askedRecord }, rng) {
      if (!ctx.userVoice || rng.next() >= share) return undefined;
      if (!question.endsWith('?') || / or /.test(question) || before.has(question)) return undefined;
      // The day asked for, as answered ("30 October 2024"): the event may be told on a later day ("yesterday I …").
      const dated = answerType === 'date';
      const answered = dated ? resolveDates(answer)[0]?.date : undefined;
      if (dated && answered?.length !== 10) return undefined;
      // A past event's question: "What is my main concern, on the day I …?" places nothing.
      if (!(dated ? ASKS_DAY : SITUABLE).test(question) || !/ did /.test(question)) return undefined;
      const dates = question.match(DATE_PHRASE) ?? [];
      if (dates.length > 1 || (dated && dates.length && !MONTH_PHRASE.test(dates[0]!))) return undefined;
      if (DATED.test(question.replace(DATE_PHRASE, ''))) return undefined;
      // The rest keep their date and are placed beside it: "… on 11 May 2024, the same day I met Leila?".
      const inPlace = dates.length > 0 && !dated && rng.next() < inPlaceShare;
      const voiced = ownVoice(question);
      if (voiced === undefined) return undefined;
      const at = evidence.map((id) => graph.index.get(id));
      if (!at.length || at.some((i) => i === undefined)) return undefined;
      const asked = askedRecord === undefined ? at[0]! : graph.index.get(askedRecord);
      if (asked === undefined || !at.includes(asked)) return undefined;
      const thread = graph.threadOf[asked]!;
      const day = recordDate(graph.records[asked]!);
      const sameDay = (i: number) => graph.threadOf[i] === thread && recordDate(graph.records[i]!) === day;
      if (!day || (askedRecord === undefined && !at.every((i) => sameDay(i!)))) return undefined;
      const words = contentStems(question);
      const options = known().filter(
        (e) =>
          !at.includes(e.i) &&
          (dated ? near(e.day, answered!) : graph.threadOf[e.i] === thread && e.day === day) &&
          // Its words must add to the question's, not repeat them.
          !e.stems.some((w) => words.has(w)),
      );
      // Else what was talked about then, from a turn that is not evidence, in words the evidence does not have.
      const topical = options.length
        ? []
        : topicsNear(dated ? answered! : day, dated).filter(
            (t) => !at.includes(t.i) && (dated || graph.threadOf[t.i] === thread) && !t.stems.some((w) => words.has(w)),
          );
      if (!options.length && !topical.length) return undefined;
      const o = options.length ? options[rng.int(options.length)]! : topical[rng.int(topical.length)]!;
      const forms = options.length ? EVENT : TOPIC;
      const pick = <T>(xs: readonly T[]) => xs[rng.int(xs.length)]!;
      const text = 'text' in o ? `${pick(TALKED)} ${o.text}` : o.phrase;
      const situated = dated
        ? `${voiced.slice(0, -1)}${pick(o.day > answered! ? forms.before : forms.after)}${text}?`
        : inPlace
          ? voiced.replace(DATE_PHRASE, `${pick(forms.inPlace)}${text}`)
          : `${voiced.slice(0, -1)}${pick(forms.leads)}${text}?`;
      before.set(situated, question);
      return { question: situated, phrase: text, record: graph.records[o.i]!.id };
    },
    reader(base) {
      return {
        name: `${base.name}+${SITUATION}`,
        read: (input) => base.read({ ...input, question: before.get(input.question) ?? input.question }),
      };
    },
  };
}

/** Something the user talked about on a day, as a situation names it. */
interface Topic {
  i: number;
  day: string;
  /** "the dust-mitigation checklist". */
  text: string;
  stems: string[];
}

/**
 * What the user talked about in each turn, by day: the noun phrases of the user's half whose words are together in
 * no record of another conversation or day, so that each names its day ("the dust-mitigation checklist").
 */
function userTopics(ctx: RuleContext, graph: RecordGraph): Map<string, Topic[]> {
  const byDay = new Map<string, Topic[]>();
  const records = graph.records;
  const maxDf = maxPhraseDf(records.length);
  records.forEach((r, i) => {
    const day = recordDate(r);
    if (r.kind !== 'turn' || day?.length !== 10) return;
    const [start, end] = roleRange(r, 'the user');
    for (const p of nounPhrases(r.text, { start, end }, ctx.nounUsage)) {
      // A named thing ("Treptower Park") or a described one of two words at least ("the rosewood desk"): one common
      // noun ("the palate") names no conversation a person would recall.
      const named = p.words.every((w) => /^\p{Lu}/u.test(w.word));
      if (!named && (p.words.length < 2 || !p.text.startsWith('the '))) continue;
      if (!p.words.every((w) => isTopicWord(w.word.toLowerCase()) && !VAGUE_TOPIC.has(w.word.toLowerCase()))) continue;
      // "the colours seemed", "the inevitable disruption comes": a verb a determiner happened to precede.
      if (namesADate(p.text) || (!named && !thingWord(ctx, p.words[p.words.length - 1]!.word.toLowerCase(), true))) continue;
      if (!endsOnNoun(r.text, p)) continue;
      if (p.stems.some((t) => ctx.speakerStems.has(t) || (ctx.postings.get(t)?.length ?? 0) > maxDf)) continue;
      const sameDay = (k: number) =>
        records[k]!.kind === 'turn' && graph.threadOf[k] === graph.threadOf[i] && recordDate(records[k]!) === day;
      if (!recordsWithAll(ctx.postings, p.stems).every(sameDay) || !ctx.saidBy(i, 'the user', p.stems)) continue;
      const list = byDay.get(day) ?? [];
      list.push({ i, day, text: p.text, stems: p.stems });
      byDay.set(day, list);
    }
  });
  return byDay;
}

/**
 * A question about "the user" and "the assistant" as the user asks it ("After I talked about …, which name did you
 * mention?"), by the generator's own voicing (voice.ts), or undefined when any of it stays in the third person.
 */
function ownVoice(question: string): string | undefined {
  const q = inUserVoice(question);
  return /\b(?:user|assistant)\b/i.test(q) ? undefined : q;
}

/** "met up with Leila", "fixed the bike": a simple-past clause as said, or undefined for any other. */
function pastPhrase(c: Clause): string | undefined {
  // "started playing": the clause keeps the -ing verb in its lemma, not its words; leave those out.
  if (c.tense !== 'past' || c.attribute || aspectOf(c) !== 'done' || c.lemma.includes(' ')) return undefined;
  if (!/ed$|^[a-z]+$/.test(c.verb.text) || c.verb.text.toLowerCase() === c.lemma) return undefined;
  if (c.determiner && !/^(?:a|an|the|some|this|that)$/.test(c.determiner)) return undefined;
  if (VAGUE.has(c.head) || (GIVING.has(c.lemma) && !c.prep && /^[A-Z]/.test(c.object))) return undefined;
  // "started jotting": an activity with nothing done to anything says no more than the verb.
  if (/^\w+ing$/.test(c.object)) return undefined;
  const det = c.determiner === 'this' || c.determiner === 'that' ? 'the' : c.determiner;
  return `${c.verb.text.toLowerCase()}${c.prep ? ` ${c.prep}` : ''} ${det ? `${det} ` : ''}${c.object}`;
}
