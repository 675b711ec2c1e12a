import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadHistories } from '../src/history/load.ts';
import { writeRecordsJsonl } from '../src/history/loaders/jsonl.ts';
import type { History } from '../src/history/record.ts';

const FIX = resolve(fileURLToPath(new URL('.', import.meta.url)), 'fixtures', 'history');

describe('jsonl loader', () => {
  it('groups records by history in order of first appearance, keeping file order', async () => {
    const path = resolve(FIX, 'records.jsonl');
    const hs = await loadHistories(`jsonl:${path}`);
    expect(hs.map((h) => [h.id, h.records.map((r) => r.id)])).toEqual([
      ['alice', ['a1', 'a2', 'a3']],
      ['bob', ['b1']],
    ]);
    const a3 = hs[0]!.records[2]!;
    expect(a3).toEqual({
      id: 'a3',
      kind: 'document',
      text: '# Cat care\nFeed twice a day.',
      thread: 'care.md',
      title: 'Cat care',
      refs: ['a1'],
      meta: { section: 1 },
    });
    expect('history' in a3).toBe(false);
    expect(hs[0]!.source).toBe(`jsonl:${path}#alice`);
    expect(hs[0]!.qa).toEqual([]);
  });
  it('selects one history with #', async () => {
    const hs = await loadHistories(`jsonl:${resolve(FIX, 'records.jsonl')}#bob`);
    expect(hs.map((h) => h.id)).toEqual(['bob']);
  });
});

describe('writeRecordsJsonl', () => {
  it('writes what the loader reads back, atomically', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memsteer-jsonl-'));
    try {
      const src = await loadHistories(`jsonl:${resolve(FIX, 'records.jsonl')}`);
      const out = join(dir, 'sub', 'records.jsonl');
      writeRecordsJsonl(out, src);
      expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(4);
      expect(readdirSync(join(dir, 'sub'))).toEqual(['records.jsonl']);
      const back = await loadHistories(`jsonl:${out}`);
      expect(back.map((h) => h.records)).toEqual(src.map((h) => h.records));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('refuses invalid records and duplicate ids without touching the target', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memsteer-jsonl-'));
    try {
      const out = join(dir, 'records.jsonl');
      const h = (records: History['records']): History => ({
        id: 'u',
        source: 'x',
        format: 'jsonl',
        records,
        qa: [],
        unresolvedEvidence: [],
      });
      expect(() =>
        writeRecordsJsonl(out, [
          h([
            { id: 'r1', kind: 'turn', text: 'a' },
            { id: 'r1', kind: 'turn', text: 'b' },
          ]),
        ]),
      ).toThrow(/duplicate record id 'r1'/);
      const bad = { id: '', kind: 'turn', text: 'a' } as History['records'][number];
      expect(() => writeRecordsJsonl(out, [h([bad])])).toThrow(/refusing to write/);
      expect(existsSync(out)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
