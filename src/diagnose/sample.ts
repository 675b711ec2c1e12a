import { z } from 'zod';
import type { SourceRecord } from '../../sandbox/contract.ts';
import { creditedOf, type QuestionTrace } from '../scoring/trace.ts';
import type { QAItem } from '../history/record.ts';
import { createRng } from '../util/rng.ts';
import { FAILURE_CATEGORIES, questionKey, type Diagnosis, type FailureCategory, type QuestionDiagnosis } from './diagnosis.ts';

/** A failed question as the proposer sees it. */
export const FailureCaseSchema = z.object({
  question: z.string(),
  history: z.string(),
  category: z.enum(FAILURE_CATEGORIES),
  text: z.string(),
  /** The question's date (only history up to it may answer), when it has one. */
  date: z.string().optional(),
  reference: z.string(),
  answer: z.string().nullable(),
  evidence: z.array(
    z.object({
      record: z.string(),
      /** The record's text, cut to a window around the evidence span when it is long. */
      excerpt: z.string(),
      time: z.string().optional(),
      speaker: z.string().optional(),
      /** The record's thread (session, e-mail thread, document). */
      thread: z.string().optional(),
      delivered: z.boolean(),
      recoverable: z.boolean(),
      /** 1-based rank among the ranked records, null when not ranked. */
      rank: z.number().int().positive().nullable(),
    }),
  ),
  /**
   * What was ranked above the best-ranked missing evidence instead (at most `insteadCount`, best first): so a
   * proposer can tell whether the distractors come from other sessions, speakers or times than the evidence.
   */
  instead: z
    .array(
      z.object({
        record: z.string(),
        rank: z.number().int().positive(),
        excerpt: z.string(),
        time: z.string().optional(),
        speaker: z.string().optional(),
        thread: z.string().optional(),
      }),
    )
    .default([]),
  /** Top ranked record ids (at most `topIds`). */
  ranked: z.array(z.string()),
  /** Top delivered record ids (at most `topIds`). */
  delivered: z.array(z.string()),
  missing: z.array(z.string()),
  error: z.string().optional(),
  f1: z.number().optional(),
  contextRecall: z.number().optional(),
});
export type FailureCase = z.infer<typeof FailureCaseSchema>;

/** Record text by history and id: a function, or the loaded histories. */
export type RecordLookup =
  | ((history: string, id: string) => SourceRecord | undefined)
  | Iterable<{ id: string; records: readonly SourceRecord[] }>;

function lookupFn(records: RecordLookup): (history: string, id: string) => SourceRecord | undefined {
  if (typeof records === 'function') return records;
  const byHistory = new Map<string, Map<string, SourceRecord>>();
  for (const h of records) byHistory.set(h.id, new Map(h.records.map((r) => [r.id, r])));
  return (history, id) => byHistory.get(history)?.get(id);
}

/**
 * The part of `text` around the evidence: the span when known, else the quote when it can be found, else the
 * start. At most `maxChars` characters plus ellipses where it was cut.
 */
