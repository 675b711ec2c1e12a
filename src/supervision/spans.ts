/**
 * Locating quotes in record text. A model quotes with straightened quotes, collapsed whitespace or different
 * case; the span we record must still point at the original characters, so matching is done on a normalised
 * copy that remembers where each of its characters came from.
 */

const FOLD: Record<string, string> = {
  '‘': "'",
  '’': "'",
  '‚': "'",
  '“': '"',
  '”': '"',
  '„': '"',
  '–': '-',
  '—': '-',
  '…': '...',
  '\u00a0': ' ',
};

function normalise(text: string): { norm: string; origin: number[] } {
  let norm = '';
  const origin: number[] = [];
  let lastSpace = true;
  for (let i = 0; i < text.length; i++) {
    const folded = (FOLD[text[i]!] ?? text[i]!).toLowerCase();
    for (const ch of folded) {
      if (/\s/.test(ch)) {
        if (lastSpace) continue;
        norm += ' ';
        origin.push(i);
        lastSpace = true;
      } else {
        norm += ch;
        origin.push(i);
        lastSpace = false;
      }
    }
  }
  if (norm.endsWith(' ')) {
    norm = norm.slice(0, -1);
    origin.pop();
  }
  return { norm, origin };
}

/**
 * The [start, end) offsets of `quote` in `text`: exact match first, else a match that ignores case, whitespace
 * runs, typographic quotes and dashes, and quote marks or an ellipsis the quoter wrapped around it.
 * Undefined when the quote is not in the text.
 */
export function locateQuote(text: string, quote: string): [number, number] | undefined {
  if (!quote.trim()) return undefined;
  const exact = text.indexOf(quote);
  if (exact >= 0) return [exact, exact + quote.length];
  const trimmed = quote
    .trim()
    .replace(/^["'“‘…]+|["'”’]+$/g, '')
    .replace(/^\.\.\.|\.\.\.$/g, '')
    .trim();
  if (!trimmed) return undefined;
  const t = normalise(text);
  const q = normalise(trimmed).norm;
  if (!q) return undefined;
  const at = t.norm.indexOf(q);
  if (at < 0) return undefined;
  return [t.origin[at]!, t.origin[at + q.length - 1]! + 1];
}

/** True when `span` lies inside `text` and, if a quote is given, the span's text normalises to the quote. */
export function verifySpan(text: string, span: readonly [number, number], quote?: string): boolean {
  const [s, e] = span;
  if (!(Number.isInteger(s) && Number.isInteger(e) && s >= 0 && e > s && e <= text.length)) return false;
  if (quote === undefined) return true;
  const got = text.slice(s, e);
  return got === quote || locateQuote(got, quote) !== undefined;
}
