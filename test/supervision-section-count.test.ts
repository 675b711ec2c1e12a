import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { checkBlindReading } from '../src/supervision/blind-recovery.ts';
import { createOfflineBlindReader } from '../src/supervision/offline-reader.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { createRng } from '../src/supervision/rng.ts';
import { createRuleContext } from '../src/supervision/rule-based/generator.ts';
import { askableCells, sectionCellQuestion } from '../src/supervision/rule-based/section-cell.ts';
import { sectionCountQuestion } from '../src/supervision/rule-based/section-count.ts';
import { inUserVoice } from '../src/supervision/rule-based/voice.ts';
import { entriesNoun, sectionList, sectionTable } from '../src/supervision/section-lists.ts';
import { passesChecks } from './helpers/candidate-checks.ts';
import { documentSection, turn, userTurn } from './helpers/turn.ts';

const FILE = 'stew.md';
const section = documentSection(FILE, '2024-02-01T09:00:00Z', '## ');

// An invented recipe note: a table of ingredients, numbered steps with a paragraph under each, and loose bullets.
const ROOT = 'Winter Lentil Stew';
const TABLE = [
  '| Ingredient | Quantity | Notes |',
  '|------------|----------|-------|',
  '| Brown lentils | 250 g | Rinse well |',
  '| Carrots | 2 | Chopped |',
  '| Vegetable broth | 1 liter | Low-sodium |',
].join('\n');
const STEPS = '1. **Prep**\nWash and dice everything.\n\n2. **Sauté**\nOnion first.\n\n3. **Simmer**\nAbout 38 minutes.';
const records: SourceRecord[] = [
  turn('c1:1', 'user', '2024-02-01T18:00:00Z', 'c1', 'User: Can you help me tidy up my stew notes?'),
  section(1, 1, ROOT, 'A pot for four, cooked on a Thursday.'),
  section(2, 2, 'Ingredients Table', TABLE, ROOT),
  section(3, 2, 'Preparation Steps', STEPS, ROOT),
  section(4, 2, 'Reflections', '- Kale instead of spinach.\n- Paste added late.', ROOT),
  section(5, 2, 'Mixed Notes', '- One bullet.\n- Two bullets.\n\n1. A numbered line.\n2. Another.', ROOT),
  section(6, 2, 'Pantry Check', '| Item | Status |\n|---|---|\n| Cumin | Running low |\n| Bay leaves | Plenty |', ROOT),
];
const graph = buildRecordGraph(records);
const ctx = createRuleContext(graph);
const at = (title: string): number => graph.index.get(`${FILE}:${title}`)!;
const reader = createOfflineBlindReader();

describe('the one list or table of a document section', () => {
  it('counts a table’s body rows, numbered points in sequence and bullets, and names what a table’s rows are', () => {
    const table = sectionList(records[2]!.text, 'Ingredients Table')!;
    expect([table.kind, table.count, entriesNoun(table)]).toEqual(['table', 3, 'ingredients']);
    const steps = sectionList(records[3]!.text, 'Preparation Steps')!;
    expect([steps.kind, steps.count, entriesNoun(steps)]).toEqual(['numbered', 3, 'numbered points']);
    expect(sectionList(records[4]!.text, 'Reflections')).toMatchObject({ kind: 'bulleted', count: 2 });
  });

  it('has no count where a section holds two structures, a broken numbering, a lone row or too few entries', () => {
    expect(sectionList(records[5]!.text, 'Mixed Notes')).toBeUndefined();
    expect(sectionList('1. First.\n3. Third.', undefined)).toBeUndefined();
    expect(sectionList('## Summary (per Serving | Makes 4)\n\nA calm paragraph.', 'Summary (per Serving | Makes 4)')).toBeUndefined();
    expect(sectionList('- Only one point.', undefined)).toBeUndefined();
    // A numbered heading opening the text is the heading, not the list's first point.
    expect(sectionList('8. Recommendations\n\n1. Audit.\n2. Encrypt.', '8. Recommendations')).toMatchObject({ count: 2 });
  });
});

// The stew notes as shared in a chat: the questions name the talk, never the title, as the personas ask.
const sharing = userTurn('c2:1', '2024-02-01T18:00:00Z', '[Upload stew.md] Could you check the lentil quantities in my winter stew notes?');
const shared = [sharing, ...records.slice(1)];
const g = buildRecordGraph(shared);
const sharedCtx = createRuleContext(g);