export function excerpt(text: string, options: { span?: [number, number]; quote?: string; maxChars?: number } = {}): string {
  const max = options.maxChars ?? 300;
  if (text.length <= max) return text;
  let s = 0;
  let e = 0;
  if (options.span && options.span[0] < text.length)
    [s, e] = [options.span[0], Math.min(text.length, Math.max(options.span[0], options.span[1]))];
  else if (options.quote) {
    const at = text.toLowerCase().indexOf(options.quote.toLowerCase());
    if (at >= 0) [s, e] = [at, at + options.quote.length];
  }
  let start: number;
  if (e - s >= max) start = s;
  else start = Math.max(0, Math.min(s - Math.floor((max - (e - s)) / 2), text.length - max));
  const end = Math.min(text.length, start + max);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

export interface SampleOptions {
  /** Seed of the sampling (combine the run seed and the iteration so each iteration sees its own sample). */
  seed: number | string;
  /** Record ids listed per case for ranked and delivered (default 10). */
  topIds?: number;
  /** Excerpt length (default 300 characters). */
  excerptChars?: number;
  /** Records listed as ranked instead of the missing evidence (default 5; their excerpts are cut to 160 characters). */
  insteadCount?: number;
}

interface Inputs {
  items: readonly QAItem[];
  traces: readonly QuestionTrace[];
  records: RecordLookup;
}

function caseBuilder({ items, traces, records }: Inputs, options: SampleOptions): (q: QuestionDiagnosis) => FailureCase | undefined {
  const itemBy = new Map(items.map((i) => [questionKey(i.history, i.id), i]));
  const traceBy = new Map(traces.map((t) => [questionKey(t.history, t.question), t]));
  const lookup = lookupFn(records);
  const top = options.topIds ?? 10;
  return (q) => {
    const item = itemBy.get(questionKey(q.history, q.question));
    const trace = traceBy.get(questionKey(q.history, q.question));
    if (!item || !trace || q.category === 'pass') return undefined;
    const delivered = new Set(creditedOf(trace));
    const unrecoverable = new Set(q.unrecoverable);
    const seen = new Set<string>();
    const evidence: FailureCase['evidence'] = [];
    for (const ev of item.evidence) {
      if (seen.has(ev.record)) continue;
      seen.add(ev.record);
      const rec = lookup(item.history, ev.record);
      const rankIdx = trace.rankedRecords.indexOf(ev.record);
      evidence.push({
        record: ev.record,
        excerpt: rec
          ? excerpt(rec.text, {
              ...(ev.span ? { span: ev.span } : {}),
              ...(ev.quote ? { quote: ev.quote } : {}),
              maxChars: options.excerptChars ?? 300,
            })
          : (ev.quote ?? '(record not found in the history)'),
        ...(rec?.time ? { time: rec.time } : {}),
        ...(rec?.speaker ? { speaker: rec.speaker } : {}),
        ...(rec?.thread ? { thread: rec.thread } : {}),
        delivered: delivered.has(ev.record),
        recoverable: !unrecoverable.has(ev.record),
        rank: rankIdx >= 0 ? rankIdx + 1 : null,
      });
    }
    return FailureCaseSchema.parse({
      question: item.id,
      history: item.history,
      category: q.category,
      text: item.question,
      ...(item.date ? { date: item.date } : {}),
      reference: item.answer,
      instead: insteadOf(item, trace, evidence, lookup, options.insteadCount ?? 5),
      answer: trace.answer,
      evidence,
      ranked: trace.rankedRecords.slice(0, top),
      delivered: trace.deliveredRecords.slice(0, top),
      missing: q.missing,
      ...(q.error ? { error: q.error } : {}),
      ...(trace.scores ? { f1: trace.scores.f1, contextRecall: trace.scores.contextRecall } : {}),
    });
  };
}

/**
 * The records ranked above the best-ranked missing evidence (or the top of the ranking when the evidence was not
 * ranked at all), evidence records excluded.
 */
function insteadOf(
  item: QAItem,
  trace: QuestionTrace,
  evidence: FailureCase['evidence'],
  lookup: (history: string, id: string) => SourceRecord | undefined,
  count: number,
): FailureCase['instead'] {
  const gold = new Set(evidence.map((e) => e.record));
  const missingRanks = evidence.filter((e) => !e.delivered && e.rank !== null).map((e) => e.rank!);
  const upTo = missingRanks.length ? Math.min(...missingRanks) - 1 : trace.rankedRecords.length;
  const out: FailureCase['instead'] = [];
  for (let i = 0; i < upTo && out.length < count; i++) {
    const id = trace.rankedRecords[i]!;
    if (gold.has(id) || out.some((o) => o.record === id)) continue;
    const rec = lookup(item.history, id);
    out.push({
      record: id,
      rank: i + 1,
      excerpt: rec ? excerpt(rec.text, { maxChars: 160 }) : '(record not found in the history)',
      ...(rec?.time ? { time: rec.time } : {}),
      ...(rec?.speaker ? { speaker: rec.speaker } : {}),
      ...(rec?.thread ? { thread: rec.thread } : {}),
    });
  }
  return out;
}

/**
 * Failure-stratified sample: up to `perCategory` failures from each category (storage, retrieval, answering,
 * error, unattributed), drawn with a seeded RNG, so a frequent category cannot fill the proposer's budget.
 */
export function sampleFailures(
  diagnosis: Diagnosis,
  items: readonly QAItem[],
  traces: readonly QuestionTrace[],
  records: RecordLookup,
  options: SampleOptions & { perCategory?: number; categories?: readonly FailureCategory[] },
): FailureCase[] {
  const per = options.perCategory ?? 10;
  const build = caseBuilder({ items, traces, records }, options);
  const rng = createRng(options.seed);
  const out: FailureCase[] = [];
  for (const category of options.categories ?? FAILURE_CATEGORIES) {
    const pool = diagnosis.questions.filter((q) => q.category === category);
    // A fork per category: the sample of one category does not depend on the size of another.
    for (const q of rng.fork(category).shuffle(pool).slice(0, per)) {
      const c = build(q);
      if (c) out.push(c);
    }
  }
  return out;
}

/** Uniform sample of `count` failures regardless of category (the feedback ablation's control). */
export function sampleRandomFailures(
  diagnosis: Diagnosis,
  items: readonly QAItem[],
  traces: readonly QuestionTrace[],
  records: RecordLookup,
  options: SampleOptions & { count: number },
): FailureCase[] {
  const build = caseBuilder({ items, traces, records }, options);
  const failures = diagnosis.questions.filter((q) => q.category !== 'pass');
  const out: FailureCase[] = [];
  for (const q of createRng(options.seed).fork('random').shuffle(failures).slice(0, options.count)) {
    const c = build(q);
    if (c) out.push(c);
  }
  return out;
}
