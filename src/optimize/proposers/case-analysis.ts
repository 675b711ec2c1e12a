import type { FailureCase } from '../../diagnose/sample.ts';
import { resolveDates } from '../../text/resolve-dates.ts';
import { terms, tokenize } from '../../text/text.ts';

/**
 * Reads each failure case for why its evidence was lost, and aggregates the reasons into a profile of the parent's
 * failures. The offline case-driven proposer derives its moves from the profile, so two histories that fail for
 * different reasons get different programs. Every signal is computed from the case alone (question, evidence, what
 * was ranked instead), never from an answer key beyond the gold evidence the diagnosis already used.
 */

/** Why a missing evidence record lost, as one named signal. */
export const CASE_SIGNALS = [
  /** The question shares few terms with the missing evidence: the words differ (a lexical gap). */
  'lexical-gap',
  /** The question names the evidence's speaker and what ranked instead was mostly said by someone else. */
  'speaker',
  /** The question carries a time cue the evidence's date meets and the records ranked instead do not. */
  'time',
  /**
   * The question is asked on a day, and the missing evidence is recent then: what ranked instead is mostly dated
   * at least RECENT_MARGIN days further back (or undated).
   */
  'recent',
  /** What ranked instead came mostly from sessions that hold no evidence. */
  'session',
  /** The evidence is spread over two or more sessions. */
  'multi-session',
  /** The missing evidence is a short record (few words to match). */
  'short-unit',
  /** The missing evidence is a long record: delivered whole it takes a large share of the context budget. */
  'long-unit',
  /** A record ranked instead sits right next to the missing evidence in its thread. */
  'neighbour',
  /** The missing evidence was not ranked at all or very deep (beyond 50). */
  'deep-rank',
  /** The missing evidence was ranked (within 50) but not delivered: a reranking problem. */
  'near-miss',
] as const;
export type CaseSignal = (typeof CASE_SIGNALS)[number];

/** One case read for why. */
export interface CaseWhy {
  question: string;
  history: string;
  /** Share of the question's terms found in the missing evidence (best missing record). */
  overlap: number;
  /** Best rank among the missing evidence (null: none ranked). */
  bestRank: number | null;
  signals: CaseSignal[];
}

/** What the parent's failures look like, as shares of the analysed cases. */
export interface FailureProfile {
  /** Cases analysed (those with missing evidence). */
  cases: number;
  /** Share of the cases showing each signal (0–1). */
  shares: Record<CaseSignal, number>;
  /** Mean query-term overlap with the missing evidence. */
  meanOverlap: number;
  whys: CaseWhy[];
}

/** Below this share of question terms in the evidence a case counts as a lexical gap. */
const GAP_OVERLAP = 0.34;
/** At most this many tokens make a short record. */
const SHORT_TOKENS = 12;
/** More words than this make a long record (about a fifth of a 1,000-token budget and more). */
const LONG_WORDS = 150;
/** Days by which what ranked instead must be older than the missing evidence for a case to count as 'recent'. */
const RECENT_MARGIN = 30;
/** Ranks beyond this count as deep. */
const DEEP_RANK = 50;

/** Position of a record in its history, to tell neighbours apart (undefined when unknown). */
export type RecordPosition = (history: string, record: string) => { index: number; thread?: string; words?: number } | undefined;

const MONTH_WORDS = /\b(january|february|march|april|may|june|july|august|september|october|november|december|(19|20)\d{2})\b/i;

/** Date prefixes (`YYYY-MM-DD`, `YYYY-MM`, `YYYY`) the question's time cues name. */
export function timeCues(text: string, date?: string): string[] {
  let found: string[] = [];
  try {
    found = resolveDates(text, date).map((d) => d.date);
  } catch {
    found = resolveDates(text).map((d) => d.date);
  }
  if (found.length === 0 && MONTH_WORDS.test(text)) {
    // A bare month ("in May") resolves only against a reference; without one the year is unknown.
    found = resolveDates(text).map((d) => d.date);
  }
  return [...new Set(found)];
}

function matchesCue(time: string | undefined, cues: readonly string[]): boolean {
  return time !== undefined && cues.some((c) => time.startsWith(c));
}

/** Speakers named in the question: a speaker's first name (or full name) as a word of the question. */
function namedSpeakers(text: string, speakers: Iterable<string>): Set<string> {
  const words = new Set(tokenize(text));
  const out = new Set<string>();
  for (const s of speakers) {
    const first = tokenize(s)[0];
    if (first && words.has(first)) out.add(s);
  }
  return out;
}

/** Days from a record's time back from the question's day (`asked`); undefined when either is missing or unreadable. */
function ageBefore(asked: string | undefined): (time: string | undefined) => number | undefined {
  const day = asked ? Date.parse(asked.slice(0, 10)) : Number.NaN;
  return (time) => {
    const t = time ? Date.parse(time.slice(0, 10)) : Number.NaN;
    return Number.isNaN(day) || Number.isNaN(t) ? undefined : (day - t) / 86_400_000;
  };
}

function majority<T>(items: readonly T[], test: (t: T) => boolean): boolean {
  return items.length > 0 && items.filter(test).length * 2 >= items.length;
}

/**
 * Reads one case; null when nothing is missing (an answering failure has no lost evidence to explain). `frame`
 * holds question words too common among the cases to say what a question is about ("talk", "mention", a month):
 * they are left out of the overlap, so a templated question is not a lexical gap merely for its template.
 */
