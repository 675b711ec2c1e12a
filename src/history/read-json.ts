import { existsSync, readFileSync, statSync } from 'node:fs';
import type { z } from 'zod';
import { InputError, describeZodIssues } from '../errors.ts';

/** Reads a file as UTF-8, or raises E_NO_FILE naming it. */
export function readText(path: string): string {
  if (!existsSync(path) || !statSync(path).isFile()) throw new InputError('E_NO_FILE', `${path}: file not found`, { file: path });
  return readFileSync(path, 'utf8');
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
