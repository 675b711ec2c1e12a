import { formatDate } from '../../text/date-parse.ts';
import { isStopword } from '../../text/text.ts';
import type { AnswerType } from '../../history/record.ts';
import { recordDate } from '../bundles.ts';
import type { Rng } from '../rng.ts';
import { tokensIn } from './cues.ts';
import { splitSentences, type Sentence, type TextFact } from './facts.ts';
import { ambiguityWeight, pickGist, stemsOf, type Gist } from './gist.ts';
import { askFirst, timePhrase } from './phrases.ts';
import { roleRange, whoAt } from './speakers.ts';
import { everywhere, excludeFor, fact, headOk, plan, quantityLead, TIMED, type RuleCandidate, type RuleContext } from './templates.ts';

/**
 * Context-linked questions ("answer turn + cue turn"). In a dialogue a reply often does not repeat the words of what
 * prompted it (Ben: "Did you find anything for the flat hunt?" → Ana: "Two places near the river, both with a
 * balcony"), so a user asks about the reply in the words of its prompt. These templates do the same: the evidence is one utterance
 * (the answer turn), the question names its neighbour in the thread (the cue) by the cue's own words, its
 * speaker and rough time, and shares no content word with the answer's record ({@link maxSharedWords}).
 */

/**
 * How many content words a context-linked question may share with its answer's record. In a conversation between
 * people none: the one word the question used to share was mostly the head noun of what it asks for ("What memory
 * did Caroline mention …" → "best camping memory"), which let a retriever find the answer turn by itself, so these
 * items did not reward designs that step from the turn a question names to its neighbours. On the LoCoMo development
 * conversations the searches' validation then dropped the index window and neighbour packing, which gain 3–8 points
 * of official context recall there (`bench/results/2026-12-07-search-decisions/`). In a user's own history one, as
 * before: there cue and answer often share a User/Assistant record and the question would rarely be askable.
 */
export function maxSharedWords(ctx: RuleContext): number {
  return ctx.multiSpeaker ? 0 : 1;
}

/** One speaker's stretch of a thread: a whole chat turn, or the User / Assistant half of a paired turn. */
export interface Utterance {
  /** Index of the record in the graph. */
  record: number;
  /** Who said it, as a question names them (see whoAt). */
  who: string;
  start: number;
  end: number;
}

/**
 * How the cue sits beside the answer: `reply` — the cue comes right before it (usually a question the answer
 * replies to); `reaction` — the cue comes right after it and reacts to it.
 */
export type CueRelation = 'reply' | 'reaction';

/** Template name written into an item's checks, per relation. */
export const CONTEXTUAL_TEMPLATES: Readonly<Record<CueRelation, string>> = { reply: 'cue-reply', reaction: 'cue-reaction' };

/** The utterances of record `i`: both halves of a "User: … / Assistant: …" turn, else the whole turn. */
export function utterancesOf(ctx: RuleContext, i: number): Utterance[] {
  const r = ctx.graph.records[i]!;
  if (r.kind !== 'turn') return [];
  if (r.text.startsWith('User: ') && r.text.includes('\nAssistant: ')) {
    return (['the user', 'the assistant'] as const).map((who) => {
      const [start, end] = roleRange(r, who);
      return { record: i, who, start, end };
    });
  }
  const who = whoAt(r, 0);
  return who ? [{ record: i, who, start: 0, end: r.text.length }] : [];
}

/** The utterances of record `i`'s thread, in order. */
export function threadUtterances(ctx: RuleContext, i: number): Utterance[] {
  return (ctx.graph.threads.get(ctx.graph.threadOf[i]!) ?? [i]).flatMap((k) => utterancesOf(ctx, k));
}

const REACTION_OPENER = new RegExp(
  String.raw`^\s*(?:User:\s*|Assistant:\s*)?` +
    String.raw`(?:wow|whoa|woah|oh|aw+|congrats|congratulations|that'?s|that’s|thanks|thank|sounds|so |how |what a|nice|great|cool|` +
    String.raw`awesome|love|glad|sorry|yes|yeah|haha|lol)`,
  'i',
);

