/**
 * How generated supervision compares with the questions people ask of the same histories: the question-form mix,
 * the lexical gap to the evidence, how many records an answer rests on, and how hard the seed design finds each set.
 * Pure: the caller loads histories and (optionally) scores the seed design; nothing here reads files or runs designs.
 */
import { eng as ENGLISH_STOPWORDS } from 'stopword';
import { z } from 'zod';
import type { QAItem } from '../history/record.ts';
import { meanDifferenceBootstrap } from '../optimize/strategies/bootstrap.ts';
import { MONTH_NAMES } from '../text/date-parse.ts';
import { STOPWORDS } from '../text/stopwords.ts';
import { stem, tokenize } from '../text/text.ts';
import { createRng } from '../util/rng.ts';

/** Question forms by first word; `yes-no` are the auxiliary openers of a polar question. */
export const QUESTION_FORMS = ['what', 'when', 'how', 'who', 'where', 'which', 'why', 'yes-no', 'other'] as const;
export const QuestionForm = z.enum(QUESTION_FORMS);
export type QuestionForm = z.infer<typeof QuestionForm>;

const YES_NO = new Set(['does', 'do', 'did', 'is', 'are', 'was', 'were', 'has', 'have', 'can', 'will']);

/**
 * Which stop words define content words (recorded with every report, so figures stay comparable): the `stopword`
 * package's English list (108 words; it lacks pronouns such as "she") joined with the NLTK/SMART core list the
 * designs' text tools use, so a content word is one a retriever would index.
 */
export const CONTENT_WORDS = 'stopword@3.1.5:eng+nltk-core';
const STOP = new Set<string>([...ENGLISH_STOPWORDS, ...STOPWORDS]);

/** The form of a question by its first word ("What …" → what, "Did …" → yes-no, "After …" → other). */
export function questionForm(question: string): QuestionForm {
  const first = tokenize(question)[0] ?? '';
  if (YES_NO.has(first)) return 'yes-no';
  return (QUESTION_FORMS as readonly string[]).includes(first) && first !== 'yes-no' && first !== 'other'
    ? (first as QuestionForm)
    : 'other';
}

/**
 * Stems of a text's content words: tokens that are not stop words and longer than one character. Stemmed, so an
 * inflection ("paint" / "painting") is no lexical gap: only a different word is.
 */
export function contentStems(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of tokenize(text)) {
    const w = t.replace('’', "'");
    if (w.length < 2 || STOP.has(w)) continue;
    out.add(stem(w));
  }
  return out;
}

/** Whether a question shares no content word with a text. */
export function noContentOverlap(question: string, text: string): boolean {
  return contentCoverage(question, text).shared === 0;
}

/** A question's content words (distinct stems, or the question itself) and how many of them a text has. */
export function contentCoverage(question: string | ReadonlySet<string>, text: string): { words: number; shared: number } {
  const ev = contentStems(text);
  const q = typeof question === 'string' ? contentStems(question) : question;
  let shared = 0;
  for (const s of q) if (ev.has(s)) shared++;
  return { words: q.size, shared };
}

const Share = z.number().min(0).max(1);
const Count = z.number().int().nonnegative();
/** Evidence records per item: 0, 1, 2, 3, 4 or more. */
export const EVIDENCE_BUCKETS = ['0', '1', '2', '3', '4+'] as const;

