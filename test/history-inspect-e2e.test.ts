import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.ts';
import { captureIO } from '../src/cli/io.ts';
import { HistoriesSummarySchema } from '../src/history/summary.ts';
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const FIX = resolve(HERE, 'fixtures', 'history');
// The shared benchmark data sits next to the repository (<repo>/../shared/data); not every checkout has it.
const SHARED = resolve(HERE, '..', '..', 'shared', 'data');
const LOCOMO = resolve(SHARED, 'locomo', 'locomo10.json');
const RHELM = resolve(SHARED, 'rhelm');
const haveShared = existsSync(LOCOMO) && existsSync(RHELM);
if (!haveShared) console.warn(`skipping inspect end-to-end tests on real data: ${SHARED} not found`);

async function inspect(...args: string[]) {
  const io = captureIO();
  const code = await main(['node', 'memsteer', 'inspect', ...args], io);
  return { code, out: io.stdout, err: io.stderr };
}

async function inspectJson(source: string) {
  const r = await inspect(source, '--json');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return HistoriesSummarySchema.parse(JSON.parse(r.out));
}

describe('memsteer inspect (fixtures)', () => {
  it('prints tables per history with totals', async () => {
    const r = await inspect(`locomo:${resolve(FIX, 'locomo-mini.json')}`);
    expect(r.code).toBe(0);
    expect(r.out).toContain('2 histories');
    expect(r.out).toMatch(/│ conv-1 +│ 5 +│/);
    expect(r.out).toMatch(/│ total +│ 6 +│/);
    expect(r.out).toContain('QA by category');
    expect(r.out).toContain('9 references, 6 resolved');
    expect(r.out).toContain('turn 9 is past the end of session 2 (2 turns)');
  });
  it('resolves range and punctuated evidence references of a LoCoMo-layout file', async () => {
    const s = await inspectJson(`locomo:${resolve(FIX, 'locomo-ranges.json')}`);
    expect(s.total.evidence).toMatchObject({ refs: 10, resolved: 8, unresolved: 2, approximate: 2 });
    expect(s.total.evidence.unresolvedList.map((u) => u.ref)).toEqual(['D3:2-D3:9', 'D3:3-D3:1']);
    const table = await inspect(`locomo:${resolve(FIX, 'locomo-ranges.json')}`);
    expect(table.out).toContain('10 references, 8 resolved');
    expect(table.out).toContain("range 'D3:2-D3:9': turn 9 is past the end of session 3 (3 turns)");
  });
  it('reports bad input as one line with the error code and exit 1', async () => {
    const path = resolve(FIX, 'bad-json.jsonl');
    const r = await inspect(`jsonl:${path}`);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(new RegExp(`^memsteer: E_BAD_JSON: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: invalid JSON`));
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });
  it('inspects the embedded default history', async () => {
    const s = await inspectJson(DEFAULT_SOURCE);
    expect(s.total).toMatchObject({ histories: 1, records: 1341, qa: { total: 87 } });
  });
});

describe.skipIf(!haveShared)('memsteer inspect on ../shared/data', () => {
  it('LoCoMo: 10 histories, 5,882 turns, 1,986 QA by category, unresolved evidence listed', async () => {
    const s = await inspectJson(`locomo:${LOCOMO}`);
    expect(s.total.histories).toBe(10);
    expect(s.total.records).toBe(5882);
    expect(s.total.recordsByKind).toEqual({ turn: 5882 });
    expect(s.total.threads).toBe(272);
    expect(s.total.qa).toEqual({ total: 1986, byCategory: { 1: 282, 2: 321, 3: 96, 4: 841, 5: 446 } });
    expect(s.histories.map((h) => [h.id, h.records, h.qa.total])).toEqual([
      ['conv-26', 419, 199],
      ['conv-30', 369, 105],
      ['conv-41', 663, 193],
      ['conv-42', 629, 260],
      ['conv-43', 680, 242],
      ['conv-44', 675, 158],
      ['conv-47', 689, 190],
      ['conv-48', 681, 239],
      ['conv-49', 509, 196],
      ['conv-50', 568, 204],
    ]);
    expect(s.total.evidence.unresolvedList.map((u) => [u.qa, u.ref])).toEqual([
      ['conv-42:q58', 'D10:19'],
      ['conv-42:q88', 'D'],
      ['conv-47:q38', 'D4:36'],
    ]);
    expect(s.total.evidence.resolved).toBe(s.total.evidence.refs - 3);
    const table = await inspect(`locomo:${LOCOMO}`);
    expect(table.out).toMatch(/│ total +│ 5,882 +│/);
    expect(table.out).toContain('D10:19');
  });

  it('RHELM: 8 personas, 919 QA by type, turns / e-mails / sections, unresolved evidence listed', async () => {
    const s = await inspectJson(`rhelm:${RHELM}`);
    expect(s.total.histories).toBe(8);
    expect(s.histories.map((h) => h.id)).toEqual([
      'David_Reyes',
      'Dr._Alastair_McEwan',
      'Dr._Elena_Markovic',
      'Dr._Elias_Romero',
      'Dr._Marcus_Ellison',
      'Elena_Morales',
      'Jonas_Richter',
      'Justice_Arvind_Prakash_Mehra',
    ]);
    expect(s.total.recordsByKind.turn).toBe(8836);
    expect(s.total.recordsByKind.email).toBe(862);
    expect(s.total.recordsByKind.document).toBe(9945);
    expect(s.total.qa).toEqual({
      total: 919,
      byCategory: { aggregation: 118, attachment: 172, fact: 145, hallucination: 153, misleading: 45, mixed: 157, temporal: 129 },
    });
    expect(s.total.evidence).toMatchObject({ refs: 2031, resolved: 2030, unresolved: 1 });
    expect(s.total.evidence.unresolvedList).toEqual([
      {
        history: 'Elena_Morales',
        qa: 'mixed_04aebb',
        ref: '40_notes_task_5fa66599:Best Practices and Professional Insights',
        reason: 'no attachment named 40_notes_task_5fa66599',
      },
    ]);
  });

  it('RHELM #persona loads only that persona', async () => {
    const s = await inspectJson(`rhelm:${RHELM}#Jonas_Richter`);
    expect(s.histories.map((h) => [h.id, h.recordsByKind.turn, h.recordsByKind.email, h.qa.total])).toEqual([
      ['Jonas_Richter', 980, 101, 106],
    ]);
  });
});
