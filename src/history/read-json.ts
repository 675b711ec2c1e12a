import { existsSync, readFileSync, statSync } from 'node:fs';
import type { z } from 'zod';
import { InputError, describeZodIssues } from '../errors.ts';

/** Invalid UTF-8 met while reading: replacement characters the lossy decode produced, by file. */
export interface DecodeReport {
  replaced: Map<string, number>;
}

// Loaders are synchronous and read files deep in their helpers; one report open for the duration of a sync call
// collects what every read saw without threading a parameter through each of them (no other code can interleave).
let openReport: DecodeReport | null = null;

/** Runs a synchronous load and reports the invalid UTF-8 of every file it read with {@link readText}. */
export function withDecodeReport<T>(load: () => T): { value: T; report: DecodeReport } {
  const outer = openReport;
  const report: DecodeReport = { replaced: new Map() };
  openReport = report;
  try {
    return { value: load(), report };
  } finally {
    openReport = outer;
    if (outer) for (const [file, n] of report.replaced) outer.replaced.set(file, (outer.replaced.get(file) ?? 0) + n);
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lossyUtf8 = new TextDecoder('utf-8');

/** Decodes UTF-8; invalid bytes become U+FFFD, and how many were made is returned (0 for valid UTF-8). */
export function decodeUtf8(bytes: Uint8Array): { text: string; replaced: number } {
  try {
    return { text: strictUtf8.decode(bytes), replaced: 0 };
  } catch {
    const text = lossyUtf8.decode(bytes);
    // Every U+FFFD of the strict-failing text counts; a genuine one in an otherwise broken file is counted too.
    let replaced = 0;
    for (let i = text.indexOf('\uFFFD'); i !== -1; i = text.indexOf('\uFFFD', i + 1)) replaced++;
    return { text, replaced };
  }
}

/** Reads a file as UTF-8 (invalid bytes replaced and reported), or raises E_NO_FILE naming it. */
export function readText(path: string): string {
  if (!existsSync(path) || !statSync(path).isFile()) throw new InputError('E_NO_FILE', `${path}: file not found`, { file: path });
  const { text, replaced } = decodeUtf8(readFileSync(path));
  if (replaced > 0 && openReport) openReport.replaced.set(path, (openReport.replaced.get(path) ?? 0) + replaced);
  return text;
}

/** 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Parses JSON text; a syntax error becomes E_BAD_JSON naming `file:line` (V8 reports the character position). */
export function parseJsonText(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const msg = (err as Error).message;
    const pos = /at position (\d+)/.exec(msg);
    const line = pos ? lineAt(text, Number(pos[1])) : lineAt(text, text.length);
    throw new InputError('E_BAD_JSON', `${path}:${line}: invalid JSON (${msg}); fix the file or point to another one`, {
      file: path,
      line,
    });
  }
}

/** Reads and validates a JSON file. Schema failures name the file and the failing path inside it. */
export function readJsonFile<T>(path: string, schema: z.ZodType<T>, what: string): T {
  const value = parseJsonText(readText(path), path);
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new InputError('E_BAD_SOURCE', `${path}: not a valid ${what} file: ${describeZodIssues(parsed.error.issues)}`, { file: path });
  }
  return parsed.data;
}

/** Validates an already-parsed value, naming file and place on failure. */
export function checkShape<T>(value: unknown, schema: z.ZodType<T>, path: string, place: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new InputError('E_BAD_SOURCE', `${path}: ${place}: ${describeZodIssues(parsed.error.issues)}`, { file: path });
  }
  return parsed.data;
}