/** What one question set looks like. */
export const SetStatsSchema = z.object({
  items: Count,
  /** Share of items per question form (sums to 1 when there are items). */
  forms: z.record(QuestionForm, Share),
  /** Items whose evidence resolves to at least one record's text: the denominator of `noOverlapShare`. */
  withEvidence: Count,
  /** Share of those items sharing no content word with their evidence records' text. */
  noOverlapShare: Share.nullable(),
  /** Items per count of distinct evidence records. */
  evidenceCounts: z.record(z.enum(EVIDENCE_BUCKETS), Count),
  meanEvidence: z.number().nonnegative(),
  /**
   * Mean share of a question's content words that its evidence has, over the items with evidence and content words.
   * The no-overlap share only sees questions sharing nothing; this sees how much of a question points elsewhere
   * (RHELM's own questions: about 0.4 of 13 content words; short templated ones: two thirds of 6).
   */
  evidenceCoverage: Share.nullable(),
  /** Mean count of distinct content words per question. */
  meanContentWords: z.number().nonnegative(),
  /**
   * Share of questions naming a month or a date ("in November", "on 3 May 2024"). Designs that read a question's
   * time are rewarded by validation only as often as its questions name one (RHELM's own: about a third).
   */
  datedShare: Share,
  /**
   * Share of items per kind of evidence record (`turn`, `email`, `document`; an item citing two kinds counts half to
   * each). A search is steered toward the records its validation questions cite: a set of chat-turn questions does
   * not see a design lose the e-mails (RHELM's development personas: a session fusion took their e-mail questions
   * from 71% to 50% recall while generated validation rose).
   */
  evidenceKinds: z.record(z.string(), Share),
  /**
   * Items with evidence in "User: … / Assistant: …" chat turns whose answer's content words appear in one half of
   * those turns: the denominator of `replyAnswerShare` (absent in reports written before it).
   */
  replyAnswerItems: Count.optional(),
  /**
   * Share of those items whose answer words appear only in the assistant's halves, none in the user's: how often a
   * set asks what the assistant said rather than what the user did. Measured from the answer's words, so that
   * official questions, which carry no evidence spans, are measured the same way (RHELM's held-out personas: 8% of
   * their own questions, 31% of `rule-based@21`'s; bench/results/2026-12-04-reply-share, which also records capping
   * such items in the generator, tried and not kept).
   */
  replyAnswerShare: Share.nullable().optional(),
});
export type SetStats = z.infer<typeof SetStatsSchema>;

/** The seed design's context recall on the generated validation split and on the official questions. */
export const SeedDifficultySchema = z.object({
  design: z.string(),
  /** Mean context recall over generated validation items with evidence (null: none scored). */
  generatedVal: Share.nullable(),
  generatedScored: Count,
  official: Share.nullable(),
  officialScored: Count,
  /** generatedVal − official: how much easier the generated questions are for the seed. */
  gap: z.number().nullable(),
  /**
   * Mean context recall over every generated item with evidence, training and validation (null: none scored). Which
   * items the split draws moves `gap`: on held-out RHELM two sets of the same whole-set difficulty (31.1 and 30.8)
   * had validation scores of 28.8 and 32.1. The whole set is the steadier figure for comparing generator versions.
   */
  generatedAll: Share.nullable(),
  generatedAllScored: Count,
  /** generatedAll − official. */
  gapAll: z.number().nullable(),
  /**
   * Bootstrap interval of `gap` over which items were drawn (each history's validation items and official questions
   * resampled apart). It does not cover a different generator seed, which moves a one-history gap about as much; a
   * gap whose interval spans a target has not shown it is above or below.
   */
  gapInterval: z.object({ lower: z.number(), upper: z.number(), level: z.number().min(0).max(1), resamples: Count }).nullable(),
});
export type SeedDifficulty = z.infer<typeof SeedDifficultySchema>;

/** Calibration of one group of histories (one history, the development ones, the held-out ones, all). */
export const CalibrationPartSchema = z.object({
  histories: z.array(z.string()),
  generated: SetStatsSchema,
  official: SetStatsSchema.nullable(),
  /** Total variation distance between the generated and official form mixes (0 same, 1 disjoint). */
  formDistance: z.number().min(0).max(1).nullable(),
  /** Generated minus official no-overlap share. */
  noOverlapGap: z.number().nullable(),
  /** Total variation distance between the generated and official evidence-kind mixes. */
  kindDistance: z.number().min(0).max(1).nullable(),
  seed: SeedDifficultySchema.nullable(),
});
export type CalibrationPart = z.infer<typeof CalibrationPartSchema>;

/** The calibration report of a generated supervision set (`memsteer generate --report`). */
export const CalibrationReportSchema = z.object({
  contentWords: z.string(),
  /** Development histories (src/experiments/dev-subsets.ts) and the others apart; null when a group is empty. */
  dev: CalibrationPartSchema.nullable(),
  heldout: CalibrationPartSchema.nullable(),
  all: CalibrationPartSchema,
  byHistory: z.array(CalibrationPartSchema),
});
export type CalibrationReport = z.infer<typeof CalibrationReportSchema>;

