/**
 * The one place the CLI loads histories for a command and speaks about degraded input: each warning becomes one
 * stderr line `warning: <history>: <message>`, and with `--strict` the first one refuses the command before any work.
 */
import { resolve } from 'node:path';
import { InputError } from '../errors.ts';
import { loadHistories } from '../history/load.ts';
import { QAItemSchema, type History, type QAItem } from '../history/record.ts';
import { unknownEvidenceWarnings } from '../history/warnings.ts';
import { readJsonl } from '../util/jsonl.ts';
import type { CliIO } from './io.ts';

/** How a command wants its histories loaded. */
export interface CommandHistoryOptions {
  /** Refuse with E_STRICT when any history has a warning. */
  strict: boolean;
  /** A questions or supervision file whose evidence ids are checked against the histories' records. */
  questions?: string | undefined;
  /** The items of `questions` when the command has read them already (so the file is not read twice). */
  items?: readonly QAItem[];
}

/** The histories with the warnings of a questions/supervision file (its `items`, read when not given) added to those of the loaders. */
export function withQuestionFileWarnings(histories: readonly History[], file: string, items?: readonly QAItem[]): History[] {
  const found = unknownEvidenceWarnings(histories, items ?? readJsonl(resolve(file), QAItemSchema), file);
  return histories.map((h) => {
    const w = found.get(h.id);
    return w ? { ...h, warnings: [...(h.warnings ?? []), w] } : h;
  });
}

/**
 * Prints every warning of the histories on stderr, or with `strict` raises E_STRICT naming the first warning and
 * how many others there are (nothing printed, so the refusal is one line).
 */
export function reportHistoryWarnings(histories: readonly History[], io: CliIO, strict: boolean): void {
  const all = histories.flatMap((h) => (h.warnings ?? []).map((w) => ({ history: h.id, ...w })));
  if (all.length === 0) return;
  if (strict) {
    const first = all[0]!;
    const others = all.length - 1;
    throw new InputError(
      'E_STRICT',
      `${first.history}: ${first.message}` +
        (others ? ` (and ${others} other ${others === 1 ? 'warning' : 'warnings'})` : '') +
        '; fix the input, or run without --strict to accept it',
    );
  }
  for (const w of all) io.err(`warning: ${w.history}: ${w.message}\n`);
}

/** Loads a command's histories, adds the question file's warnings, and reports them (see {@link reportHistoryWarnings}). */
export async function loadCommandHistories(source: string, io: CliIO, options: CommandHistoryOptions): Promise<History[]> {
  return (await loadCommandInputs(source, io, options)).histories;
}

/**
 * {@link loadCommandHistories}, also handing back the question file's items (read for its warnings) so the command
 * does not read the file again; `items` is undefined without `questions`.
 */
export async function loadCommandInputs(
  source: string,
  io: CliIO,
  options: CommandHistoryOptions,
): Promise<{ histories: History[]; items: readonly QAItem[] | undefined }> {
  let histories = await loadHistories(source);
  const file = options.questions;
  const items = file === undefined ? undefined : (options.items ?? readJsonl(resolve(file), QAItemSchema));
  if (file !== undefined) histories = withQuestionFileWarnings(histories, file, items);
  reportHistoryWarnings(histories, io, options.strict);
  return { histories, items };
}
