/**
 * On-disk cache of evaluation results. The optimizer re-evaluates the same program on the same questions
 * often (re-selected parents, duplicate proposals); a hit costs one file read instead of a pool run.
 *
 * Key: sha256 over (cache format version, program hash, each history's content hash, question-set hash,
 * answerer id, judge id, budget, ks, sandbox limits). Any change to any of those is a miss. Entries hold the
 * traces and each question's recoverable gold records (validated on write and read); the summary is recomputed.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { History, QAItem } from '../history/record.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import type { QuestionTrace } from '../scoring/trace.ts';
import { QuestionTraceSchema } from '../scoring/trace-schema.ts';

/** Bump when evaluation semantics change so old entries stop matching. */
export const EVAL_CACHE_VERSION = 7;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const historyHashes = new WeakMap<History, string>();

/** Content hash of a history's records (ids, text, times, all fields), memoised per History object. */
export function historyContentHash(history: History): string {
  let h = historyHashes.get(history);
  if (!h) {
    const hash = createHash('sha256');
    hash.update(history.id).update('\0');
    for (const r of history.records) hash.update(JSON.stringify(r)).update('\n');
    h = hash.digest('hex');
    historyHashes.set(history, h);
  }
  return h;
}

/** Hash of a question set in the order given: everything that affects running or scoring a question. */
export function questionSetHash(questions: readonly QAItem[]): string {
  const hash = createHash('sha256');
  for (const q of questions) {
    hash
      .update(JSON.stringify([q.id, q.history, q.question, q.answer, q.answerType, q.category ?? null, q.date ?? null, q.evidence]))
      .update('\n');
  }
  return hash.digest('hex');
}

export interface EvalCacheKeyParts {
  programHash: string;
  historyHashes: string[];
  questionsHash: string;
  answererId: string;
  judgeId: string;
  budgetTokens: number;
  ks: number[];
  limits: unknown;
  /** Marginal-utility tiers when the evaluation scores marginal utility (absent otherwise, keeping older keys). */
  marginalTiers?: number[];
}

export function evalCacheKey(parts: EvalCacheKeyParts): string {
  return sha256(JSON.stringify({ v: EVAL_CACHE_VERSION, ...parts, historyHashes: [...parts.historyHashes].sort() }));
}

const EntrySchema = z.object({
  version: z.literal(EVAL_CACHE_VERSION),
  key: z.string(),
  createdAt: z.string(),
  traces: z.array(QuestionTraceSchema),
  recoverable: z.record(z.string(), z.array(z.string())),
});

export interface EvalCacheEntry {
  traces: QuestionTrace[];
  recoverable: Record<string, string[]>;
}

/** The entry stored under `key`, or null on a miss (or an unreadable / stale entry, which is treated as a miss). */
export function readEvalCache(dir: string, key: string): EvalCacheEntry | null {
  const file = join(dir, `${key}.json`);
  if (!existsSync(file)) return null;
  try {
    const parsed = EntrySchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success || parsed.data.key !== key) return null;
    return { traces: parsed.data.traces as QuestionTrace[], recoverable: parsed.data.recoverable };
  } catch {
    return null;
  }
}

/** Stores an evaluation under `key` (validated, atomic). */
export function writeEvalCache(dir: string, key: string, traces: readonly QuestionTrace[], recoverable: Record<string, string[]>): void {
  const entry = EntrySchema.parse({ version: EVAL_CACHE_VERSION, key, createdAt: new Date().toISOString(), traces, recoverable });
  writeFileAtomic(join(dir, `${key}.json`), JSON.stringify(entry));
}
