/**
 * Lexical gap on purpose. Real questions about a history often share no content word with the records that answer
 * them ("What pet does she have?" over "I adopted a puppy"), and those are the questions retrieval fails on; templated
 * questions copy the evidence's words. This rephrases a generated question away from its evidence: a word it shares
 * with the evidence becomes a WordNet synonym or hypernym the evidence does not use, and a person the history names
 * by relation ("my sister Ana") becomes that relation ("Caroline's sister"). The answer and evidence never change; the
 * blind reader must still recover the answer from the evidence, or the rephrased question is not kept.
 */
import pluralize from 'pluralize';
import type { SourceRecord } from '../../../sandbox/contract.ts';
import { stem, tokenize } from '../../text/text.ts';
import type { BlindReader } from '../blind-recovery.ts';
import { contentStems } from '../calibration.ts';
import type { Rng } from '../rng.ts';
import { posAt } from './nlp.ts';
import { createWordNetLexicon, type Lexicon, type LexPos, type Sense } from './wordnet.ts';

/** Version of the rephrasing rules, recorded with the runs that used them. */
export const LEXICAL_GAP = 'lexical-gap@4';

/**
 * The share of generated items whose question shares no content word with its evidence, by kind of history (see
 * gap-target.ts for why a share of the set and not of attempts). Calibrated on the development histories only: the
 * official questions of LoCoMo conv-26 and conv-30 (chats between two named people) share no content word with their
 * evidence in 16.2% of cases, those of RHELM Jonas_Richter and Justice_Arvind_Prakash_Mehra (a user talking to an
 * assistant, who asks about their own history in its words) in 1.7%. Held-out histories are reported, never tuned on.
 */
export const DEFAULT_GAP_TARGETS = { conversation: 0.16, userAssistant: 0.02 } as const;

/** The default no-overlap target of a history: {@link DEFAULT_GAP_TARGETS} by whether the user talks to an assistant. */
export function defaultGapTarget(userVoice: boolean): number {
  return userVoice ? DEFAULT_GAP_TARGETS.userAssistant : DEFAULT_GAP_TARGETS.conversation;
}

/** One word or name the rephrasing replaced. */
export interface GapChange {
  from: string;
  to: string;
  how: 'synonym' | 'hypernym' | 'role';
}

/** A rephrased question and what changed. */
export interface Rephrasing {
  question: string;
  changes: GapChange[];
}

// Hypernyms so general that a question using them no longer says what it asks about.
const TOO_GENERAL = new Set(
  (
    'entity,physical entity,abstraction,abstract entity,object,whole,thing,matter,physical object,unit,causal agent,cause,' +
    'psychological feature,attribute,relation,communication,measure,quantity,group,grouping,act,human action,' +
    'human activity,event,state,person,individual,someone,somebody,mortal,soul,organism,being,artifact,artefact,' +
    'location,content,cognitive content,mental object,instrumentality,instrumentation,activity,change,phenomenon,' +
    'natural phenomenon,physical phenomenon,process,physical process'
  ).split(','),
);

const RELATIONS =
  'sister|brother|mom|mother|mum|dad|father|husband|wife|son|daughter|partner|boyfriend|girlfriend|fiancé|fiance|fiancée|' +
  'best friend|friend|boss|colleague|coworker|co-worker|cousin|aunt|uncle|grandma|grandmother|grandpa|grandfather|niece|' +
  'nephew|roommate|neighbor|neighbour|manager|mentor|therapist|teacher|coach|kid|child';
const RELATION_RE = new RegExp(`\\b[Mm]y (${RELATIONS}),? ([A-Z][a-z]+)\\b`, 'g');

/**
 * People the history names by their relation to a speaker: "my sister Ana" said by Caroline makes Ana "Caroline's
 * sister". A name given two different relations is ambiguous and left out; speakers are never renamed.
 */
export function roleReferences(records: readonly SourceRecord[], speakers: ReadonlySet<string>): Map<string, string> {
  const found = new Map<string, Set<string>>();
  for (const r of records) {
    if (!r.speaker || /^(user|assistant)$/i.test(r.speaker)) continue;
    for (const m of r.text.matchAll(RELATION_RE)) {
      const name = m[2]!;
      if (speakers.has(name.toLowerCase())) continue;
      let set = found.get(name);
      if (!set) found.set(name, (set = new Set()));
      set.add(`${r.speaker}'s ${m[1]!.toLowerCase()}`);
    }
  }
  const out = new Map<string, string>();
  for (const [name, roles] of found) if (roles.size === 1) out.set(name, [...roles][0]!);
  return out;
}

