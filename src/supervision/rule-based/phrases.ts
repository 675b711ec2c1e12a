import { isStopword } from '../../text/text.ts';
import { isTopicWord, tokensIn, type Token } from './cues.ts';
import type { Sentence } from './facts.ts';

/**
 * A short noun phrase of a sentence ("the choir concert", "evening class"): how a question names what the
 * evidence talks about, in the evidence's own words instead of a bag of cue words.
 */
export interface Phrase {
  /** The phrase as a question writes it, with "the" when the source had a determiner. */
  text: string;
  /** Its content words (1–3), in order. */
  words: Token[];
  stems: string[];
  start: number;
  end: number;
}

// Words after which a run of content words is a noun phrase ("a/the/my …", "to/for/about …").
const OPENERS = new Set([
  'a',
  'an',
  'the',
  'my',
  'our',
  'your',
  'his',
  'her',
  'their',
  'this',
  'that',
  'these',
  'those',
  'some',
  'any',
  'of',
  'for',
  'in',
  'on',
  'at',
  'with',
  'about',
  'from',
  'into',
  'new',
  'first',
  'own',
]);
const DETERMINERS = new Set(['a', 'an', 'the', 'my', 'our', 'your', 'his', 'her', 'their', 'this', 'that', 'these', 'those']);
// Words that look like content but head no noun phrase a person would ask about.
const NOT_NOUN = new Set([
  'went',
  'came',
  'took',
  'made',
  'got',
  'saw',
  'felt',
  'found',
  'gave',
  'kept',
  'told',
  'said',
  'thought',
  'bought',
  'brought',
  'tried',
  'doing',
  'going',
  'getting',
  'being',
  'having',
  'trying',
  'seeing',
  'making',
  'taking',
  'able',
  'ready',
  'sorry',
  'proud',
  'super',
  'sure',
  'true',
  'real',
  'such',
  'other',
  'another',
  'more',
  'most',
  'less',
  'same',
  'different',
  'whole',
  'every',
  'each',
  'last',
  'next',
  'yesterday',
  'today',
  'tonight',
  'tomorrow',
  'morning',
  'weekend',
  'week',
  'month',
  'year',
  'ago',
  'lately',
  'recently',
  'soon',
  'again',
  'here',
  'there',
  'where',
  'everywhere',
  'together',
  'alone',
  'inside',
  'outside',
  'around',
  'away',
  'back',
  'down',
  'since',
  'though',
  'although',
  'because',
  'however',
  'instead',
  'else',
  'enough',
  'quite',
  'rather',
  'already',
  'yet',
  'ever',
  'almost',
  'indeed',
  'sudden',
  'while',
  'bit',
  'either',
  'neither',
  'anymore',
  'least',
  'lot',
  'few',
  'several',
  'certain',
  'various',
  'such',
]);

/**
 * How a history uses its words: a word that follows a determiner ("the", "my", "a new …") often enough is a noun
 * or an adjective there, so it can sit in a noun phrase; a phrase must end in such a word.
 */
export function nounUsage(texts: Iterable<string>): (lower: string) => 'head' | 'modifier' | undefined {
  // After a determiner, a noun is usually followed by punctuation or a function word ("the walk with"), an
  // adjective by another content word ("a peaceful morning").
  const head = new Map<string, number>();
  const modifier = new Map<string, number>();
  const total = new Map<string, number>();
  const tokenised: string[][] = [];
  // Pass 1: words seen right after a determiner (nouns and adjectives, almost never verbs).
  const afterDet = new Set<string>();
  for (const text of texts) {
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*|[^\s\p{L}\p{N}]/gu) ?? [];
    tokenised.push(words);
    for (let k = 0; k < words.length; k++) {
      total.set(words[k]!, (total.get(words[k]!) ?? 0) + 1);
      if (k > 0 && DETERMINERS.has(words[k - 1]!)) afterDet.add(words[k]!);
    }
  }
  // Pass 2: after a determiner (and an optional modifier), a word followed by another such word modifies it
  // ("the pottery class"); followed by anything else (a verb, a function word, punctuation) it heads the phrase.
  for (const words of tokenised) {
    for (let k = 1; k < words.length; k++) {
      const w = words[k]!;
      const p1 = words[k - 1]!;
      const p2 = words[k - 2];
      if (!DETERMINERS.has(p1) && !(p2 && DETERMINERS.has(p2) && afterDet.has(p1) && !isStopword(p1))) continue;
      if (!/^\p{L}/u.test(w) || isStopword(w)) continue;
      const next = words[k + 1];
      const map = next && afterDet.has(next) && !isStopword(next) ? modifier : head;
      map.set(w, (map.get(w) ?? 0) + 1);
    }
  }
  return (w) => {
    const h = head.get(w) ?? 0;
    const m = modifier.get(w) ?? 0;
    if (!h && !m) return undefined;
    // A noun is mostly used after a determiner; a verb form ("coming", "encountered") that lands there once is not.
    const share = h / (total.get(w) ?? 1);
    const verbish = /(?:ed|ing)$/.test(w) && h < 2;
    return h >= m && share >= 0.2 && !verbish ? 'head' : 'modifier';
  };
}

function lower(t: Token): string {
  return t.word.toLowerCase();
}

