import { appendFileSync, existsSync, openSync, readFileSync, closeSync, ftruncateSync } from 'node:fs';
import { InputError, describeZodIssues } from '../errors.ts';
import { EventSchema, type ArchiveEvent } from './schemas.ts';

/** What reading `events.jsonl` found. */
export interface EventLog {
  events: ArchiveEvent[];
  /** A last line cut off by a crash (not JSON or not a valid event): dropped, and its text kept here. */
  torn: string | null;
  /** Byte length of the complete lines (where the next append must start). */
  validBytes: number;
  /** True when the last valid line has no newline (the next append adds one first). */
  unterminated: boolean;
}

/**
 * Reads the event log. Only the last line may be damaged — appends are single writes, so a crash can cut the
 * last one and nothing else; damage anywhere else is corruption and raises E_ARCHIVE_CORRUPT naming the line.
 */
export function readEventLog(path: string): EventLog {
  if (!existsSync(path)) return { events: [], torn: null, validBytes: 0, unterminated: false };
  const buf = readFileSync(path);
  const text = buf.toString('utf8');
  const events: ArchiveEvent[] = [];
  let offset = 0;
  let lineNo = 0;
  let torn: string | null = null;
  let unterminated = false;
  let validBytes = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(offset, end);
    lineNo++;
    const isLast = nl < 0 || nl === text.length - 1;
    if (line.trim() !== '') {
      const parsed = parseLine(line);
      if (!parsed.ok) {
        if (isLast) {
          torn = line;
          break;
        }
        throw new InputError(
          'E_ARCHIVE_CORRUPT',
          `${path}:${lineNo}: ${parsed.message}; only a torn last line is tolerated — restore the file or remove that line`,
          {
            file: path,
            line: lineNo,
          },
        );
      }
      const last = events[events.length - 1];
      if (last && parsed.event.seq <= last.seq) {
        throw new InputError('E_ARCHIVE_CORRUPT', `${path}:${lineNo}: event seq ${parsed.event.seq} does not follow ${last.seq}`, {
          file: path,
          line: lineNo,
        });
      }
      events.push(parsed.event);
      if (nl < 0) unterminated = true;
    }
    offset = nl < 0 ? text.length : nl + 1;
    validBytes = Buffer.byteLength(text.slice(0, offset), 'utf8');
  }
  return { events, torn, validBytes, unterminated };
}

function parseLine(line: string): { ok: true; event: ArchiveEvent } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { ok: false, message: `invalid JSON (${(err as Error).message})` };
  }
  const r = EventSchema.safeParse(value);
  return r.success ? { ok: true, event: r.data } : { ok: false, message: describeZodIssues(r.error.issues) };
}

/**
 * Appends one validated event as one write. A torn tail left by a crash is cut off first (it holds no complete
 * event), and an unterminated last line gets its newline, so the log stays one event per line.
 */
export function appendEventLine(path: string, event: ArchiveEvent, log: Pick<EventLog, 'torn' | 'validBytes' | 'unterminated'>): void {
  const parsed = EventSchema.parse(event);
  if (log.torn !== null) {
    const fd = openSync(path, 'r+');
    try {
      ftruncateSync(fd, log.validBytes);
    } finally {
      closeSync(fd);
    }
  }
  appendFileSync(path, `${log.unterminated && log.torn === null ? '\n' : ''}${JSON.stringify(parsed)}\n`);
}
