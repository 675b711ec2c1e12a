import { z } from 'zod';
import type { SourceRecord } from '../../../sandbox/contract.ts';
import type { History } from '../record.ts';
import { readJsonFile } from '../read-json.ts';
import { formatSource } from '../source.ts';
import { selectHistories, type LoaderOptions } from './common.ts';

const UserSchema = z.looseObject({
  name: z.string().optional(),
  history: z.record(z.string(), z.array(z.looseObject({ query: z.string(), response: z.string() }))),
});

const FileSchema = z.record(z.string(), UserSchema);

/**
 * Loads MemoryBank (`memory_bank_en.json`): one history per user (id = the user's name, trimmed), one `turn` record
 * per query/response pair (id `<date>:<n>`, thread = the day). The data set has no gold answers, so `qa` is empty.
 */
export function loadMemoryBank(path: string, options: LoaderOptions = {}): History[] {
  const file = readJsonFile(path, FileSchema, 'MemoryBank (object keyed by user name)');
  const users = Object.entries(file).map(([key, user]) => ({ id: key.trim(), user }));
  const keep = selectHistories(
    options.only,
    users.map((u) => u.id),
    path,
  );
  const out: History[] = [];
  for (const { id, user } of users) {
    if (!keep(id)) continue;
    const records: SourceRecord[] = [];
    for (const date of Object.keys(user.history).sort()) {
      user.history[date]!.forEach((pair, i) => {
        const r: SourceRecord = {
          id: `${date}:${i + 1}`,
          kind: 'turn',
          text: `User: ${pair.query}\nAssistant: ${pair.response}`,
          thread: date,
          speaker: 'user',
        };
        if (/^\d{4}-\d{2}-\d{2}$/.test(date)) r.time = date;
        records.push(r);
      });
    }
    out.push({ id, source: formatSource('memorybank', path, id), format: 'memorybank', records, qa: [], unresolvedEvidence: [] });
  }
  return out;
}
