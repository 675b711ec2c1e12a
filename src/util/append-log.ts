import { appendFileSync, closeSync, existsSync, ftruncateSync, openSync, readFileSync } from 'node:fs';

/**
 * An append-only JSONL log (the archive's event log, generate's journal). Appends are single writes, so a crash can
 * cut only the last line: a torn last line is dropped on read and cut off before the next append; damage anywhere
 * else is corruption, which the caller turns into its own coded error.
 */
export interface AppendLogTail {
  /** A last line cut off by a crash (not parseable): dropped, and its text kept here. */
  torn: string | null;
  /** Byte length of the complete lines (where the next append must start). */
  validBytes: number;
  /** True when the last valid line has no newline (the next append adds one first). */
  unterminated: boolean;
}

/** One parsed line, or why it is not one. */
export type LineResult<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Reads the log at `path` line by line with `parse`. A line that fails to parse throws `corrupt(lineNo, message)`,
 * unless it is the last line (a torn tail). A missing file is an empty log.
 */
export function readAppendLog<T>(
  path: string,
  parse: (line: string, lineNo: number) => LineResult<T>,
  corrupt: (lineNo: number, message: string) => Error,
): { items: T[]; tail: AppendLogTail } {
  const tail: AppendLogTail = { torn: null, validBytes: 0, unterminated: false };
  if (!existsSync(path)) return { items: [], tail };
  const text = readFileSync(path, 'utf8');
  const items: T[] = [];
  let offset = 0;
  let lineNo = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    const line = text.slice(offset, nl < 0 ? text.length : nl);
    lineNo++;
    if (line.trim() !== '') {
      const parsed = parse(line, lineNo);
      if (!parsed.ok) {
        if (nl < 0 || nl === text.length - 1) {
          tail.torn = line;
          break;
        }
        throw corrupt(lineNo, parsed.message);
      }
      items.push(parsed.value);
      tail.unterminated = nl < 0;
    }
    const next = nl < 0 ? text.length : nl + 1;
    // Counted line by line: measuring the whole prefix each time made reading a long journal quadratic.
    tail.validBytes += Buffer.byteLength(text.slice(offset, next), 'utf8');
    offset = next;
  }
  return { items, tail };
}

/** JSON.parse as a {@link LineResult}, then `check` (e.g. a zod safeParse) on the value. */
export function jsonLine<T>(line: string, check: (value: unknown) => LineResult<T>): LineResult<T> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { ok: false, message: `invalid JSON (${(err as Error).message})` };
  }
  return check(value);
}

/**
 * Appends one serialised line as one write, after cutting a torn tail (appending after it would glue the new line to
 * it and corrupt the log for good) and closing an unterminated last line. Returns the tail after the append.
 */
export function appendLogLine(path: string, json: string, tail: AppendLogTail): AppendLogTail {
  if (tail.torn !== null) {
    const fd = openSync(path, 'r+');
    try {
      ftruncateSync(fd, tail.validBytes);
    } finally {
      closeSync(fd);
    }
  }
  const text = `${tail.unterminated && tail.torn === null ? '\n' : ''}${json}\n`;
  appendFileSync(path, text);
  return { torn: null, validBytes: tail.validBytes + Buffer.byteLength(text, 'utf8'), unterminated: false };
}