/** What {@link rephraseQuestion} needs besides the question. */
export interface RephraseContext {
  lexicon: Lexicon;
  /** Named people → their role phrase ({@link roleReferences}). */
  roles: ReadonlyMap<string, string>;
  /** Lower-case words never replaced (speaker names). */
  keep: ReadonlySet<string>;
  rng: Rng;
}

const WORD = /[\p{L}][\p{L}'’-]*/gu;
// The templates' own phrasing ("talk about", "come up", "how many times"), the roles they name ("the assistant" is
// not "the adjunct") and words that stand for no particular thing ("ones", "stuff"): not what the question is about,
// and their WordNet senses are rarely the one meant.
const FRAME = new Set(
  (
    'talk talked talking mention mentioned mentioning bring brought come came passed day days time times many much ' +
    'user assistant ' +
    'conversation conversations session sessions say said tell told share shared reply replied ask asked right ' +
    'one ones thing things stuff lot lots bit kind kinds way ways something anything everything'
  ).split(' '),
);
const BASE_VERB_BEFORE = new Set(['did', 'does', 'do', 'to', 'will', 'can', 'would']);
// The particle of a phrasal verb: "pick up" is not "select up", "setting up" not "scene up". The verb before it keeps
// its word, since WordNet's senses of the bare verb (or of its -ing form as a noun) are not the phrase's.
const PARTICLE = new Set(['up', 'down', 'out', 'off', 'back', 'away', 'over', 'around', 'through', 'together', 'apart']);
const ORDER: readonly LexPos[] = ['noun', 'adjective', 'verb'];
// wink's part of speech of the word in the question, as WordNet's.
const WINK_POS: Record<string, LexPos> = { NOUN: 'noun', VERB: 'verb', ADJ: 'adjective' };

/**
 * A word's most frequent sense is only taken for the one meant when it clearly dominates the word's uses
 * ({@link Sense.share}): "trip" (0.84) and "room" (0.88) are safe to replace, "charge" (0.30: an onslaught, a
 * complaint, a fee …), "cup" (0.48) and "run" (0.35) are not. Verbs need more: their senses are finer and the object
 * picks among them, which the first sense does not see ("adopt", 0.66, is first "adopt a method": "adopt a puppy"
 * would become "follow a puppy"). Set by reading the rephrasings of the development histories' items ("When did I
 * travel rapidly into Marta Klein?" from "run into", "a strong dishware of java" from "a strong cup of coffee").
 */
export const CLEAR_SENSE: Readonly<Record<LexPos, number>> = { noun: 0.6, adjective: 0.6, verb: 0.75 };

function replaceable(lower: string, word: string, at: number, keep: ReadonlySet<string>, evidence: ReadonlySet<string>): boolean {
  if (at === 0 || word !== lower || lower.length < 3 || keep.has(lower) || FRAME.has(lower)) return false;
  return [...contentStems(lower)].some((s) => evidence.has(s));
}

/**
 * Replacement lemmas for a word from one sense: same-synset lemmas first, else the hypernym's (never a verb's: "run"
 * is not "travel rapidly"); everyday words only, none the evidence uses, and only words whose own most frequent
 * sense is that synset ("recipe" is not replaced by "formula", whose first sense is a chemical one, nor "agenda" by
 * "docket").
 */
async function alternatives(
  word: string,
  sense: Sense,
  pos: LexPos,
  evidence: ReadonlySet<string>,
  lexicon: Lexicon,
): Promise<{ words: string[]; how: 'synonym' | 'hypernym' }> {
  const own = stem(word);
  const fits = async (lemma: string, synset: readonly string[]): Promise<boolean> => {
    if (/[A-Z0-9]/.test(lemma) || lemma.split(' ').length > 2 || TOO_GENERAL.has(lemma) || !lexicon.familiar(lemma)) return false;
    const stems = [...contentStems(lemma)];
    if (!stems.length || stems.some((s) => s === own || evidence.has(s))) return false;
    const first = (await lexicon.senses(lemma, pos))[0];
    return first !== undefined && sameSynset(first.synonyms, synset);
  };
  const keep = async (lemmas: readonly string[]): Promise<string[]> => {
    const out: string[] = [];
    for (const l of lemmas) if (await fits(l, lemmas)) out.push(l);
    return out;
  };
  const synonyms = await keep(sense.synonyms);
  if (synonyms.length || pos === 'verb') return { words: synonyms, how: 'synonym' };
  return { words: await keep(sense.hypernyms), how: 'hypernym' };
}

function sameSynset(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/**
 * Rephrases `question` away from the words of `evidenceTexts`, or undefined when nothing could be replaced. Only
 * lower-case content words the evidence also uses are replaced (names, dates and the question word stay), and named
 * people are referred to by role when the history states one.
 */
export async function rephraseQuestion(
  question: string,
  answer: string,
  evidenceTexts: readonly string[],
  ctx: RephraseContext,
): Promise<Rephrasing | undefined> {
  const evidence = contentStems(evidenceTexts.join('\n'));
  // "Which vase …?" → "blue vase": the word naming the answer's kind stays, or the question asks for something else.
  const answerStems = contentStems(answer);
  const changes: GapChange[] = [];
  const parts: string[] = [];
  let last = 0;
  let previous = '';
  let before = '';
  let previousName = false;
  for (const m of question.matchAll(WORD)) {
    const word = m[0];
    const at = m.index;
    const lower = word.toLowerCase();
    let to: string | undefined;
    const role = ctx.roles.get(word);
    if (role && at > 0) {
      to = role;
      changes.push({ from: word, to, how: 'role' });
    } else if (replaceable(lower, word, at, ctx.keep, evidence) && ![...contentStems(lower)].some((x) => answerStems.has(x))) {
      // A word right before another word is a modifier ("sand castle"): only an adjective sense may stand in for it.
      const next = /^ ([\p{Ll}][\p{L}'’-]*)/u.exec(question.slice(at + word.length))?.[1];
      const phrasal = next !== undefined && PARTICLE.has(next);
      const modifier = next !== undefined && contentStems(next).size > 0;
      // A base-form verb slot: right after "did" or "to", or after "did <name>"; only there is a verb replaced.
      const verbSlot: boolean = BASE_VERB_BEFORE.has(previous) || (previousName && BASE_VERB_BEFORE.has(before));
      // A noun before "of" is a measure ("a cup of coffee", "a stretch of road"), not the thing its first sense names.
      const measure = !verbSlot && next === 'of';
      const slot: readonly LexPos[] = phrasal || measure ? [] : modifier ? ['adjective'] : verbSlot ? ['verb'] : ['noun', 'adjective'];
      // Outside a verb slot the word's part of speech must agree with how wink reads it in the question ("simple" in
      // "the simple Gantt-style plan" is an adjective, never the herb). In a verb slot the slot decides: wink's light
      // model reads the verb after "did <name>" as a noun ("did Tom purchase").
      const tagged = WINK_POS[posAt(question, at) ?? ''];
      const order: readonly LexPos[] = verbSlot ? slot : slot.filter((pos) => pos === tagged);
      for (const pos of order) {
        const sense: Sense | undefined = (await ctx.lexicon.senses(lower, pos))[0];
        if (!sense) continue;
        if (sense.share < CLEAR_SENSE[pos]) break;
        const alt = await alternatives(lower, sense, pos, evidence, ctx.lexicon);
        if (!alt.words.length) break;
        let pick = ctx.rng.pick(alt.words.slice(0, 3));
        // A plural noun stays plural: the lemma was found by stripping its ending.
        if (pos === 'noun' && !sense.synonyms.includes(lower) && lower.endsWith('s')) pick = pluralize.plural(pick);
        to = pick;
        changes.push({ from: word, to, how: alt.how });
        break;
      }
    }
    if (to !== undefined) {
      parts.push(question.slice(last, at), to);
      last = at + word.length;
    }
    before = previous;
    previous = lower;
    previousName = at > 0 && (ctx.keep.has(lower) || /^\p{Lu}/u.test(word));
  }
  if (!changes.length) return undefined;
  parts.push(question.slice(last));
  return { question: fixArticles(parts.join('')), changes };
}

/** "a apple" → "an apple" and back, after a replacement changed the noun's first sound. */
function fixArticles(text: string): string {
  return text.replace(/\b([Aa])n? ([\p{L}]+)/gu, (all, a: string, next: string) => {
    if (!/^an? /i.test(all)) return all;
    const vowel = /^[aeiou]/i.test(next) && !/^(uni|use|usu|one|eu)/i.test(next);
    return `${a}${vowel ? 'n' : ''} ${next}`;
  });
}

/**
 * Words a reader may take for a question's words: each content word's synonyms and direct hyponyms (its more
 * specific kinds). A rephrased question is read with these, as a reader who knows the language would.
 */
export async function expansionWords(question: string, lexicon: Lexicon, keep: ReadonlySet<string>): Promise<string[]> {
  const own = new Set(tokenize(question));
  const out = new Set<string>();
  for (const word of own) {
    if (word.length < 3 || keep.has(word) || contentStems(word).size === 0) continue;
    for (const pos of ORDER) {
      for (const sense of await lexicon.senses(word, pos)) {
        for (const lemma of [...sense.synonyms, ...sense.hyponyms]) {
          for (const w of tokenize(lemma)) if (!own.has(w) && contentStems(w).size) out.add(w);
        }
      }
    }
  }
  return [...out];
}

/** A blind reader that reads a question together with its {@link expansionWords}; the gate for rephrased questions. */
export function createExpandingReader(base: BlindReader, lexicon: Lexicon, keep: ReadonlySet<string>): BlindReader {
  return {
    name: `${base.name}+${lexicon.name}`,
    async read(input) {
      const extra = await expansionWords(input.question, lexicon, keep);
      if (!extra.length) return base.read(input);
      return base.read({ ...input, question: `${input.question.replace(/\?\s*$/, '')} (${extra.join(' ')})?` });
    },
  };
}

/** Options of {@link createLexicalGap}. */
export interface LexicalGapOptions {
  /**
   * Share of the items that should share no content word with their evidence (default {@link defaultGapTarget} of
   * the history); applied to the whole set by gap-target.ts.
   */
  target?: number;
  /** Default: WordNet (createWordNetLexicon). */
  lexicon?: Lexicon;
}

/** The offline generator's rephrasing step: which candidates, how, and the reader that gates them. */
export interface LexicalGap {
  /** The no-overlap share the set is brought down to (gap-target.ts). */
  target: number;
  /** The candidate question rephrased against its evidence records, or undefined when nothing could change. */
  rephrase(question: string, answer: string, evidence: readonly string[], rng: Rng): Promise<Rephrasing | undefined>;
  /** The blind reader for rephrased questions: the generator's reader, reading with expansion words. */
  reader: BlindReader;
}

/** Lexical gap over a history's records: role references from the history, WordNet for the words. */
export function createLexicalGap(
  records: readonly SourceRecord[],
  speakers: ReadonlySet<string>,
  reader: BlindReader,
  userVoice: boolean,
  options: LexicalGapOptions = {},
): LexicalGap {
  const lexicon = options.lexicon ?? createWordNetLexicon();
  const roles = roleReferences(records, speakers);
  const text = new Map(records.map((r) => [r.id, r.text]));
  return {
    target: options.target ?? defaultGapTarget(userVoice),
    rephrase: (question, answer, evidence, rng) =>
      rephraseQuestion(
        question,
        answer,
        evidence.map((id) => text.get(id) ?? ''),
        { lexicon, roles, keep: speakers, rng },
      ),
    reader: createExpandingReader(reader, lexicon, speakers),
  };
}

/**
 * The evidence words a question should not copy: the content words of the plan's quotes, minus names the history is
 * about (`keep`, lower case) and the answer's own words. For the LLM questioner's lexical-gap request.
 */
export function wordsToAvoid(quotes: readonly string[], answer: string, keep: ReadonlySet<string>, max = 12): string[] {
  const answerStems = contentStems(answer);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of quotes.join('\n').matchAll(WORD)) {
    const word = m[0];
    const lower = word.toLowerCase();
    if (word !== lower || lower.length < 3 || keep.has(lower)) continue;
    const stems = [...contentStems(lower)];
    if (!stems.length || stems.some((s) => answerStems.has(s) || seen.has(s))) continue;
    for (const s of stems) seen.add(s);
    out.push(lower);
    if (out.length >= max) break;
  }
  return out;
}
