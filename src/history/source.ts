import { existsSync, readdirSync, readFileSync, statSync, openSync, readSync, closeSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { InputError } from '../errors.ts';

/** History source formats memsteer can load. */
export const FORMATS = ['jsonl', 'locomo', 'rhelm', 'longmemeval', 'memorybank'] as const;
export type HistoryFormat = (typeof FORMATS)[number];

/** A parsed source string `<format>:<path>[#<history>]`. */
export interface SourceSpec {
  /** Format named in the source string, or undefined when it is to be detected from the path. */
  format: HistoryFormat | undefined;
  /** Absolute path. */
  path: string;
  /** Selected history id (after `#`), if any. */
  history: string | undefined;
}

function isFormat(s: string): s is HistoryFormat {
  return (FORMATS as readonly string[]).includes(s);
}

/**
 * Splits a source string into format, path and history. The format prefix is optional; a prefix that looks like
 * one (`word:`) but is not a known format is an error rather than part of the path, unless that path exists.
 * `#` splits off the history id unless the whole string names an existing file.
 */
export function parseSource(source: string, cwd: string = process.cwd()): SourceSpec {
  const trimmed = source.trim();
  if (!trimmed) throw new InputError('E_BAD_SOURCE', 'empty source string; expected <format>:<path>[#<history>]');
  let format: HistoryFormat | undefined;
  let rest = trimmed;
  const m = /^([A-Za-z][\w-]*):(?!\/\/)(.*)$/s.exec(trimmed);
  if (m && m[1]!.length > 1) {
    const prefix = m[1]!.toLowerCase();
    if (isFormat(prefix)) {
      format = prefix;
      rest = m[2]!;
    } else if (!existsSync(resolve(cwd, trimmed.split('#')[0]!))) {
      throw new InputError(
        'E_UNKNOWN_FORMAT',
        `${source}: unknown format '${m[1]}'; use one of ${FORMATS.join(', ')} (e.g. locomo:data/locomo10.json)`,
      );
    }
  }
  let history: string | undefined;
  const hash = rest.lastIndexOf('#');
  if (hash >= 0 && !existsSync(resolve(cwd, rest))) {
    history = rest.slice(hash + 1).trim() || undefined;
    rest = rest.slice(0, hash);
  }
  if (!rest.trim()) throw new InputError('E_BAD_SOURCE', `${source}: no path; expected <format>:<path>[#<history>]`);
  return { format, path: resolve(cwd, rest.trim()), history };
}

/** Formats a spec back into a source string (used for `History.source`). */
export function formatSource(format: string, path: string, history?: string): string {
  return `${format}:${path}${history === undefined ? '' : `#${history}`}`;
}

function head(path: string, bytes: number): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Detects the format of an existing path from its layout and first bytes. Only cheap checks: directory layout,
 * file name, and the keys that appear near the start of the file.
 */
export function detectFormat(path: string): HistoryFormat {
  if (!existsSync(path)) throw new InputError('E_NO_FILE', `${path}: file or directory not found`, { file: path });
  const st = statSync(path);
  if (st.isDirectory()) {
    const entries = new Set(readdirSync(path));
    if (entries.has('QA_final') && entries.has('conversations')) return 'rhelm';
    throw new InputError(
      'E_CANNOT_DETECT',
      `${path}: cannot tell the format of this directory (a RHELM folder has QA_final/ and conversations/); ` +
        `prefix the path with a format: ${FORMATS.join(', ')}`,
      { file: path },
    );
  }
  const name = basename(path).toLowerCase();
  if (name.startsWith('memory_bank') && name.endsWith('.json')) return 'memorybank';
  if (name.endsWith('.jsonl')) return 'jsonl';
  if (name.endsWith('.json')) {
    const start = head(path, 64 * 1024);
    if (/"sample_id"\s*:/.test(start) && (/"conversation"\s*:/.test(start) || /"qa"\s*:/.test(start))) return 'locomo';
    if (/"haystack_sessions"\s*:|"question_id"\s*:|"longmemeval/.test(start)) return 'longmemeval';
    if (/"questions"\s*:/.test(start) && /"conversation"\s*:/.test(start)) return 'longmemeval';
    // LoCoMo puts `qa` after the (long) conversation; look at the whole file only when the head was inconclusive.
    if (start.trimStart().startsWith('[') && /"conversation"\s*:/.test(start)) {
      const all = readFileSync(path, 'utf8');
      if (/"qa"\s*:/.test(all)) return 'locomo';
    }
  }
  throw new InputError(
    'E_CANNOT_DETECT',
    `${path}: cannot tell the format of this file; prefix the path with a format: ${FORMATS.join(', ')} (e.g. jsonl:${path})`,
    { file: path },
  );
}
