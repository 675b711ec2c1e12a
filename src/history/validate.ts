import { InputError, describeZodIssues } from '../errors.ts';
import type { History } from './record.ts';
import { HistoryWarningSchema, QAItemSchema, SourceRecordSchema } from './record.ts';

/**
 * Checks a loaded history before anyone uses it: every record and QA item passes its zod schema, record ids are
 * unique, and the history is not empty. `file` is what the messages name (the source file or folder).
 */
export function validateHistory(h: History, file: string): History {
  if (h.records.length === 0) {
    throw new InputError('E_EMPTY_HISTORY', `${file}: history '${h.id}' has no records; remove it or add its records`, { file });
  }
  const seen = new Set<string>();
  for (let i = 0; i < h.records.length; i++) {
    const r = h.records[i]!;
    const parsed = SourceRecordSchema.safeParse(r);
    if (!parsed.success) {
      throw new InputError(
        'E_BAD_RECORD',
        `${file}: history '${h.id}', record ${i + 1} (${String(r?.id)}): ${describeZodIssues(parsed.error.issues)}`,
        { file },
      );
    }
    if (seen.has(r.id)) {
      throw new InputError(
        'E_DUPLICATE_ID',
        `${file}: history '${h.id}': duplicate record id '${r.id}'; record ids must be unique within a history`,
        { file },
      );
    }
    seen.add(r.id);
  }
  const qaIds = new Set<string>();
  for (const q of h.qa) {
    const parsed = QAItemSchema.safeParse(q);
    if (!parsed.success) {
      throw new InputError('E_BAD_QA', `${file}: history '${h.id}', question ${String(q?.id)}: ${describeZodIssues(parsed.error.issues)}`, {
        file,
      });
    }
    if (qaIds.has(q.id)) {
      throw new InputError('E_DUPLICATE_ID', `${file}: history '${h.id}': duplicate question id '${q.id}'`, { file });
    }
    qaIds.add(q.id);
    for (const e of q.evidence) {
      // Loaders map evidence to record ids; one that names no record is a loader bug, not bad data.
      if (!seen.has(e.record)) throw new Error(`evidence ${e.record} of ${q.id} names no record of history ${h.id}`);
    }
  }
  for (const w of h.warnings ?? []) HistoryWarningSchema.parse(w);
  return h;
}
