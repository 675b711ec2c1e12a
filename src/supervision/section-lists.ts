/**
 * The one list or table a document section holds, and how many entries it has: "how many numbered recommendations are
 * listed under …" is what people ask of their notes (19 of the 229 questions of RHELM's development personas count the
 * rows of a table or the points of a list in a document). Generator and blind reader read the same structure, so a
 * count is answered from what the section says, never from the plan.
 */

import pluralize from 'pluralize';

/** The list or table of a section: its kind, its entries, and where it stands in the section's text. */
export interface SectionList {
  kind: 'table' | 'numbered' | 'bulleted';
  /** Rows of a table's body (the header row not counted), or a list's top-level points. */
  count: number;
  /** What a table's rows are, from its first column's one-word header ("Ingredient" → "ingredients"). */
  noun: string | undefined;
  start: number;
  end: number;
}

/** Fewer entries are no count; more are a census nobody recalls. */
const MIN_ENTRIES = 2;
const MAX_ENTRIES = 12;
/** First-column headers (singular) that say nothing of what a row is ("Name", "#", "Dates", "Field" of a key–value table). */
const VAGUE_HEADERS = new Set([
  'name',
  'item',
  'no',
  'number',
  'date',
  'day',
  'time',
  'step',
  'category',
  'type',
  'detail',
  'section',
  'field',
  'aspect',
  'attribute',
]);

interface Line {
  text: string;
  start: number;
  end: number;
}

function linesOf(text: string): Line[] {
  const out: Line[] = [];
  let at = 0;
  for (const text_ of text.split('\n')) {
    out.push({ text: text_, start: at, end: at + text_.length });
    at += text_.length + 1;
  }
  return out;
}

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());

/** A table row: a Markdown row ("| a | b |") or a converted HTML row ("a | b"), with at least two cells. */
const isRow = (line: string): boolean => line.includes('|') && cells(line).length >= 2;
const isRule = (line: string): boolean => /^\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line.trim());

/** A table as found: its list entry, and its header and body rows (rules left out). */
interface FoundTable {
  list: SectionList;
  header: Line;
  body: Line[];
}

/** The tables of a section: runs of rows with one cell count, the first row the header. */
function tablesOf(lines: readonly Line[]): FoundTable[] {
  const out: FoundTable[] = [];
  for (let k = 0; k < lines.length; k++) {
    if (!isRow(lines[k]!.text)) continue;
    const width = cells(lines[k]!.text).length;
    let m = k + 1;
    while (m < lines.length && (isRule(lines[m]!.text) || (isRow(lines[m]!.text) && cells(lines[m]!.text).length === width))) m++;
    // A lone row is a line of prose with a bar in it ("Nutritional Summary (per Serving | Makes 4 Servings)").
    if (m - k < 2) continue;
    const body = lines.slice(k + 1, m).filter((l) => !isRule(l.text));
    const header = cells(lines[k]!.text)[0]!.replace(/[*_]/g, '');
    const word = header.toLowerCase();
    const noun = /^\p{L}{3,}$/u.test(header) && !VAGUE_HEADERS.has(pluralize.singular(word)) ? pluralize.plural(word) : undefined;
    const list: SectionList = { kind: 'table', count: body.length, noun, start: lines[k]!.start, end: lines[m - 1]!.end };
    out.push({ list, header: lines[k]!, body });
    k = m - 1;
  }
  return out;
}

const NUMBERED = /^(\d{1,2})[.)]\s+\S/;
const BULLET = /^[-*+•]\s+\S/;

/**
 * The top-level points of a section: numbered ones must run 1, 2, 3… (text may stand between them: "1. Strengthen
 * transparency:" and its paragraph); bulleted ones must follow each other with only blank lines between.
 */
