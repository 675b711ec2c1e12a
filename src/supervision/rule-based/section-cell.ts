/**
 * Look-ups in a table of the person's own documents: "In the document I shared while talking about the stew, what is
 * listed as “Quantity” for “Carrots” in the ingredients table?" → "2". RHELM's development personas ask this of their
 * notes ("what alternative ingredient do I list for carrots in the ingredients table?", "what was the name of the vendor
 * listed for the rye sourdough loaf in the market purchases table from that same document?"); it is most of what they
 * ask about a document's content, and before this family the generated sets asked a document's outline and counts
 * only. The document is named by the conversation that shared it (section-order.ts), the table by what its rows are
 * when its first column says so, and the answer is the cell the blind reader reads the same way (section-lists.ts).
 *
 * A document no conversation shared is not asked about. Named by the day it was written ("In my document from
 * 1 February 2024, …", as the personas name some), look-ups and counts became the easiest items of the sets
 * (Base-BM25's context recall 0.82–1.0 on the development personas' validation split) and the held-out difficulty
 * gap rose to 12 points (`bench/results/2026-12-06-table-cells/`).
 */
import type { Rng } from '../rng.ts';
import { hasCell, type SectionTable, sectionTable } from '../section-lists.ts';
import type { RuleContext } from './rule-context.ts';
import { documentNamed, outlinedSection } from './section-order.ts';
import { plan, type RuleCandidate } from './templates.ts';

/** Row names and column headers longer than this are sentences, not something a person names. */
const MAX_NAME = 40;
/** Cells longer than this are notes, not a value a person recalls. */
const MAX_ANSWER_WORDS = 8;
/** Cells that say nothing on their own. */
const EMPTY = /^(?:|-+|—|–|n\/?a|none|tbd|yes|no|✓|✔|✗|x|\?)$/i;

const nameable = (s: string): boolean => s.length >= 2 && s.length <= MAX_NAME && /\p{L}/u.test(s) && !/[[\]<>|]/.test(s);
const key = (s: string): string => s.toLowerCase();

/**
 * Where a question names a table: "the ingredients table" when its first column says what its rows are and no other
 * table of its document has rows of that noun, else "the table" (the document is named already, and no other table of
 * it has the row and the column asked). Never by its section's heading: "the table under “3. Table: New Seasonal
 * Planting Ideas (Mid-April Onwards)”" hands a lexical retriever the section (Base-BM25's context recall 0.56 on such
 * items of the development personas' validation split, against 0.35 on their own questions of a document's content).
 */
function tableNamed(table: SectionTable, others: readonly SectionTable[]): string {
  return table.noun && !others.some((o) => o.noun === table.noun) ? `the ${table.noun} table` : 'the table';
}

/** The value cells of `table` a question can ask: row named by its unique first cell, column by its header. */
export function askableCells(table: SectionTable): Array<{ row: number; column: number }> {
  const out: Array<{ row: number; column: number }> = [];
  const firsts = table.rows.map((r) => key(r.cells[0] ?? ''));
  const headers = table.header.map(key);
  for (let column = 1; column < table.header.length; column++) {
    const header = table.header[column]!;
    if (!nameable(header) || headers.indexOf(key(header)) !== column) continue;
    const values = table.rows.map((r) => key(r.cells[column] ?? ''));
    table.rows.forEach((r, row) => {
      const name = r.cells[0] ?? '';
      const value = r.cells[column] ?? '';
      if (!nameable(name) || firsts.indexOf(key(name)) !== row || firsts.lastIndexOf(key(name)) !== row) return;
      if (EMPTY.test(value) || value.split(/\s+/).length > MAX_ANSWER_WORDS || key(value) === key(name)) return;
      // A value the whole column shares ("Daily") answers nothing about the row.
      if (values.indexOf(key(value)) !== values.lastIndexOf(key(value))) return;
      out.push({ row, column });
    });
  }
  return out;
}

/** "what is listed as “C” for “R” in the … table" of outlined section `i`, or undefined when it holds no such table. */
export function sectionCellQuestion(ctx: RuleContext, i: number, rng: Rng): RuleCandidate | undefined {
  const found = outlinedSection(ctx, i);
  if (!found) return undefined;
  const { r, document, title } = found;
  const table = sectionTable(r.text, r.title);
  if (!table) return undefined;
  const cells = askableCells(table);
  if (!cells.length) return undefined;
  const { row, column } = cells[rng.int(cells.length)]!;
  const line = table.rows[row]!;
  const rowName = line.cells[0]!;
  const header = table.header[column]!;
  const answer = line.cells[column]!;
  const named = documentNamed(ctx, i, title, ctx.speakerStems, rng);
  if (!named) return undefined;
  const others = document.flatMap((o) => (o !== r && o.title ? (sectionTable(o.text, o.title) ?? []) : []));
  // Named by its row and column, the cell must be the only one of its document there.
  if (others.some((o) => hasCell(o, header, rowName))) return undefined;
  const where = tableNamed(table, others);
  return {
    type: 'multi-hop',
    template: 'section-cell',
    question: `${named.lead}, what is listed as “${header}” for “${rowName}” in ${where}?`,
    plan: plan(
      'multi-hop',
      `the “${header}” of “${rowName}” in ${where} of ${named.described}, under “${r.title}”`,
      answer,
      /^\d+(?:[.,]\d+)?$/.test(answer) ? 'number' : 'text',
      [
        ...named.facts,
        {
          record: r.id,
          quote: r.text.slice(line.start, line.end),
          statement: `the row “${rowName}” of the table under “${r.title}” gives “${answer}” as its “${header}”`,
        },
      ],
      new Map([...named.roles, [r.id, 'its table row holds the answer']]),
      named.operations,
    ),
  };
}
