import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.ts';
import { captureIO } from '../src/cli/io.ts';
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';
import { loadHistories } from '../src/history/load.ts';
import { QAItemSchema } from '../src/history/record.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { PlainItemSchema, TaskListSchema } from '../src/supervision/external-formats.ts';
import { writeJsonl } from '../src/util/jsonl.ts';
import { tempDir } from './helpers/temp-dir.ts';

describe('memsteer convert', () => {
  it('writes plain JSONL with evidence text and an M*-style task list with disjoint splits', async () => {
    const [history] = await loadHistories(DEFAULT_SOURCE);
    const { items } = await generateSupervision(history!, { mode: 'offline', n: 40, val: 0.4, seed: 3 });
    const dir = tempDir('memsteer-convert-');
    const sup = join(dir, 'sup.jsonl');
    writeJsonl(sup, items, QAItemSchema);

    const io = captureIO();
    expect(
      await main(['node', 'memsteer', 'convert', sup, '--to', 'plain', '--out', join(dir, 'plain.jsonl'), '--history', DEFAULT_SOURCE], io),
    ).toBe(0);
    const plain = readFileSync(join(dir, 'plain.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => PlainItemSchema.parse(JSON.parse(l)));
    expect(plain).toHaveLength(items.length);
    const records = new Map(history!.records.map((r) => [r.id, r.text]));
    for (const [i, p] of plain.entries()) {
      expect(p.question).toBe(items[i]!.question);
      expect(p.evidence.length).toBeGreaterThan(0);
      expect(p.evidence_text).toEqual(p.evidence.map((id) => records.get(id)));
    }

    expect(await main(['node', 'memsteer', 'convert', sup, '--to', 'task-list', '--out', join(dir, 'tasks.json')], io)).toBe(0);
    const list = TaskListSchema.parse(JSON.parse(readFileSync(join(dir, 'tasks.json'), 'utf8')));
    expect(list.tasks).toHaveLength(items.length);
    expect(list.splits.train.length + list.splits.val.length).toBe(items.length);
    expect(list.splits.train.filter((id) => list.splits.val.includes(id))).toEqual([]);

    expect(await main(['node', 'memsteer', 'convert', sup, '--to', 'csv', '--out', join(dir, 'x')], io)).toBe(1);
    expect(io.stderr).toMatch(/E_BAD_FLAG: .*--to.*csv/);
  });
});
