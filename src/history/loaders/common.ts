import { InputError } from '../../errors.ts';

/** Options every loader accepts. */
export interface LoaderOptions {
  /**
   * Load only these histories (the `#history` of the source string): one id, or several separated by commas (see
   * {@link selectHistories}); unknown ids raise E_UNKNOWN_HISTORY.
   */
  only?: string;
  /** Diagnostic messages (never printed by the library itself). */
  logger?: (message: string) => void;
}

/**
 * Which of a file's histories a `#history` selection keeps. A selection that names a history keeps that one (so an
 * id with a comma in it still works); otherwise it is a comma-separated list, e.g. `#Jonas_Richter,Elena_Morales`,
 * which lets a run span several histories of one file. Raises E_UNKNOWN_HISTORY for an id not among `ids`, with
 * the valid ids listed so the user can fix the `#history` part of the source string.
 */
export function selectHistories(only: string | undefined, ids: readonly string[], file: string): (id: string) => boolean {
  if (only === undefined) return () => true;
  const known = new Set(ids);
  const wanted = known.has(only)
    ? [only]
    : only
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== '');
  const unknown = wanted.filter((id) => !known.has(id));
  if (wanted.length === 0 || unknown.length > 0) {
    const shown = ids.length > 20 ? [...ids.slice(0, 20), `… (${ids.length - 20} more)`] : ids;
    const missing = unknown.length > 0 ? unknown.map((id) => `'${id}'`).join(', ') : `'${only}'`;
    throw new InputError('E_UNKNOWN_HISTORY', `${file}: no history ${missing}; valid ids: ${shown.join(', ')}`, { file });
  }
  const keep = new Set(wanted);
  return (id) => keep.has(id);
}

/** Collapses runs of whitespace and trims. */
export function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
