import { decodeEntities, htmlToText } from './html-text.ts';

/** One section of a document: a heading and the text up to the next heading of any level. */
export interface DocSection {
  /** Heading text as a reader sees it (markup removed); '' for the text before the first heading. */
  heading: string;
  /** 1–6 for headings, 0 for the text before the first heading. */
  level: number;
  /** The section's text, heading line included. */
  text: string;
  /** Index of the enclosing section (the nearest earlier one with a lower level), if any. */
  parent?: number;
}

/** Heading text with inline markup removed and whitespace collapsed. */
export function cleanHeading(s: string): string {
  return s
    .replace(/\*\*|__|`/g, '')
    .replace(/(^|\s)[*_](\S)/g, '$1$2')
    .replace(/(\S)[*_](?=\s|$)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Text that says nothing on its own (rules, blank lines) does not make a preamble section. */
function isFiller(text: string): boolean {
  return /^[\s\-–—_*=|]*$/.test(text);
}

function linkParents(sections: DocSection[]): DocSection[] {
  const stack: number[] = [];
  sections.forEach((s, i) => {
    if (s.level === 0) return;
    while (stack.length && sections[stack[stack.length - 1]!]!.level >= s.level) stack.pop();
    if (stack.length) s.parent = stack[stack.length - 1]!;
    stack.push(i);
  });
  return sections;
}

/** Splits Markdown at ATX headings (`#`…`######`), ignoring `#` lines inside fenced code blocks. */
export function splitMarkdown(markdown: string): DocSection[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const sections: DocSection[] = [];
  let current: { heading: string; level: number; lines: string[] } = { heading: '', level: 0, lines: [] };
  let fence: string | undefined;
  const flush = () => {
    const text = current.lines.join('\n').trim();
    if (current.level > 0 || !isFiller(text)) sections.push({ heading: current.heading, level: current.level, text });
  };
  for (const line of lines) {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1]![0];
      else if (f[1]![0] === fence) fence = undefined;
    }
    const h = fence === undefined ? /^\s{0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line) : null;
    if (h && cleanHeading(h[2]!)) {
      flush();
      current = { heading: cleanHeading(h[2]!), level: h[1]!.length, lines: [line.trim()] };
    } else {
      current.lines.push(line);
    }
  }
  flush();
  return linkParents(sections);
}

/** Splits an HTML document's body at `<h1>`…`<h6>` and turns each piece into plain text. */
export function splitHtml(html: string): DocSection[] {
  const body = /<body\b[^>]*>([\s\S]*?)(?:<\/body>|$)/i.exec(html)?.[1] ?? html;
  const re = /<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi;
  const sections: DocSection[] = [];
  let last = 0;
  let current: { heading: string; level: number } = { heading: '', level: 0 };
  const flush = (end: number) => {
    const bodyText = htmlToText(body.slice(last, end));
    if (current.level === 0) {
      if (!isFiller(bodyText)) sections.push({ heading: '', level: 0, text: bodyText });
    } else {
      sections.push({
        heading: current.heading,
        level: current.level,
        text: bodyText ? `${current.heading}\n\n${bodyText}` : current.heading,
      });
    }
  };
  for (let m = re.exec(body); m; m = re.exec(body)) {
    const heading = cleanHeading(decodeEntities(m[2]!.replace(/<[^>]+>/g, '')));
    if (!heading) continue;
    flush(m.index);
    current = { heading, level: Number(m[1]) };
    last = m.index + m[0].length;
  }
  flush(body.length);
  return linkParents(sections);
}

/** Splits a document by its file extension (`.html`/`.htm` as HTML, anything else as Markdown). */
export function splitDocument(fileName: string, content: string): DocSection[] {
  return /\.html?$/i.test(fileName) ? splitHtml(content) : splitMarkdown(content);
}