/** One history's material for the report. */
export interface CalibrationInput {
  id: string;
  /** Text of a record by id (undefined for an unknown id). */
  recordText: (id: string) => string | undefined;
  /** Kind of a record by id (`turn`, `email`, `document`); without it the evidence-kind mix is empty. */
  recordKind?: (id: string) => string | undefined;
  generated: readonly QAItem[];
  /** The history's official questions; empty when it has none. */
  official: readonly QAItem[];
}

/** Per-item context recall of the seed design, keyed by {@link seedKey} (items without evidence have none). */
export interface SeedScores {
  design: string;
  contextRecall: ReadonlyMap<string, number>;
}

/** The key of an item's seed score: official ids repeat across histories, so the history is part of it. */
export function seedKey(item: Pick<QAItem, 'history' | 'id'>): string {
  return `${item.history}\u0000${item.id}`;
}

/** Statistics of one question set; `recordText` resolves evidence ids. */
export function setStats(
  items: readonly QAItem[],
  recordText: (id: string) => string | undefined,
  recordKind?: (id: string) => string | undefined,
): SetStats {
  const kinds = new Map<string, number>();
  const forms = Object.fromEntries(QUESTION_FORMS.map((f) => [f, 0])) as Record<QuestionForm, number>;
  const evidenceCounts = Object.fromEntries(EVIDENCE_BUCKETS.map((b) => [b, 0])) as SetStats['evidenceCounts'];
  let withEvidence = 0;
  let noOverlap = 0;
  let evidenceTotal = 0;
  let words = 0;
  let covered = 0;
  let coverageTotal = 0;
  let dated = 0;
  let inReply = 0;
  let inTurns = 0;
  for (const it of items) {
    forms[questionForm(it.question)]++;
    if (namesDate(it.question)) dated++;
    const stems = contentStems(it.question);
    words += stems.size;
    const ids = [...new Set(it.evidence.map((e) => e.record))];
    evidenceTotal += ids.length;
    evidenceCounts[ids.length >= 4 ? '4+' : (String(ids.length) as '0' | '1' | '2' | '3')]++;
    const itemKinds = new Set(ids.map((id) => recordKind?.(id)).filter((k): k is string => k !== undefined));
    for (const k of itemKinds) kinds.set(k, (kinds.get(k) ?? 0) + 1 / itemKinds.size);
    const texts = ids.map(recordText).filter((t): t is string => t !== undefined);
    if (!texts.length) continue;
    withEvidence++;
    const c = contentCoverage(stems, texts.join('\n'));
    if (c.shared === 0) noOverlap++;
    if (c.words) {
      covered++;
      coverageTotal += c.shared / c.words;
    }
    const side = answerSide(it.answer, texts);
    if (side) inTurns++;
    if (side === 'reply') inReply++;
  }
  const n = items.length;
  return {
    items: n,
    forms: Object.fromEntries(QUESTION_FORMS.map((f) => [f, n ? forms[f] / n : 0])) as SetStats['forms'],
    withEvidence,
    noOverlapShare: withEvidence ? noOverlap / withEvidence : null,
    evidenceCounts,
    meanEvidence: n ? evidenceTotal / n : 0,
    evidenceCoverage: covered ? coverageTotal / covered : null,
    meanContentWords: n ? words / n : 0,
    datedShare: n ? dated / n : 0,
    evidenceKinds: shares(kinds),
    replyAnswerItems: inTurns,
    replyAnswerShare: inTurns ? inReply / inTurns : null,
  };
}

/**
 * Which half of the evidence's "User: … / Assistant: …" turns holds the answer's content words: the user's when any
 * user half has one, else the reply's when any reply has one (undefined: no such turn, or the words are in neither).
 */
