import { InputError } from '../../errors.ts';

/** Options every loader accepts. */
export interface LoaderOptions {
  /** Load only this history (the `#history` of the source string); unknown ids raise E_UNKNOWN_HISTORY. */
  only?: string;
  /** Diagnostic messages (never printed by the library itself). */
  logger?: (message: string) => void;
}

/**
 * Raises E_UNKNOWN_HISTORY when `only` is set and not among `ids`; the message lists the valid ids so the user
 * can fix the `#history` part of the source string.
 */
export function checkSelection(only: string | undefined, ids: readonly string[], file: string): void {
  if (only === undefined || ids.includes(only)) return;
  const shown = ids.length > 20 ? [...ids.slice(0, 20), `… (${ids.length - 20} more)`] : ids;
  throw new InputError('E_UNKNOWN_HISTORY', `${file}: no history '${only}'; valid ids: ${shown.join(', ')}`, { file });
}

/** Collapses runs of whitespace and trims. */
export function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
