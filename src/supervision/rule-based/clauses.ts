import type { SourceRecord } from '../../../sandbox/contract.ts';
import { analyse, type NlpSentence, type NlpToken } from './nlp.ts';
import { roleRange, whoAt } from './speakers.ts';
import { isVerb, needsObject } from './verb-frames.ts';
import { lemmaCandidates, wordClasses } from './wordnet.ts';

/**
 * A first-person statement of a speaker about themselves: "I painted a sunrise", "I've been researching adoption
 * agencies", "I love pottery". The question families ask about these, because they are facts about the person
 * rather than about the words of the conversation.
 */
export interface Clause {
  /** Who said it, as questions name them ("Caroline", "the user"). */
  who: string;
  /** The main verb's lemma ("paint"), with the -ing verb a catenative verb takes ("start playing"). */
  lemma: string;
  verb: NlpToken;
  /**
   * past: "I painted"; perfect: "I've painted", "I have been painting"; present (a habit or a liking): "I love",
   * "I play"; progressive (under way when said): "I'm reading".
   */
  tense: 'past' | 'perfect' | 'present' | 'progressive';
  /** For "My favorite book is …" (lemma "be"): the attribute, "favorite book". */
  attribute?: string;
  /** A preposition or particle the verb takes before its object ("to" in "went to a support group"), or ''. */
  prep: string;
  /** The object as said, without a leading article ("sunrise", "adoption agencies", "painting landscapes"). */
  object: string;
  /** The object's lemma-level head ("sunrise", "agency"), for matching the same thing across clauses. */
  head: string;
  /** The object's determiner ("a", "the", "my", …) or '' when it had none. */
  determiner: string;
  sentence: NlpSentence;
}

/** Verbs that say how the speaker thinks or talks, or that carry no event of their own. */
const LIGHT = new Set(
  (
    'be have do get think know feel mean guess want hope say tell need wish try let thank agree bet remember understand ' +
    'believe end talk chat speak hear appreciate imagine suppose realize realise find keep use give take put seem look sound call ask ' +
    'miss wonder reckon admit promise plan expect manage help continue become'
  ).split(' '),
);
/** Heads too general to be a fact about anyone ("a lot", "the idea", "some time"). */
export const GENERIC_HEADS: ReadonlySet<string> = new Set(
  (
    'thing things stuff lot lots time times way ways idea ideas bit kind sort part parts day days moment moments fun one ' +
    'something anything everything nothing people someone everyone chance opportunity place world life year week month ' +
    'today tonight yesterday tomorrow morning night evening lot experience feeling feelings sense reason point end word words ' +
    'chunk bunch couple handful self structure afternoon hour minute while stretch detail details'
  ).split(' '),
);
const DETERMINERS = new Set(['a', 'an', 'the', 'my', 'our', 'some', 'this', 'that', 'these', 'those', 'his', 'her', 'their', 'your']);
const TIME_WORDS = new Set(['yesterday', 'today', 'tonight', 'tomorrow', 'week', 'weekend', 'month', 'year', 'morning', 'night']);
/** Verbs that take another verb's -ing form as their object: "I started playing guitar" asks "start playing". */
const CATENATIVE = new Set(['start', 'begin', 'keep', 'try', 'stop', 'quit', 'finish', 'continue']);
const PREPS = new Set(['to', 'for', 'in', 'at', 'on', 'with', 'up', 'out', 'into', 'from']);
/** Verbs whose present tense states a lasting preference ("I love pottery"). */
export const PREFERENCE_VERBS: ReadonlySet<string> = new Set(['love', 'enjoy', 'like', 'adore']);

