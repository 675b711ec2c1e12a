import { recordDate } from '../bundles.ts';
import type { Rng } from '../rng.ts';
import { recordsWithAll, tokensIn } from './cues.ts';
import type { Sentence } from './facts.ts';
import { posAt } from './nlp.ts';
import { whoAt } from './speakers.ts';
import { MONTH_NAMES, WEEKDAY_NAMES } from '../../text/date-parse.ts';
import { inTimeScope, nounPhrases, type Phrase, type TimeScope } from './phrases.ts';
import type { RuleContext } from './rule-context.ts';

/**
 * What a user remembers about a passage: a short phrase of it, who said it, and roughly when. The phrase need
 * not single out one record of the whole history by its words (that makes lexical retrieval trivial); together
 * with the speaker and the time it must pin down the evidence, so the reference answer is unique.
 */
export interface Gist {
  phrase: Phrase;
  /** How the question places the passage in time. */
  scope: TimeScope;
  /** Records in scope (same kind, speaker when named, time) whose words contain the phrase's. */
  matches: number[];
  /** Records anywhere in the history containing the phrase's words: > 1 means the words alone are ambiguous. */
  global: number;
}

/** Options of {@link pickGist}. */
export interface GistOptions {
  /** The question names the speaker (who-said questions do not: the speaker is their answer). */
  bySpeaker: boolean;
  /** Time scopes the question may use, least precise first. `any` alone when the answer is the date. */
  scopes: readonly TimeScope[];
  /** Offsets of the answer in the record: phrases never overlap it. */
  avoid?: { start: number; end: number };
  /** Stems never used (answer words, speaker names). */
  exclude?: ReadonlySet<string>;
  /** The records in scope that match must satisfy this (default: exactly the record itself). */
  accept?: (matches: number[]) => boolean;
  /** Only phrases this accepts are considered (e.g. "shared with the other record"). */
  filter?: (p: Phrase) => boolean;
  /** Phrases must lie inside this part of the text (default the sentence). */
  within?: Pick<Sentence, 'start' | 'end'>;
}

const MAX_WORD_SHARE = 0.12;

/** Most records a phrase's words may each be in (a word in more of them names nothing in particular). */
export function maxPhraseDf(records: number): number {
  return Math.max(6, Math.floor(records * MAX_WORD_SHARE));
}

/** Who a question says said the text of record `i` at `offset` (see whoAt), as a stable key for scoping. */
export function speakerKey(ctx: RuleContext, i: number, offset: number): string | undefined {
  return whoAt(ctx.graph.records[i]!, offset);
}

/**
 * Records of the same kind as record `i` (same document for a document section) where `who` said words with
 * every stem of `stems`, within the time scope around record `i`'s date.
 */
export function scopedMatches(ctx: RuleContext, i: number, stems: readonly string[], who: string | undefined, scope: TimeScope): number[] {
  const r = ctx.graph.records[i]!;
  const anchor = recordDate(r);
  return recordsWithAll(ctx.postings, stems).filter((k) => {
    const o = ctx.graph.records[k]!;
    if (o.kind !== r.kind) return false;
    if (r.kind === 'document' && ctx.graph.threadOf[k] !== ctx.graph.threadOf[i]) return false;
    if (!inTimeScope(scope, anchor, recordDate(o))) return false;
    if (who === undefined) return true;
    return ctx.saidBy(k, who, stems);
  });
}

/** A month's or weekday's name, singular or plural ("June", "Thursdays"). */
const DATE_NAME = `(?:${[...MONTH_NAMES, ...WEEKDAY_NAMES].join('|')})s?`;
const HAS_DATE_NAME = new RegExp(`\\b${DATE_NAME}\\b`);
const ONLY_DATE_NAME = new RegExp(`^${DATE_NAME}$`);

/**
 * Whether a phrase names a month or a weekday ("June", "Thursdays"): that is when something was said, not what,
 * so it names no topic ("After the user talked about June on June 12, …"); a gist never does.
 */
