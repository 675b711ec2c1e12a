import { stem } from '../../text/text.ts';
import { mailboxOwner, roleRange, whoAt } from './speakers.ts';
import { kindsMemo } from './kinds.ts';
import { nounUsage } from './phrases.ts';
import type { Bundle } from '../bundles.ts';
import { sectionPlace } from '../document-outline.ts';
import type { QuestionType } from '../plan.ts';
import { type RecordGraph, userVoiceOf } from '../record-graph.ts';
import type { Rng } from '../rng.ts';
import { buildPostings, tokensIn } from './cues.ts';
import { ClauseIndex } from './clause-index.ts';
import { companionPremiseQuestion, companionPremiseWhat } from './companions.ts';
import { askedKeys, contextualCandidate } from './contextual.ts';
import { inUserVoice } from './voice.ts';
import {
  classListQuestion,
  eventAfterQuestion,
  eventListQuestion,
  beforeQuestion,
  daysAfterQuestion,
  eventWhatQuestion,
  eventWhenQuestion,
  ordinalWhenQuestion,
  memberClauses,
  monthListQuestion,
  yesNoQuestion,
} from './families.ts';
import { extractFacts, type TextFact } from './facts.ts';
import { describeQuestion } from './descriptions.ts';
import { feelingCandidate, feelingsOf } from './feelings.ts';
import { memberNames, mentionCompareQuestion, mentionCountQuestion, multiEvidenceShare } from './mention-counts.ts';
import { sectionCellQuestion } from './section-cell.ts';
import { sectionCountQuestion } from './section-count.ts';
import { sectionOrderQuestion } from './section-order.ts';
import {
  bridgeQuestion,
  contentSentences,
  dateQuestion,
  daysBetweenQuestion,
  entityQuestion,
  linkedQuestion,
  linkedRecords,
  linkedWhichQuestion,
  whichQuestion,
  quantityQuestion,
  whenQuestion,
  whoQuestion,
  type RuleCandidate,
  type RuleContext,
} from './templates.ts';

/** Name and version of the offline generator, written into every item it makes. */
export const RULE_BASED_GENERATOR = 'rule-based@42';

/** Question types the rule-based generator can write. */
export const RULE_BASED_TYPES: readonly QuestionType[] = ['single-hop', 'multi-hop', 'temporal', 'aggregation', 'false-premise'];

