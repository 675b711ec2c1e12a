/**
 * The one list or table a document section holds, and how many entries it has: "how many numbered recommendations are
 * listed under …" is what people ask of their notes (19 of the 229 questions of RHELM's development personas count the
 * rows of a table or the points of a list in a document). Generator and blind reader read the same structure, so a
 * count is answered from what the section says, never from the plan.
 */

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
/** First-column headers that say nothing of what a row is ("Name", "#", "Date"). */
const VAGUE_HEADERS = new Set(['name', 'item', 'items', 'no', 'number', 'date', 'day', 'time', 'step', 'category', 'type', 'detail']);

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

function pluralOf(word: string): string {
  const w = word.toLowerCase();
  if (/(?:s|x|z|ch|sh)$/.test(w)) return `${w}es`;
  if (/[^aeiou]y$/.test(w)) return `${w.slice(0, -1)}ies`;
  return `${w}s`;
}

/** The tables of a section: runs of rows with one cell count, the first row the header. */
function tablesOf(lines: readonly Line[]): SectionList[] {
  const out: SectionList[] = [];
  for (let k = 0; k < lines.length; k++) {
    if (!isRow(lines[k]!.text)) continue;
    const width = cells(lines[k]!.text).length;
    let m = k + 1;
    while (m < lines.length && (isRule(lines[m]!.text) || (isRow(lines[m]!.text) && cells(lines[m]!.text).length === width))) m++;
    // A lone row is a line of prose with a bar in it ("Nutritional Summary (per Serving | Makes 4 Servings)").
    if (m - k < 2) continue;
    const body = lines.slice(k + 1, m).filter((l) => !isRule(l.text));
    const header = cells(lines[k]!.text)[0]!.replace(/[*_]/g, '');
    const noun = /^\p{L}{3,}$/u.test(header) && !VAGUE_HEADERS.has(header.toLowerCase()) ? pluralOf(header) : undefined;
    out.push({ kind: 'table', count: body.length, noun, start: lines[k]!.start, end: lines[m - 1]!.end });
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
  const lines = linesOf(text);
  // The heading opens the section's text ("## Sources", "8. Actionable Recommendations"): it is no entry.
  if (heading && lines[0]?.text.replace(/^#+\s*/, '').trim() === heading.trim()) lines.shift();
  const tables = tablesOf(lines);
  const inTable = (l: Line) => tables.some((t) => l.start >= t.start && l.end <= t.end);
  const list = listOf(lines.filter((l) => !inTable(l)));
  if (list === 'several' || tables.length + (list ? 1 : 0) !== 1) return undefined;
  const found = list ?? tables[0]!;
  return found.count >= MIN_ENTRIES && found.count <= MAX_ENTRIES ? found : undefined;
}

/** How a question names the entries of `list`: "ingredients" of a table, "numbered points", "points". */
export function entriesNoun(list: SectionList): string {
  if (list.kind === 'table') return list.noun ?? 'rows';
  return list.kind === 'numbered' ? 'numbered points' : 'points';
}