function listOf(lines: readonly Line[]): SectionList | undefined | 'several' {
  const numbered = lines.filter((l) => NUMBERED.test(l.text));
  const bulleted = lines.filter((l) => BULLET.test(l.text));
  if (numbered.length && bulleted.length) return 'several';
  if (numbered.length) {
    if (!numbered.every((l, k) => Number(NUMBERED.exec(l.text)![1]) === k + 1)) return 'several';
    return { kind: 'numbered', count: numbered.length, noun: undefined, start: numbered[0]!.start, end: numbered.at(-1)!.end };
  }
  if (!bulleted.length) return undefined;
  const from = lines.indexOf(bulleted[0]!);
  const to = lines.indexOf(bulleted.at(-1)!);
  if (lines.slice(from, to + 1).some((l) => l.text.trim() && !BULLET.test(l.text))) return 'several';
  return { kind: 'bulleted', count: bulleted.length, noun: undefined, start: bulleted[0]!.start, end: bulleted.at(-1)!.end };
}

/**
 * The one list or table of a section's text (its heading line, when it opens the text, left out) with 2–12 entries,
 * or undefined when it holds none, several, or both a list and a table: then "how many are listed" names no single
 * thing.
 */
export function sectionList(text: string, heading?: string): SectionList | undefined {
  const found = oneStructure(text, heading);
  const list = found && 'list' in found ? found.list : found;
  return list && countable(list) ? list : undefined;
}

/** 2–12 entries: fewer are no count, more a census nobody recalls. */
const countable = (list: SectionList): boolean => list.count >= MIN_ENTRIES && list.count <= MAX_ENTRIES;

/** The one list or table of a section's text, or undefined when it holds none or several. */
function oneStructure(text: string, heading: string | undefined): SectionList | FoundTable | undefined {
  const lines = linesOf(text);
  // The heading opens the section's text ("## Sources", "8. Actionable Recommendations"): it is no entry.
  if (heading && lines[0]?.text.replace(/^#+\s*/, '').trim() === heading.trim()) lines.shift();
  const tables = tablesOf(lines);
  const inTable = (l: Line) => tables.some((t) => l.start >= t.list.start && l.end <= t.list.end);
  const list = listOf(lines.filter((l) => !inTable(l)));
  if (list === 'several' || tables.length + (list ? 1 : 0) !== 1) return undefined;
  return list ?? tables[0]!;
}

/** One body row of a table: its cells as read (Markdown emphasis and HTML breaks taken out) and its line. */
export interface TableRow {
  cells: string[];
  start: number;
  end: number;
}

/** The one table of a section: its header cells and body rows. */
export interface SectionTable {
  header: string[];
  rows: TableRow[];
  /** What its rows are (see {@link SectionList.noun}). */
  noun: string | undefined;
}

/** A cell as a person reads it: "**Brown lentils**" → "Brown lentils", "a<br>b" → "a b". */
export function cellText(cell: string): string {
  return cell
    .replace(/<br\s*\/?>/gi, ' ')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The table of a section whose one structure is a table of 2–12 rows (as {@link sectionList} finds it). */
export function sectionTable(text: string, heading?: string): SectionTable | undefined {
  const found = oneStructure(text, heading);
  if (!found || !('list' in found) || !countable(found.list)) return undefined;
  return {
    header: cells(found.header.text).map(cellText),
    rows: found.body.map((l) => ({ cells: cells(l.text).map(cellText), start: l.start, end: l.end })),
    noun: found.list.noun,
  };
}

/** How a question names the entries of `list`: "ingredients" of a table, "numbered points", "points". */
export function entriesNoun(list: SectionList): string {
  if (list.kind === 'table') return list.noun ?? 'rows';
  return list.kind === 'numbered' ? 'numbered points' : 'points';
}

/** Whether `table` has a row named `row` by its first cell and a value column headed `header`, case aside. */
export function hasCell(table: SectionTable, header: string, row: string): boolean {
  const key = (s: string): string => s.toLowerCase();
  return table.header.slice(1).some((h) => key(h) === key(header)) && table.rows.some((r) => key(r.cells[0] ?? '') === key(row));
}
