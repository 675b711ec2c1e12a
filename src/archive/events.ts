import { InputError, describeZodIssues } from '../errors.ts';
import { appendLogLine, jsonLine, readAppendLog, type AppendLogTail } from '../util/append-log.ts';
import { EventSchema, type ArchiveEvent } from './schemas.ts';

/** What reading `events.jsonl` found. */
export interface EventLog extends AppendLogTail {
  events: ArchiveEvent[];
}

/**
 * Reads the event log. Only the last line may be damaged — appends are single writes, so a crash can cut the
 * last one and nothing else; damage anywhere else is corruption and raises E_ARCHIVE_CORRUPT naming the line.
 */
export function readEventLog(path: string): EventLog {
  const corrupt = (lineNo: number, message: string) =>
    new InputError(
      'E_ARCHIVE_CORRUPT',
      `${path}:${lineNo}: ${message}; only a torn last line is tolerated — restore the file or remove that line`,
      { file: path, line: lineNo },
    );
  let last: ArchiveEvent | undefined;
  const { items, tail } = readAppendLog<ArchiveEvent>(
    path,
    (line, lineNo) => {
      const parsed = jsonLine(line, (value) => {
        const r = EventSchema.safeParse(value);
        return r.success ? { ok: true, value: r.data } : { ok: false, message: describeZodIssues(r.error.issues) };
      });
      // An out-of-order seq is corruption wherever it stands, never a torn tail.
      if (parsed.ok && last && parsed.value.seq <= last.seq) {
        throw new InputError('E_ARCHIVE_CORRUPT', `${path}:${lineNo}: event seq ${parsed.value.seq} does not follow ${last.seq}`, {
          file: path,
          line: lineNo,
        });
      }
      if (parsed.ok) last = parsed.value;
      return parsed;
    },
    corrupt,
  );
  return { events: items, ...tail };
}

/**
 * Appends one validated event as one write. A torn tail left by a crash is cut off first (it holds no complete
 * event), and an unterminated last line gets its newline, so the log stays one event per line. Returns the log's
 * tail after the append.
 */
export function appendEventLine(path: string, event: ArchiveEvent, log: AppendLogTail): AppendLogTail {
  return appendLogLine(path, JSON.stringify(EventSchema.parse(event)), log);
}
