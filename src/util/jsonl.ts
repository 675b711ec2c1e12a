import { readFileSync, existsSync } from 'node:fs';
import type { z } from 'zod';
import { InputError, describeZodIssues } from '../errors.ts';
import { writeFileAtomic } from './atomic-write.ts';

/**
 * Reads a JSONL file, validating every line with `schema`. Blank lines are skipped. A line that is not JSON
 * or fails the schema raises an InputError naming the file and the 1-based line.
 */
export function readJsonl<T>(path: string, schema: z.ZodType<T>): T[] {
  if (!existsSync(path)) throw new InputError('E_NO_FILE', `${path}: file not found`, { file: path });
  const lines = readFileSync(path, 'utf8').split('\n');
  const out: T[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new InputError('E_BAD_JSON', `${path}:${i + 1}: invalid JSON (${(err as Error).message}); fix or remove that line`, {
        file: path,
        line: i + 1,
      });
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new InputError('E_BAD_RECORD', `${path}:${i + 1}: ${describeZodIssues(parsed.error.issues)}`, { file: path, line: i + 1 });
    }
    out.push(parsed.data);
  }
  return out;
}

/** Validates every row with `schema` before anything is written, then writes the file atomically. */
export function writeJsonl<T>(path: string, rows: readonly T[], schema: z.ZodType<T>): void {
  const text = rows
    .map((row, i) => {
      const parsed = schema.safeParse(row);
      if (!parsed.success) {
        throw new InputError('E_BAD_OUTPUT', `refusing to write ${path}: row ${i + 1}: ${describeZodIssues(parsed.error.issues)}`, {
          file: path,
        });
      }
      return JSON.stringify(parsed.data);
    })
    .join('\n');
  writeFileAtomic(path, rows.length ? `${text}\n` : '');
}
