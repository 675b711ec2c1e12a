import { countTokens } from '../../text/text.ts';

const PIECE = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

/** Cost of one piece exactly as src/text/text.ts countTokens charges it (kept in step by a test). */
function pieceTokens(piece: string): number {
  return piece.length > 1 && /[\p{L}\p{N}]/u.test(piece[0]!) ? Math.max(1, Math.round(piece.length / 5)) : 1;
}

/**
 * The longest prefix of `text` (cut after a whole word or mark) whose countTokens is at most `tokens`.
 * The host applies it to a context over budget, so every design is held to the same budget.
 */
export function truncateToTokens(text: string, tokens: number): string {
  if (tokens <= 0) return '';
  let used = 0;
  let end = 0;
  for (const m of text.matchAll(PIECE)) {
    const cost = pieceTokens(m[0]);
    if (used + cost > tokens) break;
    used += cost;
    end = m.index + m[0].length;
  }
  return text.slice(0, end);
}

/** Counts a context and truncates it to the budget when over. */
export function fitToBudget(text: string, budget: number): { text: string; tokens: number; truncatedFrom?: number } {
  const tokens = countTokens(text);
  if (tokens <= budget) return { text, tokens };
  const cut = truncateToTokens(text, budget);
  return { text: cut, tokens: countTokens(cut), truncatedFrom: tokens };
}
