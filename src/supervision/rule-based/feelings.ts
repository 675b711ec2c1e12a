/**
 * "How did Ana feel after the storm?" / "How does Ben feel about the concert?": how a speaker said they felt about
 * something, read from first-person statements ("I was so scared after the storm", "I'm excited about the concert").
 * About half of the "how" questions people asked of the LoCoMo development conversations are of this kind or the kin
 * in descriptions.ts; none asked how many days lay between two remarks. The answer is a fact about the person. The
 * generator asks it and the blind reader answers it from this same reading, so an item is kept only when the
 * evidence alone gives one feeling.
 */
import type { SourceRecord } from '../../../sandbox/contract.ts';
import { GENERIC_HEADS, objectAt } from './clauses.ts';
import { gerund } from './families.ts';
import { analyse, type NlpSentence, type NlpToken } from './nlp.ts';
import type { RuleContext } from './rule-context.ts';
import { roleRange, whoAt } from './speakers.ts';
import { fact, plan, type RuleCandidate } from './templates.ts';

/** One statement of how the speaker felt about (or after) a named thing. */
export interface Feeling {
  /** Who said it, as questions name them. */
  who: string;
  /** The feeling as said, intensifiers dropped: "proud", "scared and worried". */
  feeling: string;
  /** "about" for about / of / for / with / at / over; "after" for after. */
  link: 'about' | 'after';
  /** The thing, as a question names it ("the concert"; "this bowl" becomes "the bowl"). */
  cause: string;
  /** present: "I'm proud of …", "I feel …"; past: "I was …", "I felt …". */
  tense: 'present' | 'past';
  sentence: NlpSentence;
}

/**
 * Adjectives (and participles used as adjectives) that name a feeling. Written out because no maintained English
 * emotion lexicon is packaged for npm; the list is of words, not of phrasings seen in any test question.
 */
const FEELING_WORDS = new Set(
  (
    'happy glad proud excited thrilled grateful thankful scared afraid frightened terrified nervous anxious worried sad ' +
    'upset angry mad annoyed frustrated stressed overwhelmed relieved amazed inspired motivated passionate lucky blessed ' +
    'hopeful curious eager stoked pumped psyched bummed disappointed heartbroken lonely calm peaceful content empowered ' +
    'confident comfortable uncomfortable embarrassed ashamed guilty jealous touched moved surprised shocked impressed ' +
    'honored honoured humbled fulfilled satisfied energized refreshed exhausted drained freaked devastated hurt awed ' +
    'delighted ecstatic overjoyed elated joyful emotional nostalgic appreciative determined optimistic unsure torn ' +
    'conflicted accomplished accepted supported loved fascinated intrigued bored tired sorry stunned speechless ' +
    'hyped jazzed pleased'
  ).split(' '),
);
/** Words between the verb and the feeling ("so", "a bit", "kind of"), one by one; "-ly" adverbs count too. */
const INTENSIFIERS = new Set(
  'so really very super pretty totally just truly incredibly extremely quite kinda kind of a bit little too still also all'.split(' '),
);
/** Verbs with no event of their own ("excited to be …", "lucky to have …"). */
const LIGHT_ACTIONS = new Set('be have do get go make see know think say tell keep let put give take find'.split(' '));
const PARTICLES = new Set(['to', 'in', 'with', 'on', 'at', 'for', 'out', 'up', 'into', 'from']);
const ABOUT = new Set(['about', 'of', 'for', 'with', 'at', 'over']);
/** Determiners a question can repeat as they are; "this bowl" is "the bowl" to someone asking later. */
const ASKABLE_DET = new Map([
  ['', ''],
  ['a', 'a'],
  ['an', 'an'],
  ['the', 'the'],
  ['this', 'the'],
  ['that', 'the'],
  ['these', 'the'],
  ['those', 'the'],
]);

function feelingWord(t: NlpToken | undefined): boolean {
  return !!t && (t.pos === 'ADJ' || t.pos === 'VERB') && FEELING_WORDS.has(t.text.toLowerCase());
}

