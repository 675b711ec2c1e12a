// The key under which the fixed-pool scripts (per-question.mts, pool-analysis.mts) name a validation item.
import { createHash } from 'node:crypto';
import type { QAItem } from '../../../src/history/record.ts';

/** What {@link contentKey} reads of an item. */
export type KeyedItem = Pick<QAItem, 'id' | 'history' | 'question' | 'answer' | 'answerType' | 'category' | 'date' | 'evidence'>;

/**
 * An item's content key: its id, `#`, and 12 hex digits of a hash of everything its evaluation reads.
 *
 * A generated item's id hashes its question and answer only (toQAItem in src/supervision/candidate.ts), so sets from
 * other seeds or generator variants can hold different items under one id: the same question and answer, asked on
 * another day or with other evidence. Keyed by id, one version's recall stood for both.
 *
 * The hash covers the fields that evaluation cache keys cover (questionSetHash in src/evaluate/eval-cache.ts): the
 * history; the question and its `date` (what the design and the answerer see); the answer and `answerType`
 * (correctness); `category` (kept on the trace; LoCoMo scoring reads it); the evidence records, spans and quotes
 * (context recall, span-aware crediting). It leaves out what evaluation does not read: `split`, `generator` (read
 * only to tell official LoCoMo items, whose ids are unique), `plan`, `premise`, `checks`, `meta`. The same item from
 * two sets then has one key, and two items sharing an id have two.
 */
export function contentKey(item: KeyedItem): string {
  const evidence = item.evidence.map((e) => [e.record, e.span ?? null, e.quote ?? null]);
  const read = [item.history, item.question, item.answer, item.answerType, item.category ?? null, item.date ?? null, evidence];
  return `${item.id}#${createHash('sha256').update(JSON.stringify(read)).digest('hex').slice(0, 12)}`;
}
