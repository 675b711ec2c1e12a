import type { History } from './record.ts';
import { detectFormat, parseSource, type HistoryFormat, type SourceSpec } from './source.ts';
import { validateHistory } from './validate.ts';
import { withDecodeReport, type DecodeReport } from './read-json.ts';
import { historyWarning, replacementChars } from './warnings.ts';
import type { LoaderOptions } from './loaders/common.ts';
import { loadRecordsJsonl } from './loaders/jsonl.ts';
import { loadLocomo } from './loaders/locomo.ts';
import { loadRhelm } from './loaders/rhelm.ts';
import { loadLongMemEval } from './loaders/longmemeval.ts';
import { loadMemoryBank } from './loaders/memorybank.ts';

/** Options for {@link loadHistories}. */
export interface LoadHistoriesOptions {
  /** Base for relative paths (default: the process's working directory). */
  cwd?: string;
  /** Diagnostic messages from the loaders. */
  logger?: (message: string) => void;
}

const LOADERS: Record<HistoryFormat, (path: string, options: LoaderOptions) => History[]> = {
  jsonl: loadRecordsJsonl,
  locomo: loadLocomo,
  rhelm: loadRhelm,
  longmemeval: loadLongMemEval,
  memorybank: loadMemoryBank,
};

/** Loads the histories a parsed source names; see {@link loadHistories}. */
export function loadHistoriesFromSpec(spec: SourceSpec, options: LoadHistoriesOptions = {}): History[] {
  const format = spec.format ?? detectFormat(spec.path);
  const loaderOptions: LoaderOptions = {};
  if (spec.history !== undefined) loaderOptions.only = spec.history;
  if (options.logger) loaderOptions.logger = options.logger;
  const { value: histories, report } = withDecodeReport(() => LOADERS[format](spec.path, loaderOptions));
  return histories.map((h) => validateHistory(withDecodeWarning(h, report), spec.path));
}

/**
 * Adds a `replaced-bytes` warning to a history whose files had invalid UTF-8. A file may hold several histories,
 * so each is charged the replacement characters that ended up in its own records and QA.
 */
function withDecodeWarning(h: History, report: DecodeReport): History {
  const n = report.replaced.size === 0 ? 0 : replacementChars(h);
  if (n === 0) return { ...h, warnings: h.warnings ?? [] };
  const files = [...report.replaced.keys()];
  const where = files.length === 1 ? files[0]! : `${files[0]} and ${files.length - 1} more files`;
  const message =
    `${n} invalid UTF-8 byte ${n === 1 ? 'sequence was' : 'sequences were'} replaced with U+FFFD in its text ` +
    `(files with invalid UTF-8: ${where}); ` +
    're-encode the file as UTF-8 to keep the original characters';
  return { ...h, warnings: [...(h.warnings ?? []), historyWarning('replaced-bytes', n, message)] };
}

/** Synchronous {@link loadHistories}. */
export function loadHistoriesSync(source: string, options: LoadHistoriesOptions = {}): History[] {
  return loadHistoriesFromSpec(parseSource(source, options.cwd), options);
}

/**
 * Loads histories from a source string `<format>:<path>[#<history>]` (format detected when left out). Every
 * record and QA item is validated; problems raise an InputError with a stable code (E_NO_FILE,
 * E_UNKNOWN_FORMAT, E_CANNOT_DETECT, E_BAD_JSON, E_BAD_RECORD, E_BAD_SOURCE, E_DUPLICATE_ID, E_EMPTY_HISTORY,
 * E_UNKNOWN_HISTORY) and a message naming the file and place. Degraded but usable input (undated or dropped sessions,
 * invalid UTF-8) is counted in each history's `warnings`, never printed here.
 */
export async function loadHistories(source: string, options: LoadHistoriesOptions = {}): Promise<History[]> {
  return loadHistoriesSync(source, options);
}
