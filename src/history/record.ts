import { z } from 'zod';
import type { SourceRecord } from '../../sandbox/contract.ts';

/** Record kinds, as in the design contract. */
export const RecordKind = z.enum(['turn', 'email', 'document', 'note', 'event']);

const MetaValue = z.union([z.string(), z.number(), z.boolean()]);

/** A SourceRecord as validated on every read and write (the contract's type, checked by zod). */
export const SourceRecordSchema = z.object({
  id: z.string().min(1),
  kind: RecordKind,
  text: z.string(),
  time: z.string().optional(),
  thread: z.string().optional(),
  speaker: z.string().optional(),
  title: z.string().optional(),
  refs: z.array(z.string()).optional(),
  meta: z.record(z.string(), MetaValue).optional(),
});

/** One line of `records.jsonl`: a record plus the id of the history (user) it belongs to. */
export const RecordLineSchema = SourceRecordSchema.extend({ history: z.string().min(1) });
export type RecordLine = z.infer<typeof RecordLineSchema>;

export const AnswerType = z.enum(['text', 'number', 'list', 'boolean', 'date']);
export type AnswerType = z.infer<typeof AnswerType>;

/** A gold evidence pointer: a record id and, when known, the character span of the supporting text. */
export const EvidenceSchema = z.object({
  record: z.string().min(1),
  span: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).optional(),
  quote: z.string().optional(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

/**
 * A question with its reference answer and evidence. Official QA and generated supervision share this shape,
 * so every question set is scored the same way (one line of `supervision.jsonl`).
 */
export const QAItemSchema = z.object({
  id: z.string().min(1),
  /** History (user) id the question is about. */
  history: z.string().min(1),
  question: z.string().min(1),
  answer: z.string(),
  answerType: AnswerType,
  /** Official category (LoCoMo "1"…"5", RHELM question_type) or generated question type. */
  category: z.string().optional(),
  /** ISO date: only history up to this date may be used to answer. */
  date: z.string().optional(),
  evidence: z.array(EvidenceSchema),
  split: z.enum(['train', 'val', 'test']).optional(),
  /** Who made it: `official:<dataset>`, `rule-based@<version>`, `llm:<model>`… */
  generator: z.string().optional(),
  plan: z.unknown().optional(),
  /**
   * For a question that presupposes something (yes/no, false-premise): `verified` when the records support what it
   * assumes; `false` when they contradict it, with the false assumption and what the records say instead.
   */
  premise: z
    .object({
      status: z.enum(['verified', 'false']),
      assumption: z.string().min(1).optional(),
      correction: z.string().min(1).optional(),
    })
    .optional(),
  checks: z.record(z.string(), MetaValue).optional(),
  meta: z.record(z.string(), MetaValue).optional(),
});
export type QAItem = z.infer<typeof QAItemSchema>;

/** Kinds of degraded input a loader or question-file check reports instead of degrading silently. */
export const HistoryWarningCode = z.enum(['undated-session', 'dropped-session', 'replaced-bytes', 'unknown-evidence']);
export type HistoryWarningCode = z.infer<typeof HistoryWarningCode>;

/**
 * One kind of degraded input in a history, counted: `count` is how many instances (sessions, characters, ids) and
 * `message` says what was lost and where, in words a user can act on.
 */
export const HistoryWarningSchema = z.object({
  code: HistoryWarningCode,
  count: z.number().int().positive(),
  message: z.string().min(1),
});
export type HistoryWarning = z.infer<typeof HistoryWarningSchema>;

/** An evidence reference in the data that names no record of the history. Counted and listed, never dropped silently. */
export interface UnresolvedEvidence {
  qa: string;
  ref: string;
  reason: string;
}

/** One user's history, as loaded from any source format. */
export interface History {
  id: string;
  /** The source string it was loaded from (`<format>:<path>#<id>`). */
  source: string;
  format: string;
  records: SourceRecord[];
  /** Official QA when the data set has it; evidence already mapped to record ids. */
  qa: QAItem[];
  unresolvedEvidence: UnresolvedEvidence[];
  /** Degraded input, counted (undated or dropped sessions, replaced bytes…); absent or empty when there was none. */
  warnings?: HistoryWarning[];
}

// Compile-time guard: the zod schema and the sandbox contract must describe the same record.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const recordSchemaMatchesContract: Same<z.infer<typeof SourceRecordSchema>, SourceRecord> = true;
void recordSchemaMatchesContract;