function answerSide(answer: string, texts: readonly string[]): 'user' | 'reply' | undefined {
  const words = contentStems(answer);
  if (words.size === 0) return undefined;
  let reply = false;
  for (const t of texts) {
    const at = t.startsWith('User: ') ? t.indexOf('\nAssistant: ') : -1;
    if (at < 0) continue;
    if (contentCoverage(words, t.slice(0, at)).shared > 0) return 'user';
    if (contentCoverage(words, t.slice(at)).shared > 0) reply = true;
  }
  return reply ? 'reply' : undefined;
}

/** Counts as shares of their total (empty when there is nothing to count). */
function shares(counts: ReadonlyMap<string, number>): Record<string, number> {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return total ? Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, v / total])) : {};
}

// Full month names, capitalised, so "march" and "may" as verbs are not months; "May" opening a question is the verb.
const MONTHS = MONTH_NAMES.join('|');
const MONTH_OR_DATE = new RegExp(`(?<!^)\\b(?:${MONTHS})\\b|^(?:${MONTHS.replace('May|', '')})\\b|\\b\\d{4}-\\d{2}(?:-\\d{2})?\\b`);

/** Whether a question names a month or a calendar date. */
export function namesDate(question: string): boolean {
  return MONTH_OR_DATE.test(question);
}

/** Total variation distance between two mixes (form, evidence kind): half the sum of absolute differences. */
export function mixDistance(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): number {
  let d = 0;
  for (const f of new Set([...Object.keys(a), ...Object.keys(b)])) d += Math.abs((a[f] ?? 0) - (b[f] ?? 0));
  return Math.min(1, d / 2);
}

/** The seed's scores of the items it scored (items without evidence have none). */
function scored(items: readonly QAItem[], scores: ReadonlyMap<string, number>): number[] {
  const out: number[] = [];
  for (const it of items) {
    const s = scores.get(seedKey(it));
    if (s !== undefined) out.push(s);
  }
  return out;
}

function meanOf(xs: readonly number[]): { mean: number | null; n: number } {
  return { mean: xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null, n: xs.length };
}

const GAP_RESAMPLES = 2000;

function part(inputs: readonly CalibrationInput[], seed: SeedScores | undefined): CalibrationPart {
  const generated = pooledByHistory(inputs, (h) => h.generated);
  const officialItems = inputs.flatMap((h) => h.official);
  const official = officialItems.length ? pooledByHistory(inputs, (h) => h.official) : null;
  let seedPart: SeedDifficulty | null = null;
  if (seed) {
    const val = inputs.map((h) =>
      scored(
        h.generated.filter((it) => it.split === 'val'),
        seed.contextRecall,
      ),
    );
    const off = inputs.map((h) => scored(h.official, seed.contextRecall));
    const whole = meanOf(inputs.flatMap((h) => scored(h.generated, seed.contextRecall)));
    const g = meanOf(val.flat());
    const o = meanOf(off.flat());
    let gapInterval: SeedDifficulty['gapInterval'] = null;
    if (g.n && o.n) {
      // Seeded by the histories, so the same set gives the same report.
      const b = meanDifferenceBootstrap(val, off, {
        rng: createRng(`calibration-gap:${inputs.map((h) => h.id).join('\u0000')}`),
        resamples: GAP_RESAMPLES,
      });
      gapInterval = { lower: b.lower, upper: b.upper, level: b.level, resamples: b.resamples };
    }
    seedPart = {
      design: seed.design,
      generatedVal: g.mean,
      generatedScored: g.n,
      official: o.mean,
      officialScored: o.n,
      gap: g.mean !== null && o.mean !== null ? g.mean - o.mean : null,
      gapInterval,
      generatedAll: whole.mean,
      generatedAllScored: whole.n,
      gapAll: whole.mean !== null && o.mean !== null ? whole.mean - o.mean : null,
    };
  }
  return {
    histories: inputs.map((h) => h.id),
    generated,
    official,
    formDistance: official && generated.items ? mixDistance(generated.forms, official.forms) : null,
    noOverlapGap:
      official?.noOverlapShare != null && generated.noOverlapShare !== null ? generated.noOverlapShare - official.noOverlapShare : null,
    kindDistance:
      official && Object.keys(official.evidenceKinds).length && Object.keys(generated.evidenceKinds).length
        ? mixDistance(generated.evidenceKinds, official.evidenceKinds)
        : null,
    seed: seedPart,
  };
}

