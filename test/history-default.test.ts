import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SOURCE, DEFAULT_DATA_DIR } from '../src/history/default-source.ts';
import { loadHistories } from '../src/history/load.ts';
import { summarizeHistory } from '../src/history/summary.ts';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

describe('embedded default history', () => {
  it('points at the copy inside the package', () => {
    expect(DEFAULT_DATA_DIR).toBe(resolve(REPO, 'data', 'default', 'rhelm'));
    expect(DEFAULT_SOURCE).toBe(`rhelm:${DEFAULT_DATA_DIR}#Elena_Morales`);
    expect(readFileSync(resolve(REPO, 'data', 'default', 'LICENSE'), 'utf8')).toContain('Copyright (c) Microsoft Corporation');
    expect(existsSync(resolve(REPO, 'data', 'default', 'SOURCE.md'))).toBe(true);
  });
  it('loads Elena_Morales with the counts SOURCE.md states', async () => {
    const hs = await loadHistories(DEFAULT_SOURCE);
    expect(hs).toHaveLength(1);
    const h = hs[0]!;
    expect(h.id).toBe('Elena_Morales');
    const s = summarizeHistory(h);
    expect(s.recordsByKind).toEqual({ document: 428, email: 67, turn: 846 });
    expect(s.records).toBe(1341);
    expect(s.threads).toBe(49 + 46 + 38);
    expect(s.time.first).toBe('2024-02-01');
    expect(s.time.last?.slice(0, 10)).toBe('2024-12-15');
    expect(s.qa).toEqual({
      total: 87,
      byCategory: { aggregation: 7, attachment: 16, fact: 18, hallucination: 14, misleading: 3, mixed: 16, temporal: 13 },
    });
    expect(s.evidence).toMatchObject({ refs: 167, resolved: 166, unresolved: 1 });
    expect(s.evidence.unresolvedList).toEqual([
      {
        qa: 'mixed_04aebb',
        ref: '40_notes_task_5fa66599:Best Practices and Professional Insights',
        reason: 'no attachment named 40_notes_task_5fa66599',
      },
    ]);
    // Every question is dated and every resolved reference names a record of this history.
    const ids = new Set(h.records.map((r) => r.id));
    for (const q of h.qa) {
      expect(q.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      for (const e of q.evidence) expect(ids.has(e.record)).toBe(true);
    }
  });
});