describe('section-count questions about the person’s own documents', () => {
  const count = (title: string) => sectionCountQuestion(sharedCtx, g.index.get(`${FILE}:${title}`)!, createRng('count'));

  it('asks how many entries a section lists, with the sharing turn and the list as verbatim evidence', async () => {
    const c = count('Ingredients Table')!;
    const asked = inUserVoice(c.question);
    expect(asked).toMatch(
      /^In the document I shared while talking about .+, how many ingredients are listed in the table under “Ingredients Table”\?$/,
    );
    expect(asked).not.toContain(ROOT);
    expect(c.plan.answer).toBe('3');
    expect(c.plan.facts.at(-1)!.quote).toBe(TABLE);
    expect(c.plan.evidence.map((e) => e.record)).toEqual(['c2:1', `${FILE}:Ingredients Table`]);
    expect(passesChecks(c, shared, 'multi-hop')).toEqual({ plan: true, question: true });
    // The blind reader finds the turn, follows its upload to the document and counts the table's rows there.
    const reading = await reader.read({ question: asked, answerType: 'number', records: shared });
    expect(
      checkBlindReading(reading, { answer: '3', answerType: 'number', evidenceRecords: ['c2:1', `${FILE}:Ingredients Table`] }),
    ).toEqual({ ok: true });
    const steps = count('Preparation Steps')!;
    expect(steps.question).toMatch(/how many numbered points are listed under “Preparation Steps”\?$/);
    expect((await reader.read({ question: inUserVoice(steps.question), answerType: 'number', records: shared })).answer).toBe('3');
    expect(count('Reflections')!.question).toMatch(/how many points are listed under “Reflections”\?$/);
    // Without the section the reader has nothing to count.
    const without = shared.filter((r) => r.title !== 'Ingredients Table');
    expect((await reader.read({ question: asked, answerType: 'number', records: without })).answerable).toBe(false);
  });

  it('asks nothing of a root section, a section with two structures, or a document no conversation shared', () => {
    expect(count(ROOT)).toBeUndefined();
    expect(count('Mixed Notes')).toBeUndefined();
    // Named by its title, the heading and the title find the section for any retriever; the personas never ask so.
    for (let seed = 0; seed < 10; seed++)
      expect(sectionCountQuestion(ctx, at('Ingredients Table'), createRng(`title:${seed}`))).toBeUndefined();
  });
});

describe('section-cell look-ups in a table of the person’s own documents', () => {
  const cell = (title: string, seed: string) => sectionCellQuestion(sharedCtx, g.index.get(`${FILE}:${title}`)!, createRng(seed));

  it('reads a table’s cells as a person does, and asks only cells named by a unique row and a header', () => {
    const table = sectionTable(
      '| **Item** | Price | Where |\n|---|---|---|\n| Bread | 3 € | Bakery<br>Müller |\n| Jam | 3 € | - |',
      undefined,
    )!;
    expect(table.header).toEqual(['Item', 'Price', 'Where']);
    expect(table.rows.map((r) => r.cells)).toEqual([
      ['Bread', '3 €', 'Bakery Müller'],
      ['Jam', '3 €', '-'],
    ]);
    // A price both rows share says nothing of either; an empty cell is no answer.
    expect(askableCells(table)).toEqual([{ row: 0, column: 2 }]);
    expect(sectionTable(STEPS, 'Preparation Steps')).toBeUndefined();
  });

  it('asks the cell of a row and column, the sharing turn and the row as verbatim evidence, and the reader reads it back', async () => {
    const rows = TABLE.split('\n').slice(2);
    const asked = new Set<string>();
    for (let seed = 0; seed < 12; seed++) {
      const c = cell('Ingredients Table', `cell:${seed}`)!;
      const q = inUserVoice(c.question);
      const m = /^In the document I shared while talking about .+, what is listed as “(.+)” for “(.+)” in the ingredients table\?$/.exec(
        q,
      )!;
      expect(m, q).not.toBeNull();
      asked.add(`${m[1]}/${m[2]}`);
      const row = rows.find((l) => l.includes(`| ${m[2]} |`))!;
      expect(c.plan.facts.at(-1)!.quote).toBe(row);
      expect(row).toContain(`| ${c.plan.answer} |`);
      expect(c.plan.evidence.map((e) => e.record)).toEqual(['c2:1', `${FILE}:Ingredients Table`]);
      expect(passesChecks(c, shared, 'multi-hop')).toEqual({ plan: true, question: true });
      const reading = await reader.read({ question: q, answerType: c.plan.answerType, records: shared });
      const expected = { answer: c.plan.answer, answerType: c.plan.answerType, evidenceRecords: ['c2:1', `${FILE}:Ingredients Table`] };
      expect(checkBlindReading(reading, expected), JSON.stringify([q, reading])).toEqual({ ok: true });
      // Without the table's section the reader has no cell to read.
      const without = shared.filter((r) => r.title !== 'Ingredients Table');
      expect((await reader.read({ question: q, answerType: c.plan.answerType, records: without })).answerable).toBe(false);
    }
    expect(asked.size).toBeGreaterThan(2);
  });

  it('names a table whose first column says nothing of its rows as the document’s table', async () => {
    const c = cell('Pantry Check', 'pantry')!;
    const q = inUserVoice(c.question);
    expect(q).toMatch(/, what is listed as “Status” for “(Cumin|Bay leaves)” in the table\?$/);
    expect(q).not.toContain('Pantry Check');
    expect((await reader.read({ question: q, answerType: 'text', records: shared })).answer).toBe(c.plan.answer);
  });

  it('asks nothing of a section without one table, or of a document no conversation shared', () => {
    expect(cell('Preparation Steps', 'cell')).toBeUndefined();
    expect(cell('Reflections', 'cell')).toBeUndefined();
    for (let seed = 0; seed < 10; seed++)
      expect(sectionCellQuestion(ctx, at('Ingredients Table'), createRng(`title:${seed}`))).toBeUndefined();
  });
});