export function namesADate(phrase: string): boolean {
  return HAS_DATE_NAME.test(phrase);
}

/** Whether a phrase is only a month's or a weekday's name ("Saturday", "Mondays"): it says when, never what. */
export function namesOnlyADate(phrase: string): boolean {
  return ONLY_DATE_NAME.test(phrase);
}

/**
 * Picks a phrase of sentence `s` of record `i` and the least precise time scope that makes its match unique,
 * preferring phrases whose words also occur elsewhere in the history (a real question's words rarely select
 * one record on their own). Undefined when no phrase works.
 */
export function pickGist(ctx: RuleContext, i: number, s: Pick<Sentence, 'start' | 'end'>, rng: Rng, o: GistOptions): Gist | undefined {
  const r = ctx.graph.records[i]!;
  const within = o.within ?? s;
  const who = o.bySpeaker ? speakerKey(ctx, i, s.start) : undefined;
  const accept = o.accept ?? ((m: number[]) => m.length === 1 && m[0] === i);
  const maxDf = maxPhraseDf(ctx.graph.records.length);
  const cands: Array<{ g: Gist; w: number }> = [];
  for (const p of nounPhrases(r.text, within, ctx.nounUsage, o.avoid)) {
    if (p.stems.some((t) => o.exclude?.has(t) || ctx.speakerStems.has(t)) || namesADate(p.text)) continue;
    const dfs = p.stems.map((t) => ctx.postings.get(t)?.length ?? 0);
    if (dfs.some((d) => d === 0 || d > maxDf)) continue;
    if (o.filter && !o.filter(p)) continue;
    // The history's noun usage is word-wide; here the phrase must end on a noun: "the psychological", "the weather
    // shapes" and "the success underscores" name nothing one talked about.
    if (!endsOnNoun(r.text, p)) continue;
    const global = recordsWithAll(ctx.postings, p.stems);
    for (const scope of o.scopes) {
      const matches = scopedMatches(ctx, i, p.stems, who, scope);
      if (!matches.includes(i)) break;
      if (!accept(matches)) continue;
      const g = global.length;
      // Words shared with other records, few of them, and no more time detail than needed.
      // Lexical retrieval keys on the rarest word of the question: that word's spread is what makes it vague.
      const w =
        ambiguityWeight(Math.min(...dfs), ctx.shortRecords) *
        (p.words.length === 1 ? 1.2 : p.words.length === 2 ? 1 : 0.5) *
        (scope === 'day' ? 0.7 : 1);
      cands.push({ g: { phrase: p, scope, matches, global: g }, w });
      break;
    }
  }
  if (!cands.length) return undefined;
  let sum = cands.reduce((a, c) => a + c.w, 0) * rng.next();
  for (const c of cands) if ((sum -= c.w) < 0) return c.g;
  return cands[cands.length - 1]!.g;
}

/** Whether wink tags the phrase's last word a noun in its sentence (true when it cannot place the word). */
export function endsOnNoun(text: string, p: Phrase): boolean {
  const pos = posAt(text, p.words[p.words.length - 1]!.start);
  return pos === undefined || pos === 'NOUN' || pos === 'PROPN';
}

/**
 * Preference for a phrase by how many records of the history contain its rarest word: a few others (the question's
 * words alone are ambiguous, as a real question's are) over only this one (retrieval becomes a lookup of a rare
 * word) or dozens (the question leans on its speaker and date alone).
 */
export function ambiguityWeight(global: number, shortRecords: boolean): number {
  if (global <= 1) return 0.5;
  // With short records (chat turns) a word found in fewer than ten of them still puts its record in any top
  // ten; a gist is only as vague as a user's memory when its words are shared more widely.
  const [lo, hi] = shortRecords ? [10, 40] : [2, 8];
  if (global < lo) return 1;
  if (global <= hi) return 2;
  return global <= hi * 2 ? 1 : 0.4;
}

/** Stems of a text (for excluding an answer's words from a question). */
export function stemsOf(text: string): Set<string> {
  return new Set(tokensIn(text).map((t) => t.stem));
}
