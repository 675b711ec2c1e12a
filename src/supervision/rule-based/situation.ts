import type { BlindReader } from '../blind-recovery.ts';
import type { RecordGraph } from '../record-graph.ts';
import type { Rng } from '../rng.ts';
import { contentStems } from '../calibration.ts';
import { aspectOf } from './clause-index.ts';
import { anchors } from './families.ts';
import type { Clause } from './clauses.ts';
import type { RuleContext } from './rule-context.ts';

/** Version of the situating step: part of what made the items (and of the resume journal's run key). */
export const SITUATION = 'situation@1';

/**
 * Share of the eligible questions of a user–assistant history placed in their day: all of them. On the RHELM
 * development personas their own questions have 13.6 content words of which 41% are in the evidence, the templated
 * ones 6 and two thirds; placing every eligible one (a ninth of a set) still leaves them shorter and closer to
 * their evidence (bench/results/2026-12-03-coverage).
 */
export const SITUATION_SHARE = 1;

/** How a question names its day by something else the user did (one drawn per question). */
const LEADS = [', the same day I ', ', the day I also ', ', on the day I '] as const;
const SITUATED = /, (?:the same day I|the day I also|on the day I) [^?]*\?$/;
/** Question forms a situation may follow: lookups, not yes/no (it would join a second claim) or a choice. */
const SITUABLE = /^(?:What|Which|When|Who|Where|How|After|On which)\b/;
/** A question that already names its time ("in May 2024", "on 3 January 2024") needs no day placed again. */
const DATED = /\b(?:January|February|March|April|May|June|July|August|September|October|November|December|\d{4}-\d{2}(?:-\d{2})?)\b/;
/** Heads that say how long or how much, not what was done ("spent a while", "made some progress"). */
const VAGUE = new Set('while stretch progress moment break look note step steps effort attempt sight track care bed'.split(' '));
/** Verbs whose first object is a person, the thing given left out ("sent Sofia …"). */
const GIVING = new Set(['send', 'give', 'show', 'tell', 'ask', 'offer', 'bring', 'hand', 'text', 'email', 'message', 'pass']);

/** A question placed in its day, and what placed it. */
export interface Situation {
  question: string;
  /** What else the user did that day, as the question says it ("met up with Leila at Café Neun"). */
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

/** The situating step of the offline generator. */
export interface Situating {
  /** The question with the day it is about placed by another thing the user did then, or undefined. */
  situate(question: string, evidence: readonly string[], rng: Rng): Situation | undefined;
  /** A blind reader for situated questions: the situation set aside, `base` reads the rest. */
  reader(base: BlindReader): BlindReader;
}

/**
 * People place a memory by what else happened then: "Which tracker did I use during my recent retreat?", "Which
 * herb did I get from Frau Lehmann during the same market visit …?". A templated question names only what its
 * evidence says, so nearly every word of it points at the evidence, and a retriever finds it easily. This step adds
 * "…, the same day I met up with Leila?": another thing the user said they did in the same conversation (a dated
 * session), from a record that is not evidence. Its words point away from the evidence, as a real question's do; it
 * changes no answer. Only for a user's own history (the one-day-per-conversation histories this was measured on),
 * and only when every evidence record is of that conversation.
 */
export function createSituating(ctx: RuleContext, graph: RecordGraph, share = SITUATION_SHARE): Situating {
  // The user's events named once in the history (read on first use: the clause index covers the whole history).
  let once: Set<Clause> | undefined;
  return {
    situate(question, evidence, rng) {
      if (!ctx.userVoice || rng.next() >= share) return undefined;
      if (!SITUABLE.test(question) || !question.endsWith('?') || / or /.test(question) || SITUATED.test(question)) return undefined;
      // A past event's question, in the user's own voice: "What is my main concern, on the day I …?" places nothing,
      // and "… did the user talk about …, the same day I …" would change who is speaking mid-question.
      if (DATED.test(question) || !/ did /.test(question) || /\bthe user\b/.test(question)) return undefined;
      const at = evidence.map((id) => graph.index.get(id));
      if (!at.length || at.some((i) => i === undefined)) return undefined;
      const thread = graph.threadOf[at[0]!]!;
      if (at.some((i) => graph.threadOf[i!] !== thread)) return undefined;
      const asked = contentStems(question);
      once ??= new Set(anchors(ctx, 'the user').map((x) => x.c));
      const options: Array<{ phrase: string; record: string }> = [];
      for (const k of graph.threads.get(thread) ?? []) {
        if (at.includes(k)) continue;
        for (const s of ctx.clauses().of(k)) {
          const phrase = pastPhrase(s.c);
          // Something the user did once in the history marks a day; a routine ("settled into my study") does not.
          if (!phrase || s.c.who !== 'the user' || !once.has(s.c)) continue;
          // Its words must add to the question's, not repeat them.
          if ([...contentStems(phrase)].some((w) => asked.has(w))) continue;
          options.push({ phrase, record: graph.records[k]!.id });
        }
      }
      if (!options.length) return undefined;
      const o = options[rng.int(options.length)]!;
      const lead = LEADS[rng.int(LEADS.length)]!;
      return { question: `${question.slice(0, -1)}${lead}${o.phrase}?`, phrase: o.phrase, record: o.record };
    },
    reader(base) {
      return {
        name: `${base.name}+${SITUATION}`,
        read: (input) => base.read({ ...input, question: input.question.replace(SITUATED, '?') }),
      };
    },
  };
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