/** Builds what the templates read: term postings, lazily extracted facts, and the speakers of the history. */
export function createRuleContext(graph: RecordGraph): RuleContext {
  const postings = buildPostings(graph);
  const turnSpeakers = new Set<string>();
  const speakers = new Set<string>();
  for (const r of graph.records) {
    if (!r.speaker) continue;
    const s = r.speaker.toLowerCase();
    speakers.add(s);
    for (const part of s.split(/\s+/)) if (part.length > 2) speakers.add(part);
    if (r.kind === 'turn' && s !== 'user' && s !== 'assistant') turnSpeakers.add(s);
  }
  const speakerStems = new Set<string>();
  for (const s of speakers) for (const t of tokensIn(s)) speakerStems.add(t.stem);
  // Words the history writes in lower case somewhere: never proper nouns.
  const lowerSeen = new Set<string>();
  for (const r of graph.records) for (const m of r.text.matchAll(/(?<![\p{L}\p{N}])[a-z][a-z'’-]+/gu)) lowerSeen.add(m[0]);
  const common = (w: string): boolean => lowerSeen.has(w);
  const cache = new Map<number, TextFact[]>();
  const usage = nounUsage(graph.records.map((r) => r.text));
  const roleStems = new Map<string, Set<string>>();
  let clauses: ClauseIndex | undefined;
  const userVoice = userVoiceOf(graph);
  return {
    clauses() {
      clauses ??= new ClauseIndex(graph.records);
      return clauses;
    },
    graph,
    postings,
    speakers,
    speakerStems,
    multiSpeaker: turnSpeakers.size >= 2,
    userVoice,
    owner: userVoice ? mailboxOwner(graph.records) : new Set(),
    nounUsage: usage,
    kinds: kindsMemo(
      graph.records.map((r) => r.text),
      usage,
    ),
    shortRecords: graph.records.reduce((n, r) => n + r.text.split(/\s+/).length, 0) / Math.max(1, graph.records.length) < 40,
    saidBy(k, who, stems) {
      const r = graph.records[k]!;
      if (r.kind === 'turn' && r.text.startsWith('User: ') && (who === 'the user' || who === 'the assistant')) {
        const key = `${k}\u0000${who}`;
        let set = roleStems.get(key);
        if (!set) {
          const [s, e] = roleRange(r, who);
          roleStems.set(key, (set = new Set(tokensIn(r.text, s, e).map((t) => t.stem))));
        }
        return stems.every((x) => set.has(x));
      }
      return whoAt(r, 0) === who && stems.every((x) => graph.termSets[k]!.has(x));
    },
    documentTitle(i) {
      const first = graph.threads.get(graph.threadOf[i]!)?.[0];
      const r = first === undefined ? undefined : graph.records[first];
      return r?.kind === 'document' ? r.title?.replace(/\s+/g, ' ').trim() : undefined;
    },
    facts(i) {
      let f = cache.get(i);
      if (!f) cache.set(i, (f = extractFacts(graph.records[i]!, speakers, common)));
      return f;
    },
  };
}

/** How many checkable facts a record holds, plus one: the offline generator's seed weight. */
export function factSeedWeight(ctx: RuleContext): (record: unknown, index: number) => number {
  return (_r, i) => 1 + Math.min(4, ctx.facts(i).length);
}

const MAX_TRIES = 40;
/** Tries a bundle's contextual (cue + answer turn) questions get before the other single-hop templates are tried. */
const CONTEXTUAL_TRIES = 24;
/**
 * How often a single-hop question is first tried as a context-linked one. Real questions about a conversation
 * mostly name what prompted the answer rather than the answer's own words; without this family the supervision
 * rewards designs that match a question against the evidence turn alone.
 */
const CONTEXTUAL_SHARE = 1;
/**
 * How often a single-hop or temporal question is first tried from the speakers' own statements ("What did Caroline
 * research?", "When did Melanie paint the sunrise?"): the facts about the person most real questions ask for.
 */
const FAMILY_SHARE = 1;
/** How often a temporal question is first tried as "Did X do A before B?" (two events compared in time). */
const BEFORE_SHARE = 0.12;
/**
 * On conversations between people, how often a single-hop question is first tried as "How did Ana feel after
 * the storm?" (feelings.ts) or "How did Ana describe going to the support group?" (descriptions.ts): most
 * of what people ask there with "how" is how someone felt about or saw what happened.
 */
const FEELING_SHARE = 0.3;
/** How often a single-hop question may be a who-said one: real questions rarely ask who said something. */
const WHO_SHARE = 0.15;
/** Named things a count-over-sessions try may ask about before giving up on the bundle (its own budget). */
const COUNT_TRIES = 12;
/**
 * Of the count-over-sessions tries, the share first asked as a comparison of two named things ("Which came up in
 * more conversations in May 2024, A or B?"). RHELM's development personas ask a third of their aggregation
 * questions as "which … most" (Jonas 5 of 15, Justice 6 of 16); its cap is its own group's (fill-caps.ts).
 */
const COMPARE_SHARE = 0.35;
/**
 * Of those single-hop tries, the share asked as yes/no with a verified premise ("Did Caroline join …?" → Yes).
 * Not in a user's own history: none of the RHELM development personas' 229 questions asks "Did I …?" of something
 * they said they did (their yes/no forms are "Can you remind me …" requests built on a false premise), and ours
 * read as a sentence of the evidence turned round ("Did I notice a pattern?", "Did I make notes?").
 */
const YES_NO_SHARE = 0.15;
/**
 * Of a user-voice history's false-premise tries, the share asked as a request that takes the swapped companion for
 * granted ("Can you remind me what Rohan and I talked about when we …?") rather than as "Can you remind me whether
 * …". The RHELM development personas' own false-premise questions are "what"/"which" questions or requests in 34 of 37.
 */
const PREMISE_WHAT_SHARE = 0.6;
/**
 * How often a temporal try first asks for the first or the last time someone did a thing they did on several days
 * ("When did I first …?"). The RHELM development personas ask "first" in 19 of their 229 questions and "most
 * recently" or "latest" in 9; before this family the generated sets had almost none (5 of 3,193 at seed 1).
 */
const ORDINAL_SHARE = 0.35;
/**
 * How often a multi-hop request whose bundle holds outlined document sections is first tried as a question about a
 * section (section-order.ts, section-count.ts, section-cell.ts). Calibrated on the RHELM development personas, where
 * about a fifth of the questions asked are of these kinds; before them the generated evidence was 2–3% documents
 * against 20% and 31% of theirs.
 */
const SECTION_SHARE = 0.3;
/**
 * Of those tries, the shares asked as a look-up in a section's table (section-cell.ts) and as a count over its list or
 * table (section-count.ts); the rest ask the outline (section-order.ts). The RHELM development personas ask about 20
 * of their 229 questions of a document's content, 19 as counts and 16 of the outline. A look-up or a count needs a
 * table or list in a document some conversation shared, so fewer of their tries succeed; a failed one goes on to the
 * other multi-hop families.
 */
const SECTION_CELL_SHARE = 0.35;
const SECTION_COUNT_SHARE = 0.35;

/**
 * One templated candidate of `type` from a bundle, or undefined when the bundle holds no fact the type's
 * templates can use. Answers and evidence are computed from the records (and their dates), never guessed.
 */
export function ruleCandidate(ctx: RuleContext, bundle: Bundle, type: QuestionType, rng: Rng): RuleCandidate | undefined {
  const c = templateCandidate(ctx, bundle, type, rng);
  return c && ctx.userVoice ? { ...c, question: inUserVoice(c.question) } : c;
}

function templateCandidate(ctx: RuleContext, bundle: Bundle, type: QuestionType, rng: Rng): RuleCandidate | undefined {
  const members = rng.shuffle(bundle.records.map((id) => ctx.graph.index.get(id)!));
  let tries = 0;
  const budget = (): boolean => ++tries <= MAX_TRIES;
  // In a dense history a share of single-hop and temporal requests is first tried as a count over sessions, so the
  // evidence-count mix follows what is asked of such histories (mention-counts.ts).
  const counts = multiEvidenceShare(ctx);
  if ((type === 'single-hop' || type === 'temporal') && counts > 0 && rng.next() < counts) {
    const c = countCandidate(ctx, members, rng);
    if (c) return c;
  }
  switch (type) {
    case 'single-hop': {
      if (ctx.multiSpeaker && rng.next() < FEELING_SHARE) {
        for (const i of members) {
          for (const f of feelingsOf(ctx.graph.records[i]!)) {
            if (!budget()) break;
            const c = fresh(ctx, feelingCandidate(ctx, f));
            if (c) return c;
          }
        }
        for (const s of memberClauses(ctx, members, rng)) {
          if (!budget()) break;
          const c = fresh(ctx, describeQuestion(ctx, s));
          if (c) return c;
        }
      }
      if (rng.next() < FAMILY_SHARE) {
        // The draw stays so a user-voice history's other choices are the ones they were.
        const yesNo = rng.next() < YES_NO_SHARE && !ctx.userVoice;
        for (const s of memberClauses(ctx, members, rng)) {
          if (!budget()) break;
          const c = fresh(ctx, yesNo ? yesNoQuestion(ctx, s.i, s.c, rng, false) : eventWhatQuestion(ctx, s.i, s.c));
          if (c) return c;
        }
      }
      if (rng.next() < CONTEXTUAL_SHARE) {
        let own = 0;
        const c = contextualCandidate(ctx, members, rng, () => ++own <= CONTEXTUAL_TRIES);
        if (c) return c;
      }
      const askWho = rng.next() < WHO_SHARE;
      for (const i of members) {
        const facts = rng.shuffle(ctx.facts(i));
        for (const f of facts) {
          if (!budget()) return undefined;
          const c =
            f.kind === 'quantity'
              ? quantityQuestion(ctx, i, f, rng)
              : f.kind === 'entity'
                ? entityQuestion(ctx, i, f, rng)
                : dateQuestion(ctx, i, f, rng);
          if (c) return c;
        }
        if (rng.next() < 0.5) {
          if (!budget()) return undefined;
          const c = whichQuestion(ctx, i, rng);
          if (c) return c;
        }
        const sentences = contentSentences(ctx.graph.records[i]!);
        if (sentences.length && askWho) {
          if (!budget()) return undefined;
          const c = whoQuestion(ctx, i, sentences[rng.int(sentences.length)]!, rng);
          if (c) return c;
        }
      }
      return undefined;
    }
    case 'temporal': {
      if (rng.next() < ORDINAL_SHARE) {
        for (const s of memberClauses(ctx, members, rng)) {
          if (!budget()) break;
          const c = fresh(ctx, ordinalWhenQuestion(ctx, s.i, s.c, rng));
          if (c) return c;
        }
      }
      if (rng.next() < FAMILY_SHARE) {
        for (const s of memberClauses(ctx, members, rng)) {
          if (!budget()) break;
          const c = fresh(ctx, eventWhenQuestion(ctx, s.i, s.c));
          if (c) return c;
        }
      }
      if (rng.next() < BEFORE_SHARE) {
        for (const s of memberClauses(ctx, members, rng)) {
          if (!budget()) break;
          const c = fresh(ctx, beforeQuestion(ctx, s.i, s.c, rng));
          if (c) return c;
        }
      }
      const pairs = rng.next() < 0.4;
      // Between people, a duration is asked between two things someone did, not between two remarks.
      if (pairs && ctx.multiSpeaker) {
        for (const s of memberClauses(ctx, members, rng)) {
          if (!budget()) break;
          const c = fresh(ctx, daysAfterQuestion(ctx, s.i, s.c, rng));
          if (c) return c;
        }
        return undefined;
      }
      for (const i of members) {
        const si = rng.shuffle(contentSentences(ctx.graph.records[i]!))[0];
        if (!si) continue;
        if (!budget()) return undefined;
        if (!pairs) {
          const c = whenQuestion(ctx, i, si, rng);
          if (c) return c;
          continue;
        }
        const j = members.find(
          (k) => k !== i && ctx.graph.threadOf[k] !== ctx.graph.threadOf[i] && contentSentences(ctx.graph.records[k]!).length > 0,
        );
        if (j === undefined) continue;
        const sj = rng.shuffle(contentSentences(ctx.graph.records[j]!))[0]!;
        const c = daysBetweenQuestion(ctx, i, si, j, sj, rng);
        if (c) return c;
      }
      return undefined;
    }
    case 'aggregation': {
      // Everything a speaker said they did (or like) with one verb, across sessions. Counting how often a word
      // "came up" was dropped: its answer is a fact about the transcript, not about the person.
      const tried = new Set<string>();
      for (const s of memberClauses(ctx, members, rng)) {
        const key = `${s.c.who}\u0000${s.c.lemma}\u0000${s.c.prep}\u0000${s.c.tense === 'present'}`;
        if (tried.has(key)) continue;
        tried.add(key);
        if (!budget()) return undefined;
        const c =
          fresh(ctx, classListQuestion(ctx, s.c)) ??
          fresh(ctx, monthListQuestion(ctx, s.i, s.c)) ??
          fresh(ctx, eventListQuestion(ctx, s.c));
        if (c) return c;
      }
      return counts > 0 ? countCandidate(ctx, members, rng) : undefined;
    }
    case 'false-premise': {
      // A user's own history has no second speaker to swap in; the person they did it with is swapped instead.
      if (ctx.userVoice) {
        for (const i of members) {
          if (!budget()) return undefined;
          const ask = rng.next() < PREMISE_WHAT_SHARE ? companionPremiseWhat : companionPremiseQuestion;
          const c = fresh(ctx, ask(ctx, i, rng));
          if (c) return c;
        }
        return undefined;
      }
      for (const s of memberClauses(ctx, members, rng)) {
        if (!budget()) return undefined;
        const c = fresh(ctx, yesNoQuestion(ctx, s.i, s.c, rng, true));
        if (c) return c;
      }
      return undefined;
    }
    case 'multi-hop': {
      // A history without outlined documents never draws here, so its random stream is what it was.
      const sections = members.filter((i) => sectionPlace(ctx.graph.records[i]!));
      if (sections.length && rng.next() < SECTION_SHARE) {
        const draw = rng.next();
        const ask =
          draw < SECTION_CELL_SHARE
            ? sectionCellQuestion
            : draw < SECTION_CELL_SHARE + SECTION_COUNT_SHARE
              ? sectionCountQuestion
              : sectionOrderQuestion;
        for (const i of sections) {
          if (!budget()) break;
          const c = fresh(ctx, ask(ctx, i, rng));
          if (c) return c;
        }
      }
      // Two families: a pair linked in the record graph (same conversation, or a shared document), and two
      // passages of different conversations naming the same entity. The linked family is tried first; it is
      // the one most histories can support.
      for (const s of memberClauses(ctx, members, rng)) {
        if (!budget()) break;
        const c = fresh(ctx, eventAfterQuestion(ctx, s.i, s.c));
        if (c) return c;
      }
      if (rng.next() < 0.75) {
        const c = linkedCandidate(ctx, members, rng, budget);
        if (c) return c;
      }
      const inBundle = new Set(members);
      for (const i of members) {
        for (const f of rng.shuffle(ctx.facts(i).filter((x) => x.kind === 'entity'))) {
          if (f.kind !== 'entity') continue;
          const last = f.value.split(/\s+/).pop()!.toLowerCase();
          const others = (ctx.postings.get(stem(last.replace(/['’]s$/, ''))) ?? []).filter(
            (j) => j !== i && ctx.graph.threadOf[j] !== ctx.graph.threadOf[i] && ctx.graph.records[j]!.text.includes(f.value),
          );
          if (!others.length || others.length > 12) continue;
          const ordered = [...others.filter((j) => inBundle.has(j)), ...rng.shuffle(others.filter((j) => !inBundle.has(j)))];
          for (const j of ordered.slice(0, 3)) {
            if (!budget()) return undefined;
            const c = bridgeQuestion(ctx, i, f, j, rng);
            if (c) return c;
          }
        }
      }
      return linkedCandidate(ctx, members, rng, budget);
    }
    default:
      return undefined;
  }
}

/**
 * A family candidate whose question was not asked before in this history (marked as asked now), else undefined:
 * one statement yields one question, so later bundles move on to other statements instead of repeating it. The
 * marks live in the history's asked-keys memo, which a resumed run restores.
 */
function fresh(ctx: RuleContext, c: RuleCandidate | undefined): RuleCandidate | undefined {
  if (!c) return undefined;
  const asked = askedKeys(ctx);
  const key = `question\u0000${c.question}`;
  if (asked.has(key)) return undefined;
  asked.add(key);
  return c;
}

/**
 * A count-over-sessions candidate about a named thing of the bundle's turns, not asked before, or undefined: a
 * comparison with another named thing of the period first for a share of the tries, else the count.
 */
function countCandidate(ctx: RuleContext, members: readonly number[], rng: Rng): RuleCandidate | undefined {
  const tried = new Set<string>();
  const compare = rng.next() < COMPARE_SHARE;
  for (const { i, name } of memberNames(ctx, members)) {
    if (tried.has(name)) continue;
    if (tried.size >= COUNT_TRIES) break;
    tried.add(name);
    const c =
      (compare ? fresh(ctx, mentionCompareQuestion(ctx, i, name, rng)) : undefined) ?? fresh(ctx, mentionCountQuestion(ctx, i, name));
    if (c) return c;
  }
  return undefined;
}

/** A linked-pair multi-hop candidate whose first record is a turn of the bundle, or undefined. */
function linkedCandidate(ctx: RuleContext, members: readonly number[], rng: Rng, budget: () => boolean): RuleCandidate | undefined {
  for (const a of members) {
    if (ctx.graph.records[a]!.kind !== 'turn') continue;
    for (const link of ['attachment', 'thread'] as const) {
      const reach = linkedRecords(ctx, a, link);
      for (const b of rng.shuffle(reach).slice(0, 8)) {
        if (rng.next() < 0.8) {
          if (!budget()) return undefined;
          const c = linkedWhichQuestion(ctx, a, b, link, rng);
          if (c) return c;
        }
        for (const f of rng.shuffle(ctx.facts(b)).slice(0, 3)) {
          if (f.kind === 'date') continue;
          if (!budget()) return undefined;
          const c = linkedQuestion(ctx, a, b, f, link, rng);
          if (c) return c;
        }
      }
    }
  }
  return undefined;
}