/** Skips intensifiers ("so", "really", "a bit") from token `k`; the index of the first other token. */
function skipIntensifiers(t: readonly NlpToken[], k: number): number {
  let j = k;
  while (t[j] && (INTENSIFIERS.has(t[j]!.text.toLowerCase()) || (t[j]!.pos === 'ADV' && /ly$/i.test(t[j]!.text)))) j++;
  return j;
}

/** The feeling statements of one sentence said by `who`. */
export function feelingsOfSentence(s: NlpSentence, who: string): Feeling[] {
  if (s.text.endsWith('?')) return [];
  const t = s.tokens;
  const out: Feeling[] = [];
  for (let k = 0; k + 2 < t.length; k++) {
    if (t[k]!.text !== 'I' || t[k]!.pos !== 'PRON') continue;
    const v = t[k + 1]!;
    const verb = v.text.toLowerCase();
    const tense = /^(?:am|feel)$/.test(verb) ? 'present' : /^(?:was|felt)$/.test(verb) ? 'past' : undefined;
    if (!tense) continue;
    let j = skipIntensifiers(t, k + 2);
    if (!feelingWord(t[j])) continue;
    const words = [t[j]!.text.toLowerCase()];
    j++;
    if (t[j]?.text.toLowerCase() === 'and') {
      const second = skipIntensifiers(t, j + 1);
      if (feelingWord(t[second])) {
        words.push(t[second]!.text.toLowerCase());
        j = second + 1;
      }
    }
    const prep = t[j]?.text.toLowerCase();
    const link = prep === 'after' ? 'after' : prep && (ABOUT.has(prep) || prep === 'to') ? 'about' : undefined;
    if (!link) continue;
    const cause = prep === 'to' ? actionAt(s, j + 1) : thingAt(s, j + 1);
    if (!cause) continue;
    out.push({ who, feeling: words.join(' and '), link, cause, tense, sentence: s });
  }
  return out;
}

/** A noun phrase starting at token `k` as a question names it ("the concert", "painting landscapes"). */
function thingAt(s: NlpSentence, k: number): string | undefined {
  const t = s.tokens;
  // "grateful for all the support": "all" before a determiner is kept out of the thing.
  const from = t[k]?.text.toLowerCase() === 'all' && t[k + 1]?.pos === 'DET' ? k + 1 : k;
  const o = objectAt(t, from);
  if (!o) return undefined;
  // "passionate about creating a safe place": the gerund takes its own object.
  if (o.from === o.to && t[o.from]!.pos === 'VERB' && !o.det) return actionAt(s, o.from);
  const det = ASKABLE_DET.get(o.det);
  if (det === undefined || GENERIC_HEADS.has(o.head.lemma) || o.head.lemma.length < 3) return undefined;
  const thing = s.text.slice(t[o.from]!.start - s.start, t[o.to]!.end - s.start);
  const named = det ? `${det} ${thing}` : thing;
  // "other people in the community": one prepositional phrase stays with the thing; a longer tail would make a
  // question no one asks, and cutting it would ask about less than was said.
  const p = t[o.to + 1];
  if (p?.pos !== 'ADP' || p.text.toLowerCase() === 'of') return named;
  const tail = objectAt(t, o.to + 2);
  if (!tail || !ASKABLE_DET.has(tail.det) || t[tail.to + 1]?.pos === 'ADP') return undefined;
  return `${named} ${p.text.toLowerCase()} ${s.text.slice(t[o.to + 2]!.start - s.start, t[tail.to]!.end - s.start)}`;
}

/**
 * "to meet other people" / "creating a safe place" from the verb at token `v`, as a gerund with its object
 * ("meeting other people"); a bare gerund ("dancing") only when nothing follows it in the clause.
 */
function actionAt(s: NlpSentence, v: number): string | undefined {
  const t = s.tokens;
  const verb = t[v];
  if (verb?.pos !== 'VERB' || !/^[a-z]+$/.test(verb.lemma) || LIGHT_ACTIONS.has(verb.lemma)) return undefined;
  const ing = /ing$/i.test(verb.text) ? verb.text.toLowerCase() : gerund(verb.lemma);
  const next = t[v + 1];
  if (!next || next.pos === 'PUNCT' || next.pos === 'CCONJ') return /ing$/i.test(verb.text) ? ing : undefined;
  let at = v + 1;
  const particle = PARTICLES.has(next.text.toLowerCase()) && (next.pos === 'ADP' || next.pos === 'PART') ? t[at++]!.text : '';
  const thing = thingAt(s, at);
  if (!thing) return undefined;
  return [ing, particle.toLowerCase(), thing].filter(Boolean).join(' ');
}