/**
 * The cue of an answer utterance: the neighbour (before it for `reply`, after it for `reaction`) said by someone
 * else. A reaction must react: it opens like one ("Wow…", "That's…") or picks up a word of the answer.
 */
export function cueFor(ctx: RuleContext, utterances: readonly Utterance[], at: number, relation: CueRelation): Utterance | undefined {
  const answer = utterances[at];
  const cue = utterances[relation === 'reply' ? at - 1 : at + 1];
  if (!answer || !cue || cue.who === answer.who) return undefined;
  if (relation === 'reaction') {
    const text = ctx.graph.records[cue.record]!.text.slice(cue.start, cue.end);
    const own = new Set(contentStems(ctx, answer));
    if (!REACTION_OPENER.test(text) && !contentStems(ctx, cue).some((s) => own.has(s))) return undefined;
  }
  return cue;
}

function contentStems(ctx: RuleContext, u: Pick<Utterance, 'record' | 'start' | 'end'>): string[] {
  return tokensIn(ctx.graph.records[u.record]!.text, u.start, u.end)
    .filter((t) => t.word.length >= 3 && !isStopword(t.word.toLowerCase()) && !/\d/.test(t.word))
    .map((t) => t.stem);
}

// Words of the templates' own phrasing: they say how the question is asked, not what it is about.
const FRAME_STEMS = stemsOf(
  'when right before asked talked about mention mentioned reply which what how many much name date money percentage kind',
);
const MONTH_STEMS = stemsOf('january february march april may june july august september october november december');

/**
 * Content stems a question shares with `[start, end)` of a record, leaving out speaker names, dates and the
 * templates' frame words: the shared-word rule ({@link maxSharedWords}) is checked on this.
 */
export function sharedContentStems(ctx: RuleContext, question: string, region: Pick<Utterance, 'record' | 'start' | 'end'>): string[] {
  const own = new Set(contentStems(ctx, region));
  const out = new Set<string>();
  for (const t of tokensIn(question)) {
    const lower = t.word.toLowerCase();
    if (
      lower.length < 3 ||
      isStopword(lower) ||
      /\d/.test(lower) ||
      ctx.speakerStems.has(t.stem) ||
      FRAME_STEMS.has(t.stem) ||
      MONTH_STEMS.has(t.stem)
    )
      continue;
    if (own.has(t.stem)) out.add(t.stem);
  }
  return [...out];
}

/** What the question asks for in the answer utterance: a computed, unique phrase of it. */
interface AnswerPick {
  /** "which places", "how many weeks", "what name", "what date". */
  lead: string;
  answer: string;
  answerType: AnswerType;
  sentence: Sentence;
  /** Offsets of the answer in the record (cue words never come from there). */
  at: { start: number; end: number };
  /** Stems the lead itself uses (the one word it may share with the answer). */
  leadStems: string[];
  w: number;
}

type Fact<K extends TextFact['kind']> = Extract<TextFact, { kind: K }>;

// Heads that name no particular thing ("which part", "which ones") or are verbs and adjectives a determiner
// happened to precede ("the must", "the youngest").
const NOT_A_THING = new Set([
  'one',
  'ones',
  'part',
  'parts',
  'kind',
  'kinds',
  'sort',
  'sorts',
  'type',
  'types',
  'bit',
  'bits',
  'lot',
  'lots',
  'way',
  'ways',
  'thing',
  'things',
  'must',
  'adds',
  'stands',
  'means',
  'source',
  'strength',
  'others',
  'rest',
  'same',
  'best',
  'most',
  'first',
  'last',
  'whole',
  'end',
  'side',
  'point',
  'idea',
  'ideas',
  'reason',
  'sense',
  'step',
  'steps',
  'chance',
  'moment',
  'moments',
  'course',
  'stuff',
]);