/** The object noun phrase starting at token `k` of `toks`: [first, last] indexes and its head, or undefined. */
export function objectAt(toks: readonly NlpToken[], k: number): { from: number; to: number; det: string; head: NlpToken } | undefined {
  let i = k;
  let determiner = '';
  const sconj = toks[i]?.pos === 'SCONJ' && toks[i + 1]?.pos === 'NOUN';
  const det = toks[i]?.pos === 'DET' && !/^(?:no|every|all|any|each)$/i.test(toks[i]!.text);
  if (toks[i] && (sconj || det || (toks[i]!.pos === 'PRON' && DETERMINERS.has(toks[i]!.lemma)))) {
    determiner = toks[i]!.text.toLowerCase();
    i++;
  }
  const from = i;
  // A gerund object ("painting landscapes") or adjectives then nouns ("new adoption agencies").
  if (toks[i]?.pos === 'VERB' && /ing$/i.test(toks[i]!.text) && !determiner) i++;
  else while (toks[i]?.pos === 'ADJ') i++;
  // "a support group yesterday": the time word is not part of the thing.
  while (toks[i] && (toks[i]!.pos === 'NOUN' || toks[i]!.pos === 'PROPN') && !TIME_WORDS.has(toks[i]!.lemma)) {
    i++;
    // wink splits a hyphenated compound ("stir-fry", "follow-up"): the word after an unspaced hyphen belongs to it.
    while (toks[i]?.text === '-' && toks[i + 1] && toks[i]!.start === toks[i - 1]!.end && toks[i + 1]!.start === toks[i]!.end) i += 2;
  }
  const to = i - 1;
  if (to < from) return undefined;
  const last = toks[to]!;
  // "painting" alone is a gerund head; otherwise the head must be a noun.
  if (last.pos !== 'NOUN' && last.pos !== 'PROPN' && !(last.pos === 'VERB' && to === from)) return undefined;
  // "a picture of the lake": the "of" phrase belongs to the object.
  if (toks[i]?.lemma === 'of' && toks[i]?.pos === 'ADP') {
    const more = objectAt(toks, i + 1);
    if (more && !more.det.startsWith('m')) return { from, to: more.to, det: determiner, head: last };
  }
  return { from, to, det: determiner, head: last };
}

/** Adjectives that start a time phrase after the object ("visited the beach last week"), not a longer noun. */
const TIME_ADJ = new Set(['last', 'next', 'past', 'previous', 'early', 'late']);

/**
 * Whether the object read up to token `to` stops short of what the sentence says. wink tags a word inside a compound
 * noun as a verb or adjective ("a lemon-mint iced tea", "dustproof camera covers", "the screen sharing glitch") or
 * splits off a possessive ("Frau Becker's Hamburg insights"), so the object ends on a modifier ("steeped a lemon-mint");
 * after a perception verb the "object" is the subject of a clause ("noticed Leila was already inside"). Such a clause
 * is not read at all: a question asked of half a phrase is one no one would ask.
 */