/** Statistics pooled over histories, each item's evidence resolved in its own history. */
function pooledByHistory(inputs: readonly CalibrationInput[], pick: (h: CalibrationInput) => readonly QAItem[]): SetStats {
  const parts = inputs.map((h) => ({ n: pick(h).length, s: setStats(pick(h), h.recordText, h.recordKind) }));
  const items = parts.reduce((a, p) => a + p.n, 0);
  const withEvidence = parts.reduce((a, p) => a + p.s.withEvidence, 0);
  const noOverlap = Math.round(parts.reduce((a, p) => a + (p.s.noOverlapShare ?? 0) * p.s.withEvidence, 0));
  const forms = Object.fromEntries(
    QUESTION_FORMS.map((f) => [f, items ? parts.reduce((a, p) => a + p.s.forms[f] * p.n, 0) / items : 0]),
  ) as SetStats['forms'];
  const evidenceCounts = Object.fromEntries(
    EVIDENCE_BUCKETS.map((b) => [b, parts.reduce((a, p) => a + p.s.evidenceCounts[b], 0)]),
  ) as SetStats['evidenceCounts'];
  return {
    items,
    forms,
    withEvidence,
    noOverlapShare: withEvidence ? noOverlap / withEvidence : null,
    evidenceCounts,
    meanEvidence: items ? parts.reduce((a, p) => a + p.s.meanEvidence * p.n, 0) / items : 0,
    // Weighted by items with evidence, not by covered ones: within one history the two differ only by questions
    // with no content word at all, a handful.
    evidenceCoverage: pooledShare(parts.map((p) => ({ share: p.s.evidenceCoverage, n: p.s.withEvidence }))),
    meanContentWords: items ? parts.reduce((a, p) => a + p.s.meanContentWords * p.n, 0) / items : 0,
    datedShare: items ? parts.reduce((a, p) => a + p.s.datedShare * p.n, 0) / items : 0,
    evidenceKinds: pooledMix(parts.map((p) => ({ mix: p.s.evidenceKinds, n: p.n }))),
    replyAnswerItems: parts.reduce((a, p) => a + (p.s.replyAnswerItems ?? 0), 0),
    replyAnswerShare: pooledShare(parts.map((p) => ({ share: p.s.replyAnswerShare ?? null, n: p.s.replyAnswerItems ?? 0 }))),
  };
}

/** Mixes pooled by their item counts. */
function pooledMix(parts: ReadonlyArray<{ mix: Readonly<Record<string, number>>; n: number }>): Record<string, number> {
  const counts = new Map<string, number>();
  for (const p of parts) for (const [k, v] of Object.entries(p.mix)) counts.set(k, (counts.get(k) ?? 0) + v * p.n);
  return shares(counts);
}

/** The mean of shares weighted by their counts, over the parts that have one. */
function pooledShare(parts: ReadonlyArray<{ share: number | null; n: number }>): number | null {
  const some = parts.filter((p) => p.share !== null && p.n > 0);
  const n = some.reduce((a, p) => a + p.n, 0);
  return n ? some.reduce((a, p) => a + p.share! * p.n, 0) / n : null;
}

/**
 * The calibration report over histories: each history, the development histories and the held-out ones apart
 * (a held-out figure was never tuned on), and all together. `split` says which histories are development ones
 * (src/experiments/dev-subsets.ts's historySplit); `seed` adds the difficulty gap.
 */
export function calibrate(
  inputs: readonly CalibrationInput[],
  split: (historyId: string) => 'dev' | 'heldout',
  seed?: SeedScores,
): CalibrationReport {
  const dev = inputs.filter((h) => split(h.id) === 'dev');
  const heldout = inputs.filter((h) => split(h.id) === 'heldout');
  return CalibrationReportSchema.parse({
    contentWords: CONTENT_WORDS,
    dev: dev.length ? part(dev, seed) : null,
    heldout: heldout.length ? part(heldout, seed) : null,
    all: part(inputs, seed),
    byHistory: inputs.map((h) => part([h], seed)),
  });
}
