import { InputError, describeZodIssues } from '../../errors.ts';
import type { SourceRecord } from '../../../sandbox/contract.ts';
import { writeJsonl } from '../../util/jsonl.ts';
import type { History, RecordLine } from '../record.ts';
import { RecordLineSchema } from '../record.ts';
import { readText } from '../read-json.ts';
import { formatSource } from '../source.ts';
import { selectHistories, type LoaderOptions } from './common.ts';

/**
 * Loads memsteer's own `records.jsonl`: one SourceRecord per line plus its `history` id. Records are grouped by
 * history in order of first appearance and keep their file order. The format carries no QA (official questions
 * for such a history come from a separate file).
 */
export function loadRecordsJsonl(path: string, options: LoaderOptions = {}): History[] {
  const lines = readText(path).split('\n');
  const groups = new Map<string, SourceRecord[]>();
  const seen = new Map<string, Set<string>>();
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.trim();
    if (!text) continue;
    const where = `${path}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new InputError('E_BAD_JSON', `${where}: invalid JSON (${(err as Error).message}); fix or remove that line`, {
        file: path,
        line: i + 1,
      });
    }
    const parsed = RecordLineSchema.safeParse(value);
    if (!parsed.success) {
      throw new InputError('E_BAD_RECORD', `${where}: not a record line: ${describeZodIssues(parsed.error.issues)}`, {
        file: path,
        line: i + 1,
      });
    }
    const { history, ...record } = parsed.data;
    let ids = seen.get(history);
    if (!ids) {
      ids = new Set();
      seen.set(history, ids);
      groups.set(history, []);
    }
    if (ids.has(record.id)) {
      throw new InputError(
        'E_DUPLICATE_ID',
        `${where}: history '${history}': duplicate record id '${record.id}'; record ids must be unique within a history`,
        {
          file: path,
          line: i + 1,
        },
      );
    }
    ids.add(record.id);
    groups.get(history)!.push(record);
  }
  if (groups.size === 0) {
    throw new InputError('E_EMPTY_HISTORY', `${path}: no records in this file; it needs one JSON record per line with a 'history' field`, {
      file: path,
    });
  }
  const keep = selectHistories(options.only, [...groups.keys()], path);
  const out: History[] = [];
  for (const [id, records] of groups) {
    if (!keep(id)) continue;
    out.push({ id, source: formatSource('jsonl', path, id), format: 'jsonl', records, qa: [], unresolvedEvidence: [] });
  }
  return out;
}

/**
 * Writes histories as `records.jsonl` (the format {@link loadRecordsJsonl} reads). Every line is validated first
 * and the file is replaced atomically, so a failure leaves the old file untouched.
 */
export function writeRecordsJsonl(path: string, histories: readonly History[]): void {
  const rows: RecordLine[] = [];
  for (const h of histories) {
    const ids = new Set<string>();
    for (const r of h.records) {
      if (ids.has(r.id)) {
        throw new InputError('E_DUPLICATE_ID', `refusing to write ${path}: history '${h.id}' has duplicate record id '${r.id}'`, {
          file: path,
        });
      }
      ids.add(r.id);
      rows.push({ history: h.id, ...r });
    }
  }
  writeJsonl(path, rows, RecordLineSchema);
}