export function analyseCase(c: FailureCase, position?: RecordPosition, frame: ReadonlySet<string> = new Set()): CaseWhy | null {
  const missing = c.evidence.filter((e) => !e.delivered);
  if (missing.length === 0) return null;
  const q = new Set(terms(c.text).filter((t) => !frame.has(t)));
  const overlapOf = (text: string): number => {
    if (q.size === 0) return 0;
    const ev = new Set(terms(text));
    return [...q].filter((t) => ev.has(t)).length / q.size;
  };
  const overlap = Math.max(...missing.map((e) => overlapOf(e.excerpt)));
  const ranks = missing.map((e) => e.rank).filter((r): r is number => r !== null);
  const bestRank = ranks.length ? Math.min(...ranks) : null;
  const signals: CaseSignal[] = [];
  if (overlap < GAP_OVERLAP) signals.push('lexical-gap');

  const speakers = new Set([...c.evidence, ...c.instead].map((r) => r.speaker).filter((s): s is string => Boolean(s)));
  const named = namedSpeakers(c.text, speakers);
  if (missing.some((e) => e.speaker && named.has(e.speaker)) && majority(c.instead, (r) => !r.speaker || !named.has(r.speaker)))
    signals.push('speaker');

  const cues = timeCues(c.text, c.date);
  if (cues.length > 0 && missing.some((e) => matchesCue(e.time, cues)) && majority(c.instead, (r) => !matchesCue(r.time, cues)))
    signals.push('time');

  const age = ageBefore(c.date);
  const missingAge = Math.min(...missing.map((e) => age(e.time) ?? Number.POSITIVE_INFINITY));
  if (Number.isFinite(missingAge) && majority(c.instead, (r) => (age(r.time) ?? Number.POSITIVE_INFINITY) >= missingAge + RECENT_MARGIN))
    signals.push('recent');

  const evidenceThreads = new Set(c.evidence.map((e) => e.thread).filter(Boolean));
  if (evidenceThreads.size > 0 && majority(c.instead, (r) => !r.thread || !evidenceThreads.has(r.thread))) signals.push('session');
  if (evidenceThreads.size >= 2) signals.push('multi-session');
  if (missing.some((e) => tokenize(e.excerpt).length <= SHORT_TOKENS)) signals.push('short-unit');
  // The excerpt is cut for display, so a record's length comes from the history when positions are known.
  if (position && missing.some((e) => (position(c.history, e.record)?.words ?? 0) > LONG_WORDS)) signals.push('long-unit');

  if (position) {
    const near = missing.some((e) => {
      const at = position(c.history, e.record);
      if (!at) return false;
      return c.instead.some((r) => {
        const p = position(c.history, r.record);
        return p !== undefined && p.thread === at.thread && Math.abs(p.index - at.index) === 1;
      });
    });
    if (near) signals.push('neighbour');
  }
  if (bestRank === null || bestRank > DEEP_RANK) signals.push('deep-rank');
  else signals.push('near-miss');
  return { question: c.question, history: c.history, overlap, bestRank, signals };
}

/** Aggregates the cases into the parent's failure profile. */
export function failureProfile(cases: readonly FailureCase[], position?: RecordPosition): FailureProfile {
  const frame = frameTerms(cases);
  const whys = cases.map((c) => analyseCase(c, position, frame)).filter((w): w is CaseWhy => w !== null);
  const shares = Object.fromEntries(CASE_SIGNALS.map((s) => [s, 0])) as Record<CaseSignal, number>;
  for (const w of whys) for (const s of w.signals) shares[s] += 1;
  if (whys.length) for (const s of CASE_SIGNALS) shares[s] /= whys.length;
  const meanOverlap = whys.length ? whys.reduce((a, w) => a + w.overlap, 0) / whys.length : 0;
  return { cases: whys.length, shares, meanOverlap, whys };
}

/** Below this many cases no word counts as frame (a handful of questions cannot show a template). */
const FRAME_MIN_CASES = 8;
/** A term in at least this share of the cases' questions is frame, not topic. */
const FRAME_SHARE = 0.25;

/** Question terms shared by many of the cases' questions (template and frame words, not what is asked about). */
export function frameTerms(cases: readonly FailureCase[]): Set<string> {
  if (cases.length < FRAME_MIN_CASES) return new Set();
  const df = new Map<string, number>();
  for (const c of cases) for (const t of new Set(terms(c.text))) df.set(t, (df.get(t) ?? 0) + 1);
  return new Set([...df].filter(([, n]) => n >= FRAME_SHARE * cases.length).map(([t]) => t));
}

/** One line per signal present, most frequent first: "speaker 60%, time 40%…" (for rationales and prompts). */
export function describeProfile(p: FailureProfile): string {
  if (p.cases === 0) return 'no failure with missing evidence to read';
  const parts = CASE_SIGNALS.filter((s) => p.shares[s] > 0)
    .sort((a, b) => p.shares[b] - p.shares[a])
    .map((s) => `${s} ${Math.round(p.shares[s] * 100)}%`);
  return `${p.cases} cases with missing evidence: ${parts.join(', ')}; mean query-term overlap ${p.meanOverlap.toFixed(2)}`;
}

/** Record positions of histories (index in history order, thread, length in words), for the neighbour and long-unit signals. */
export function positionsOf(records: (history: string) => ReadonlyArray<{ id: string; thread?: string; text?: string }>): RecordPosition {
  const cache = new Map<string, Map<string, { index: number; thread?: string; words?: number }>>();
  return (history, record) => {
    let m = cache.get(history);
    if (!m) {
      m = new Map(
        records(history).map((r, index) => {
          const at: { index: number; thread?: string; words?: number } = { index };
          if (r.thread) at.thread = r.thread;
          // Whitespace words: cheap over a whole history, and close enough for a length threshold.
          if (r.text !== undefined) at.words = r.text.split(/\s+/).length;
          return [r.id, at];
        }),
      );
      cache.set(history, m);
    }
    return m.get(record);
  };
}
