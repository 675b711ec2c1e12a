import { z } from 'zod';
import type { History, QAItem } from '../history/record.ts';

/**
 * Generated supervision in formats other optimizers read, so memsteer's QA–evidence sets can steer them too.
 * - `plain`: JSONL, one `{id, question, answer, evidence, ...}` per line — evidence as record ids (and, when the
 *   histories are given, the evidence records' text), for any harness that takes question/answer pairs.
 * - `task-list`: one JSON document in the shape of M*-style code-search harnesses: a list of tasks (id, query,
 *   reference answer, evidence ids, metadata) plus the train / validation id lists the search must keep apart.
 */
export const ExternalFormat = z.enum(['plain', 'task-list']);
export type ExternalFormat = z.infer<typeof ExternalFormat>;

export const PlainItemSchema = z.object({
  id: z.string(),
  history: z.string(),
  question: z.string(),
  answer: z.string(),
  answer_type: z.string(),
  evidence: z.array(z.string()),
  evidence_text: z.array(z.string()).optional(),
  question_date: z.string().optional(),
  type: z.string().optional(),
  split: z.string().optional(),
});
export type PlainItem = z.infer<typeof PlainItemSchema>;

export const TaskListSchema = z.object({
  format: z.literal('memsteer-task-list@1'),
  source: z.string(),
  tasks: z.array(
    z.object({
      task_id: z.string(),
      query: z.string(),
      reference_answer: z.string(),
      evidence_ids: z.array(z.string()),
      metadata: z.object({
        history: z.string(),
        answer_type: z.string(),
        type: z.string().optional(),
        question_date: z.string().optional(),
        generator: z.string().optional(),
      }),
    }),
  ),
  splits: z.object({ train: z.array(z.string()), val: z.array(z.string()), test: z.array(z.string()) }),
});
export type TaskList = z.infer<typeof TaskListSchema>;

const evidenceIds = (item: QAItem) => [...new Set(item.evidence.map((e) => e.record))];

/** One plain line per item; with `histories`, each evidence record's text rides along. */
export function toPlain(items: readonly QAItem[], histories?: readonly History[]): PlainItem[] {
  const text = new Map<string, Map<string, string>>();
  for (const h of histories ?? []) text.set(h.id, new Map(h.records.map((r) => [r.id, r.text])));
  return items.map((item) => {
    const ids = evidenceIds(item);
    const byId = text.get(item.history);
    return PlainItemSchema.parse({
      id: item.id,
      history: item.history,
      question: item.question,
      answer: item.answer,
      answer_type: item.answerType,
      evidence: ids,
      ...(byId ? { evidence_text: ids.map((id) => byId.get(id) ?? '') } : {}),
      ...(item.date ? { question_date: item.date } : {}),
      ...(item.category ? { type: item.category } : {}),
      ...(item.split ? { split: item.split } : {}),
    });
  });
}

/** The task list; task ids are `<history>/<item id>` so several histories can share one list. */
export function toTaskList(items: readonly QAItem[], source: string): TaskList {
  const id = (item: QAItem) => `${item.history}/${item.id}`;
  const split = (s: 'train' | 'val' | 'test') => items.filter((i) => (i.split ?? 'train') === s).map(id);
  return TaskListSchema.parse({
    format: 'memsteer-task-list@1',
    source,
    tasks: items.map((item) => ({
      task_id: id(item),
      query: item.question,
      reference_answer: item.answer,
      evidence_ids: evidenceIds(item),
      metadata: {
        history: item.history,
        answer_type: item.answerType,
        ...(item.category ? { type: item.category } : {}),
        ...(item.date ? { question_date: item.date } : {}),
        ...(item.generator ? { generator: item.generator } : {}),
      },
    })),
    splits: { train: split('train'), val: split('val'), test: split('test') },
  });
}