export function cutShort(toks: readonly NlpToken[], to: number): boolean {
  const next = toks[to + 1];
  if (!next) return false;
  const after = toks[to + 2];
  const noun = (t: NlpToken | undefined) => (t?.pos === 'NOUN' || t?.pos === 'PROPN') && !TIME_WORDS.has(t.lemma);
  if (next.pos === 'AUX') return true;
  // "left the store carrying bags" is lost with "the screen sharing glitch"; "spent the morning reading" stays.
  if (next.pos === 'VERB') return !/ing$/i.test(next.text) || noun(after) || TIME_WORDS.has(after?.lemma ?? '');
  if (next.pos === 'PART') return /^['’]s$/i.test(next.text);
  // "left the rest of our shopping unfinished": the adjective says what became of the object, and the event is lost.
  if (next.pos === 'ADJ') return !TIME_ADJ.has(next.lemma) && (noun(after) || !after || after.pos === 'PUNCT' || after.pos === 'CCONJ');
  // "handed Frau Lehmann a stack of flyers", "spent some time refining the draft", "noticed that annotating these
  // passages …": a second object follows, and it is the thing (or the noun was a verb); "met Leila this morning",
  // "called Tom the other day" end in a time phrase instead. "That" after a noun opens a relative clause.
  if (next.pos === 'DET') return !timePhraseAt(toks, to + 2) && /^(?:a|an|the|some|this|these|those)$/i.test(next.text);
  // "gave Tom my old bike": a possessive opens the second object; "read the report my sister wrote" a relative clause.
  if (next.pos === 'PRON' && /^(?:my|our|his|her|their|your)$/i.test(next.text)) {
    let k = to + 2;
    while (toks[k]?.pos === 'ADJ') k++;
    if (!noun(toks[k])) return false;
    while (noun(toks[k])) k++;
    return !['VERB', 'AUX', 'ADV'].includes(toks[k]?.pos ?? '');
  }
  // A bare gerund ("relying on guesswork", "expressing myself") has an object of its own after it.
  if (toks[to]!.pos === 'VERB' && /ing$/i.test(toks[to]!.text)) {
    if (next.pos === 'PRON') return true;
    if (next.pos === 'ADP') return isVerb(`${toks[to]!.lemma} ${next.lemma}`);
  }
  // "LGBTQ+ pride parade": a symbol glued to the last word belongs to it.
  return next.pos === 'SYM' && next.start === toks[to]!.end;
}

/** Nouns that end a time phrase ("this morning", "the other day", "a few minutes later"), not a thing. */
const TIME_NOUNS = new Set([
  ...TIME_WORDS,
  ...'day days afternoon evening hour hours minute minutes while moment time spring summer autumn fall winter'.split(' '),
  ...'monday tuesday wednesday thursday friday saturday sunday'.split(' '),
]);

/** Whether the noun phrase from token `k` (after its determiner) is a time phrase: adjectives, then a time noun. */
function timePhraseAt(toks: readonly NlpToken[], k: number): boolean {
  let i = k;
  while (toks[i]?.pos === 'ADJ' || toks[i]?.pos === 'NUM') i++;
  return TIME_NOUNS.has(toks[i]?.lemma ?? '') || TIME_NOUNS.has(toks[i]?.text.toLowerCase() ?? '');
}

/**
 * Whether the pronoun at `k` opens a relative clause on the object just before it ("pointed out a tactical oversight I
 * made mid-game", "loved the bread I picked up"): its object is that noun, and what follows the verb is not one.
 * A fronted place or time ("At the market I bought apples") has no verb before its noun phrase.
 */
function relativeClauseAt(toks: readonly NlpToken[], k: number): boolean {
  let i = k - 1;
  if (toks[i]?.pos !== 'NOUN' && toks[i]?.pos !== 'PROPN') return false;
  if (TIME_NOUNS.has(toks[i]!.lemma)) return false;
  while (toks[i]?.pos === 'NOUN' || toks[i]?.pos === 'PROPN' || toks[i]?.pos === 'ADJ') i--;
  if (toks[i]?.pos === 'DET' || (toks[i]?.pos === 'PRON' && DETERMINERS.has(toks[i]!.lemma))) i--;
  if (toks[i]?.pos === 'ADP' && toks[i - 1]?.pos === 'VERB') i--;
  // "it's a principle I've always considered foundational": after a copula the noun is named, then described.
  return toks[i]?.pos === 'VERB' || toks[i]?.pos === 'AUX' || (toks[i]?.pos === 'PART' && /^['’]s$/.test(toks[i]!.text));
}

/** First-person clauses of one sentence, said by `who`. */
export function clausesOfSentence(s: NlpSentence, who: string): Clause[] {
  const out: Clause[] = [];
  // "Have I told you I painted …?" asks; it does not state.
  if (s.text.endsWith('?')) return out;
  const t = s.tokens;
  for (let k = 0; k < t.length; k++) {
    // "We made our own pots": the speaker took part, so it is a fact about them too.
    if (t[k]!.pos !== 'PRON' || (t[k]!.text !== 'I' && !/^we$/i.test(t[k]!.text)) || relativeClauseAt(t, k)) continue;
    let j = k + 1;
    const aux: NlpToken[] = [];
    let negated = false;
    while (j < t.length && (t[j]!.pos === 'AUX' || t[j]!.pos === 'ADV' || t[j]!.pos === 'PART')) {
      // "I have to paint the fence" is an obligation, not the perfect; "I had to rely on gestures" says it was done.
      if (t[j]!.pos === 'AUX' || /^to$/i.test(t[j]!.text)) aux.push(t[j]!);
      if (/^(not|n't|never)$/i.test(t[j]!.text)) negated = true;
      j++;
    }
    const v = t[j];
    if (v?.pos !== 'VERB' || negated || LIGHT.has(v.lemma) || !/^[a-z]+$/.test(v.lemma)) continue;
    // wink leaves a verb it does not know uninflected ("we reframed" → "reframed"): no question could be put in it.
    if (/ed$/.test(v.lemma) && v.lemma === v.text.toLowerCase()) continue;
    let tense: Clause['tense'];
    const auxLemmas = aux.map((a) => a.lemma);
    if (aux.length === 2 && /^had$/i.test(aux[0]!.text) && auxLemmas[1] === 'to') tense = 'past';
    else if (!aux.length) tense = v.text.toLowerCase() === v.lemma ? 'present' : /(?:s|ing)$/i.test(v.text) ? 'present' : 'past';
    else if (auxLemmas[0] === 'have' && auxLemmas.every((a) => a === 'have' || a === 'be')) {
      // "I've been blessed with …" is passive: nothing the speaker did.
      if (auxLemmas.includes('be') && !/ing$/i.test(v.text)) continue;
      tense = 'perfect';
    } else if (auxLemmas.length === 1 && auxLemmas[0] === 'do' && /^did$/i.test(aux[0]!.text)) tense = 'past';
    else if (auxLemmas.length === 1 && /^(?:am|'m|’m|are|'re|’re)$/i.test(aux[0]!.text) && /ing$/i.test(v.text) && v.lemma !== 'go')
      tense = 'progressive';
    else continue; // modals, "I'm going to", "I was …" (not a fact of its own)
    // "went to a support group", "signed up for a class": the verb's preposition stays with it.
    let at = j + 1;
    let lemma = v.lemma;
    if (CATENATIVE.has(v.lemma) && t[at]?.pos === 'VERB' && /ing$/i.test(t[at]!.text)) lemma = `${v.lemma} ${t[at++]!.text.toLowerCase()}`;
    const preps: string[] = [];
    while (preps.length < 2 && t[at] && (t[at]!.pos === 'ADP' || t[at]!.pos === 'PART') && PREPS.has(t[at]!.lemma))
      preps.push(t[at++]!.lemma);
    if (tense === 'present' && preps.length) continue;
    const o = objectAt(t, at);
    if (!o || cutShort(t, o.to)) continue;
    // "suggested to Advocate Neelam Singh we discuss …": after a preposition, the clause that follows is what was said
    // or done; after a direct object, a phrasal verb's too, it only says which one ("brought up the dissenting opinion
    // I'd been reflecting on").
    const clauseAfter = t[o.to + 1]?.pos === 'PRON' && /^(?:I|we|he|she|they)$/i.test(t[o.to + 1]!.text);
    if (clauseAfter && preps.length && !isVerb(`${lemma} ${preps.join(' ')}`)) continue;
    const head = o.head.lemma;
    // "I love having …", "I spent a good chunk of …": no thing of its own.
    if (LIGHT.has(o.head.lemma) && o.head.pos === 'VERB') continue;
    if (GENERIC_HEADS.has(head) || GENERIC_HEADS.has(o.head.text.toLowerCase()) || head.length < 3) continue;
    if (o.head.pos === 'NOUN' && adjectiveOnly(o.head.text)) continue;
    if (lostObject(lemma, preps)) continue;
    const object = s.text.slice(t[o.from]!.start - s.start, t[o.to]!.end - s.start);
    out.push({ who, lemma, verb: v, tense, prep: preps.join(' '), object, head, determiner: o.det, sentence: s });
  }
  out.push(...attributesOf(s, who));
  return out;
}

/**
 * Whether WordNet knows a word wink tagged as a noun only as an adjective ("these quieter, unhurried meals", "a
 * principle I've considered foundational"): the head of a phrase cut short, not a thing. A word WordNet does not know
 * ("AeroPress") is left to wink.
 */
function adjectiveOnly(word: string): boolean {
  const w = word.toLowerCase();
  if (lemmaCandidates(w, 'noun').some((l) => wordClasses(l).noun !== undefined)) return false;
  return lemmaCandidates(w, 'adjective').some((l) => wordClasses(l).adjective !== undefined);
}

/**
 * Whether a verb read with only a preposition phrase has lost its object to a relative clause ("the progress I made
 * at the archives" read as "I made at the archives", "the bread I picked up at the market"): the verb, or the
 * phrasal verb its particle makes, needs a direct object (WordNet's frames), and with the preposition it makes no
 * verb of its own ("look at", "catch up with" take their object after it).
 */
function lostObject(lemma: string, preps: readonly string[]): boolean {
  if (!preps.length || isVerb(`${lemma} ${preps.join(' ')}`)) return false;
  if (preps.length === 2 && isVerb(`${lemma} ${preps[0]}`)) return needsObject(`${lemma} ${preps[0]}`);
  return needsObject(lemma);
}

/** "My favorite book is Charlotte's Web" → attribute "favorite book", object "Charlotte's Web". */
function attributesOf(s: NlpSentence, who: string): Clause[] {
  const out: Clause[] = [];
  const t = s.tokens;
  for (let k = 0; k < t.length; k++) {
    if (t[k]!.lemma !== 'my' || (k > 0 && t[k - 1]!.pos !== 'PUNCT' && t[k - 1]!.pos !== 'CCONJ')) continue;
    let m = k + 1;
    while (t[m]?.pos === 'ADJ') m++;
    const nounFrom = m;
    while (t[m]?.pos === 'NOUN') m++;
    if (m === nounFrom || m - (k + 1) > 3) continue;
    const be = t[m];
    if (be?.pos !== 'AUX' || be.lemma !== 'be' || !/^(?:is|was|'s|’s)$/i.test(be.text)) continue;
    if (t[m + 1] && /^(?:not|n't|so|really|very|just|like)$/i.test(t[m + 1]!.text)) continue;
    const o = objectAt(t, m + 1);
    if (!o || POSSESSIVE_DET.has(o.det) || cutShort(t, o.to)) continue;
    const last = t[m - 1]!;
    if (GENERIC_HEADS.has(last.lemma)) continue;
    const attribute = s.text.slice(t[k + 1]!.start - s.start, last.end - s.start).toLowerCase();
    const object = s.text.slice(t[o.from]!.start - s.start, t[o.to]!.end - s.start);
    const past = /^was$/i.test(be.text);
    out.push({
      who,
      lemma: 'be',
      verb: be,
      tense: past ? 'past' : 'present',
      attribute,
      prep: '',
      object,
      head: o.head.lemma,
      determiner: o.det,
      sentence: s,
    });
  }
  return out;
}

const POSSESSIVE_DET = new Set(['my', 'our', 'his', 'her', 'their', 'your']);

const cache = new WeakMap<SourceRecord, Clause[]>();

/**
 * The first-person clauses of a record, each with its speaker (either half of a "User: … / Assistant: …" turn).
 * Cached per record object: the generator and the blind reader both ask for the same records many times.
 */
export function clausesOf(r: SourceRecord): Clause[] {
  let out = cache.get(r);
  if (!out) cache.set(r, (out = clausesOfRecord(r)));
  return out;
}

function clausesOfRecord(r: SourceRecord): Clause[] {
  if (r.kind !== 'turn' && r.kind !== 'email' && r.kind !== 'note') return [];
  const out: Clause[] = [];
  const who = r.text.startsWith('User: ') ? 'the user' : whoAt(r, 0);
  if (!who || who === 'the assistant') return [];
  const [from, to] = roleRange(r, who);
  // Only the speaker's own part is analysed (an assistant's long reply holds no fact about the user).
  for (const s of analyse(r.text.slice(from, to), from)) out.push(...clausesOfSentence(s, who));
  return out;
}