/** Content word that can sit inside a noun phrase (no numbers, no stopwords, no vague or adverbial words). */
function nominal(t: Token): boolean {
  const w = lower(t);
  return isTopicWord(w) && !isStopword(w) && !NOT_NOUN.has(w);
}

/** Whether `t` is the first word of its sentence or line, where any word is capitalised. */
function opensSentence(t: Token, text: string): boolean {
  return t.start === 0 || /[.!?:\n"“]\s*$/.test(text.slice(Math.max(0, t.start - 3), t.start));
}

function display(t: Token, text: string): string {
  if (/^[A-Z]{2,}$/.test(t.word)) return t.word;
  return /^[A-Z][a-z]/.test(t.word) && !opensSentence(t, text) ? t.word : t.word.toLowerCase();
}

/** "New" of "New York", "First" of "First Republic": opener words that start a name when capitalised. */
const NAME_OPENERS = new Set(['new', 'first', 'own']);

function capitalised(t: Token): boolean {
  return /^[A-Z]/.test(t.word);
}

/**
 * Noun phrases of a sentence: runs of 1–3 content words that follow a determiner or preposition (or are
 * capitalised names), with every shorter tail of a run ("choir concert", "concert"). Tokens overlapping
 * `[avoidStart, avoidEnd)` (the answer) are never part of a phrase. A name is never cut: no phrase starts inside one
 * ("York" of "New York", "Institut" of "Goethe Institut", "Life" of "Everyday Life"), since a question naming the
 * part names something the person did not say.
 */
export function nounPhrases(
  text: string,
  s: Pick<Sentence, 'start' | 'end'>,
  usage: (lower: string) => 'head' | 'modifier' | undefined,
  avoid?: { start: number; end: number },
): Phrase[] {
  const toks = tokensIn(text, s.start, s.end);
  const out: Phrase[] = [];
  const seen = new Set<string>();
  for (let k = 0; k < toks.length; k++) {
    const prev = toks[k - 1];
    const opener = prev && OPENERS.has(lower(prev)) && text.slice(prev.end, toks[k]!.start).trim() === '';
    if (!opener) continue;
    // A capitalised opener before a capitalised word is the name's first word, unless it only opens the sentence
    // ("In Berlin, …", "The Hague is …"); "New", "First" and "Own" are the name's even there.
    if (capitalised(prev) && capitalised(toks[k]!) && (!opensSentence(prev, text) || NAME_OPENERS.has(lower(prev)))) continue;
    const run: Token[] = [];
    for (let m = k; m < toks.length && run.length < 4; m++) {
      const t = toks[m]!;
      if (run.length && text.slice(run[run.length - 1]!.end, t.start).trim() !== '') break; // punctuation ends it
      if (!nominal(t) || (!usage(lower(t)) && !/^[A-Z]/.test(t.word))) break;
      if (avoid && t.end > avoid.start && t.start < avoid.end) break;
      run.push(t);
    }
    if (!run.length || run.length > 3) continue;
    const det = DETERMINERS.has(lower(prev!));
    // The phrase ends at its last head-like word ("the yoga studio", not "the yoga studio must").
    while (run.length && usage(lower(run[run.length - 1]!)) !== 'head' && !/^[A-Z]/.test(run[run.length - 1]!.word)) run.pop();
    for (let from = 0; from < run.length; from++) {
      if (from > 0 && capitalised(run[from - 1]!) && capitalised(run[from]!)) continue;
      const words = run.slice(from);
      const body = words.map((t) => display(t, text)).join(' ');
      const key = body.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      const proper = /^[A-Z]/.test(body);
      out.push({
        text: det && !proper ? `the ${body}` : body,
        words,
        stems: words.map((t) => t.stem),
        start: words[0]!.start,
        end: words[words.length - 1]!.end,
      });
    }
  }
  return out;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "May 2023" of an ISO date. */
export function monthOf(iso: string): string {
  return `${MONTHS[+iso.slice(5, 7) - 1]} ${iso.slice(0, 4)}`;
}

/** "8 May 2023" of an ISO date. */
export function dayOf(iso: string): string {
  return `${+iso.slice(8, 10)} ${monthOf(iso)}`;
}

/** How precisely a question places what it asks about in time: not at all, by month, or by day. */
export type TimeScope = 'any' | 'month' | 'day';

/** The words a question uses for a time scope (" in May 2023", " on 8 May 2023", or nothing). */
export function timePhrase(scope: TimeScope, iso: string | undefined): string {
  if (!iso || scope === 'any') return '';
  return scope === 'month' ? ` in ${monthOf(iso)}` : ` on ${dayOf(iso)}`;
}

/** True when `iso` falls in the time scope around `anchor`. */
export function inTimeScope(scope: TimeScope, anchor: string | undefined, iso: string | undefined): boolean {
  if (scope === 'any') return true;
  if (!anchor || !iso) return false;
  return scope === 'month' ? iso.slice(0, 7) === anchor.slice(0, 7) : iso === anchor;
}

/** A question's lead as its first words: "which class" → "What class", "how many weeks" → "How many weeks". */
export function askFirst(lead: string): string {
  const l = lead.replace(/^which /i, 'what ');
  return l.charAt(0).toUpperCase() + l.slice(1);
}