/** How often each lower-case word follows a determiner ("the", "my"…) and a subject pronoun ("I", "it"…). */
interface WordRoles {
  afterDeterminer: Map<string, number>;
  afterPronoun: Map<string, number>;
}

const roleCache = new WeakMap<RuleContext, WordRoles>();

function wordRoles(ctx: RuleContext): WordRoles {
  let roles = roleCache.get(ctx);
  if (roles) return roles;
  roles = { afterDeterminer: new Map(), afterPronoun: new Map() };
  const det = /^(?:the|a|an|my|your|his|her|our|their|this|these|those)$/;
  const pron = /^(?:i|you|we|they|he|she|it|that)$/;
  for (const r of ctx.graph.records) {
    const words = r.text.toLowerCase().match(/[\p{L}]+(?:['’-][\p{L}]+)*/gu) ?? [];
    for (let k = 1; k < words.length; k++) {
      const map = det.test(words[k - 1]!) ? roles.afterDeterminer : pron.test(words[k - 1]!) ? roles.afterPronoun : undefined;
      map?.set(words[k]!, (map.get(words[k]!) ?? 0) + 1);
    }
  }
  roleCache.set(ctx, roles);
  return roles;
}

/**
 * A word that can head a phrase naming a thing: used as a noun in the history (after a determiner more often
 * than after a subject pronoun, where verbs go), not a verb form, superlative or placeholder. `seen`: it must
 * also follow a determiner somewhere ("the studio"), as a cue phrase's head does that stands alone.
 */
export function thingWord(ctx: RuleContext, lower: string, seen = false): boolean {
  if (ctx.nounUsage(lower) !== 'head' || NOT_A_THING.has(lower) || /(?:ing|est|ly|ed)$/.test(lower) || lower.length < 4) return false;
  const roles = wordRoles(ctx);
  const d = roles.afterDeterminer.get(lower) ?? 0;
  return d >= (roles.afterPronoun.get(lower) ?? 0) && (!seen || d > 0);
}

/** Every phrase of an utterance a question can ask for without ambiguity inside that utterance. */
export function answerPicks(ctx: RuleContext, u: Utterance): AnswerPick[] {
  const r = ctx.graph.records[u.record]!;
  const inside = (f: { start: number; end: number }): boolean => f.start >= u.start && f.end <= u.end;
  const out: AnswerPick[] = [];
  const utteranceStems = tokensIn(r.text, u.start, u.end).map((t) => t.stem);
  for (const [stem, list] of ctx.kinds(u.record, u.start, u.end)) {
    const k = list[0]!;
    // One phrase with that head, and the head said once: "which <head>" then points at one place.
    if (list.length !== 1 || !headOk(ctx, k) || utteranceStems.filter((s) => s === stem).length !== 1) continue;
    const head = k.head.word.toLowerCase();
    if (!thingWord(ctx, head)) continue;
    out.push({
      lead: `which ${head}`,
      answer: k.answer,
      answerType: 'text',
      sentence: k.sentence,
      at: k.phrase,
      leadStems: [k.head.stem],
      w: ambiguityWeight(ctx.postings.get(stem)?.length ?? 0, ctx.shortRecords),
    });
  }
  const facts = ctx.facts(u.record).filter(inside);
  const entities = facts.filter((f): f is Fact<'entity'> => f.kind === 'entity');
  if (new Set(entities.map((f) => f.value.toLowerCase())).size === 1 && !everywhere(ctx, entities[0]!.value)) {
    const f = entities[0]!;
    out.push({ lead: 'what name', answer: f.value, answerType: 'text', sentence: f.sentence, at: f, leadStems: [], w: 2 });
  }
  const dates = facts.filter((f): f is Fact<'date'> => f.kind === 'date');
  if (dates.length === 1) {
    const f = dates[0]!;
    out.push({ lead: 'what date', answer: formatDate(f.date), answerType: 'date', sentence: f.sentence, at: f, leadStems: [], w: 2 });
  }
  for (const f of facts) {
    if (f.kind !== 'quantity' || facts.filter((x) => x.kind === 'quantity' && x.unit === f.unit).length !== 1) continue;
    if (r.text[f.end] === '-') continue; // "one-year-old": an age, not a count of years
    const lead = quantityLead(f)?.toLowerCase();
    if (!lead) continue;
    out.push({
      lead,
      answer: f.value,
      answerType: 'number',
      sentence: f.sentence,
      at: f,
      leadStems: [...stemsOf(lead)].filter((s) => !FRAME_STEMS.has(s)),
      w: 2,
    });
  }
  return out;
}

/** (record, answer) pairs already asked for, per history. */
const askedCache = new WeakMap<RuleContext, Set<string>>();

/**
 * The (record, answer) keys asked for so far in this history, in the order they were asked: the generator's only
 * memory across bundles, so a resumed run journals and restores it to make the same questions.
 */
export function askedKeys(ctx: RuleContext): Set<string> {
  let asked = askedCache.get(ctx);
  if (!asked) askedCache.set(ctx, (asked = new Set()));
  return asked;
}

function weighted<T extends { w: number }>(items: readonly T[], rng: Rng): T | undefined {
  if (!items.length) return undefined;
  let pick = items.reduce((a, c) => a + c.w, 0) * rng.next();
  return items.find((x) => (pick -= x.w) < 0) ?? items[items.length - 1];
}

/**
 * A context-linked single-hop question about answer utterance `u`, cued by its neighbour `cue`: "When Ben
 * asked about the flat hunt in March 2024, which places did Ana mention?" → "two places near the river";
 * "Right before Ana talked about the choir concert in April 2024, how many weeks did Ben mention?" → "3
 * weeks". The evidence is `u`'s record alone; the cue phrase, its speaker and the time single out the cue
 * among that speaker's turns, the cue's words are none of the answer record's (the answer utterance's, when cue
 * and answer share a User/Assistant record), and the whole question shares at most {@link maxSharedWords} content
 * words with it.
 */
export function contextualQuestion(
  ctx: RuleContext,
  u: Utterance,
  cue: Utterance,
  relation: CueRelation,
  rng: Rng,
): RuleCandidate | undefined {
  const r = ctx.graph.records[u.record]!;
  let asked = askedCache.get(ctx);
  if (!asked) askedCache.set(ctx, (asked = new Set()));
  const used = asked;
  const key = (p: AnswerPick): string => `${u.record}\u0000${p.answer.toLowerCase()}`;
  // Bundles overlap: an answer asked for once would come back as a near-duplicate.
  const pick = weighted(
    answerPicks(ctx, u).filter((p) => !used.has(key(p))),
    rng,
  );
  if (!pick) return undefined;
  // The words the question may not lean on: the answer record's (or, inside one User/Assistant record, the answer half's).
  // A User/Assistant record holds its cue too, and a reply echoes its prompt: there only the answer's sentence is off limits.
  const region =
    cue.record === u.record
      ? { record: u.record, start: pick.sentence.start, end: pick.sentence.end }
      : { record: u.record, start: 0, end: r.text.length };
  const exclude = excludeFor(ctx, pick.answer);
  for (const s of contentStems(ctx, region)) exclude.add(s);
  const cueRecord = ctx.graph.records[cue.record]!;
  const g: Gist | undefined = pickGist(ctx, cue.record, cue, rng, {
    bySpeaker: true,
    scopes: TIMED,
    exclude,
    within: cue,
    filter: (p) => thingWord(ctx, p.words[p.words.length - 1]!.word.toLowerCase(), true) || /^[A-Z]/.test(p.text),
  });
  if (!g) return undefined;
  const when = timePhrase(g.scope, recordDate(cueRecord));
  const isQuestion =
    splitSentences(cueRecord.text)
      .find((s) => g.phrase.start >= s.start && g.phrase.start < s.end)
      ?.text.endsWith('?') ?? false;
  const cueVerb = isQuestion ? 'asked' : 'talked';
  // The thing asked for comes first ("What class did …"), as people put it; the cue closes the question.
  const lead = askFirst(pick.lead);
  // In a user's own history the moment comes first, as the user recalls it ("When I asked about …, which …?").
  const question = ctx.userVoice
    ? relation === 'reply'
      ? `After ${cue.who} ${cueVerb} about ${g.phrase.text}${when}, ${pick.lead} did ${u.who} mention${isQuestion ? '' : ' in reply'}?`
      : `Right before ${cue.who} talked about ${g.phrase.text}${when}, ${pick.lead} did ${u.who} mention?`
    : relation === 'reply'
      ? `${lead} did ${u.who} mention${isQuestion ? '' : ' in reply'} when ${cue.who} ${cueVerb} about ${g.phrase.text}${when}?`
      : `${lead} did ${u.who} mention right before ${cue.who} talked about ${g.phrase.text}${when}?`;
  if (sharedContentStems(ctx, question, region).length > maxSharedWords(ctx)) return undefined;
  used.add(key(pick));
  const cueSays = `${cue.who} ${isQuestion ? 'asks' : 'talks'} about ${g.phrase.text} ${
    relation === 'reply' ? 'just before' : 'just after'
  }`;
  return {
    type: 'single-hop',
    template: CONTEXTUAL_TEMPLATES[relation],
    question,
    plan: plan(
      'single-hop',
      `${pick.lead.replace(/^(which|what|how many|how much)\s*/, '') || 'the answer'} ${u.who} mentioned ` +
        `${relation === 'reply' ? 'in reply when' : 'right before'} ${cue.who} ${cueVerb} about ${g.phrase.text}${when}`,
      pick.answer,
      pick.answerType,
      [fact(r, pick.sentence, `${u.who} says ${pick.answer} (${cueSays})`)],
      new Map([
        [r.id, `the ${relation === 'reply' ? 'reply to' : 'turn before'} ${cue.who}'s turn about ${g.phrase.text}; holds the answer`],
      ]),
      ['lookup'],
    ),
  };
}

/** Share of contextual tries that use the `reply` relation (the commoner shape of real questions). */
const REPLY_SHARE = 0.7;

/**
 * A contextual candidate from a bundle: an answer utterance of one of its turns whose cue is also in the bundle
 * (so a reader of the bundle can find the cue and step to the answer), or undefined. Only pairs whose answer
 * utterance still has a phrase not asked for yet count against `budget`.
 */
export function contextualCandidate(
  ctx: RuleContext,
  members: readonly number[],
  rng: Rng,
  budget: () => boolean,
): RuleCandidate | undefined {
  const inBundle = new Set(members);
  const used = askedCache.get(ctx);
  const threads = new Map<string, Utterance[]>();
  const pairs: Array<{ us: Utterance[]; at: number; cue: Utterance; relation: CueRelation; w: number }> = [];
  for (const i of members) {
    if (ctx.graph.records[i]!.kind !== 'turn') continue;
    const key = ctx.graph.threadOf[i]!;
    let us = threads.get(key);
    if (!us) threads.set(key, (us = threadUtterances(ctx, i)));
    for (let at = 0; at < us.length; at++) {
      const u = us[at]!;
      if (u.record !== i || !answerPicks(ctx, u).some((p) => !used?.has(`${u.record}\u0000${p.answer.toLowerCase()}`))) continue;
      for (const relation of ['reply', 'reaction'] as const) {
        const cue = cueFor(ctx, us, at, relation);
        if (cue && inBundle.has(cue.record)) pairs.push({ us, at, cue, relation, w: relation === 'reply' ? REPLY_SHARE : 1 - REPLY_SHARE });
      }
    }
  }
  while (pairs.length) {
    const p = weighted(pairs, rng)!;
    pairs.splice(pairs.indexOf(p), 1);
    if (!budget()) return undefined;
    const c = contextualQuestion(ctx, p.us[p.at]!, p.cue, p.relation, rng);
    if (c) return c;
  }
  return undefined;
}
