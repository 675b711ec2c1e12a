const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
  middot: '·',
  bull: '•',
  deg: '°',
  times: '×',
  copy: '©',
  reg: '®',
  trade: '™',
  euro: '€',
  pound: '£',
  eacute: 'é',
  egrave: 'è',
  aacute: 'á',
  iacute: 'í',
  oacute: 'ó',
  uacute: 'ú',
  ntilde: 'ñ',
  uuml: 'ü',
  ouml: 'ö',
  auml: 'ä',
  ccedil: 'ç',
  rarr: '→',
  larr: '←',
  le: '≤',
  ge: '≥',
};

/** Decodes HTML character references (named ones we meet in practice, and all numeric ones). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[body.toLowerCase()] ?? whole;
  });
}

/**
 * Plain text of an HTML fragment, keeping the structure a reader needs: paragraphs and headings on their own
 * lines, list items as `- `, table rows as `cell | cell`. Not a full HTML parser: enough for generated documents.
 */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|head|title)\b[\s\S]*?<\/\1>/gi, '')
    // Source line breaks between table tags are layout, not text.
    .replace(/\s+(<\/?(?:tr|thead|tbody|tfoot|td|th)\b)/gi, '$1')
    .replace(/(<\/?(?:tr|thead|tbody|tfoot|td|th)\b[^>]*>)\s+/gi, '$1')
    .replace(/<br\s*\/?>\s*/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/t[dh]>/gi, ' | ')
    .replace(/<\/tr>/gi, '\n')
    .replace(/<\/?(?:thead|tbody|tfoot)\b[^>]*>/gi, '')
    .replace(/<\/?(p|div|h[1-6]|table|ul|ol|blockquote|pre|section|article|header|footer)\b[^>]*>/gi, '\n\n')
    .replace(/<hr\b[^>]*>/gi, '\n\n')
    .replace(/<[^>]+>/g, '');
  return decodeEntities(text)
    .split('\n')
    .map((line) =>
      line
        .replace(/[ \t\u00a0]+/g, ' ')
        .replace(/\s*\|\s*$/, '')
        .trim(),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