const cache = new WeakMap<SourceRecord, Feeling[]>();

/** The feeling statements of a record's named speaker (turns, e-mails and notes), cached per record object. */
export function feelingsOf(r: SourceRecord): Feeling[] {
  let out = cache.get(r);
  if (out) return out;
  out = [];
  const who = r.kind === 'turn' || r.kind === 'email' || r.kind === 'note' ? whoAt(r, 0) : undefined;
  if (who && who !== 'the assistant') {
    const [from, to] = roleRange(r, who);
    for (const s of analyse(r.text.slice(from, to), from)) out.push(...feelingsOfSentence(s, who));
  }
  cache.set(r, out);
  return out;
}

/** The question a feeling answers: "How did Ana feel after the storm?". */
export function feelingQuestion(f: Pick<Feeling, 'who' | 'link' | 'cause' | 'tense'>): string {
  return `How ${f.tense === 'past' ? 'did' : 'does'} ${f.who} feel ${f.link} ${f.cause}?`;
}

/** The key two statements share when they answer the same question. */
function keyOf(f: Pick<Feeling, 'who' | 'link' | 'cause' | 'tense'>): string {
  return feelingQuestion(f).toLowerCase();
}

/** A feeling question's parts, or undefined when `question` is not of that form. */
export function parseFeelingQuestion(
  question: string,
  speakers: readonly string[],
): Pick<Feeling, 'who' | 'link' | 'cause' | 'tense'> | undefined {
  const m = /^How (did|does) (.+) feel (about|after) (.+)\?$/.exec(question);
  if (!m) return undefined;
  const who = speakers.find((s) => s === m[2]);
  if (!who) return undefined;
  return { who, tense: m[1] === 'did' ? 'past' : 'present', link: m[3] as Feeling['link'], cause: m[4]! };
}

/**
 * What `records` say of how `asked.who` felt: the records stating it (by index) and the distinct feelings, or
 * undefined when none does. More than one distinct feeling means the question has no single answer there.
 */
export function feelingsAbout(
  records: readonly SourceRecord[],
  asked: Pick<Feeling, 'who' | 'link' | 'cause' | 'tense'>,
): { feelings: string[]; records: number[]; statements: Array<{ i: number; f: Feeling }> } | undefined {
  const key = keyOf(asked);
  const statements: Array<{ i: number; f: Feeling }> = [];
  const at: number[] = [];
  records.forEach((r, i) => {
    for (const f of feelingsOf(r)) {
      if (keyOf(f) !== key) continue;
      statements.push({ i, f });
      if (!at.includes(i)) at.push(i);
    }
  });
  if (!statements.length) return undefined;
  return { feelings: [...new Set(statements.map((s) => s.f.feeling))], records: at, statements };
}

/**
 * Single-hop "How did Ana feel after the storm?" from a feeling statement, when the whole history gives that
 * question one feeling (said once, or repeated alike), else undefined.
 */
export function feelingCandidate(ctx: RuleContext, f: Feeling): RuleCandidate | undefined {
  const said = feelingsAbout(ctx.graph.records, f);
  if (said?.feelings.length !== 1) return undefined;
  const records = said.records.map((k) => ctx.graph.records[k]!);
  return {
    type: 'single-hop',
    template: 'feeling',
    question: feelingQuestion(f),
    plan: plan(
      'single-hop',
      `how ${f.who} felt ${f.link} ${f.cause}`,
      f.feeling,
      'text',
      said.statements.map((s) => fact(ctx.graph.records[s.i]!, s.f.sentence, `${f.who} felt ${s.f.feeling} ${f.link} ${f.cause}`)),
      new Map(records.map((r) => [r.id, `${f.who} says how they felt`])),
      ['lookup'],
    ),
  };
}
