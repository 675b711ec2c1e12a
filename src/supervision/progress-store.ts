import { appendFileSync, closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { QAItemSchema } from '../history/record.ts';
import { InputError } from '../errors.ts';
import { RunStatsSchema } from './summary.ts';

/**
 * One processed bundle. `done`: every call of it finished, and `items` are the processor's accepted candidates
 * (before the run's type caps and de-duplication, which a resumed run replays in plan order). `failed`: LLM work
 * of it failed for a reason another attempt can fix (an outage, a timeout); the next run processes it again.
 */
export const BundleProgressSchema = z.object({
  bundle: z.string().min(1),
  /** Fingerprint of the run settings; lines of another configuration are ignored. */
  run: z.string(),
  status: z.enum(['done', 'failed']).default('done'),
  /** Question types asked for, most wanted first. */
  types: z.array(z.string()).optional(),
  items: z.array(QAItemSchema),
  /** What it cost, paid tokens included (a failed attempt's tokens were billed too). */
  stats: RunStatsSchema,
  /** What the processor's cross-bundle memory gained from this bundle (see BundleProcessor.memoSince). */
  memo: z.array(z.string()).optional(),
  /** Error code of a failed bundle. */
  error: z.string().optional(),
});
export type BundleProgress = z.infer<typeof BundleProgressSchema>;
export type BundleProgressInput = z.input<typeof BundleProgressSchema>;

/** `<out>.progress.jsonl`: the journal next to the output that lets a stopped run continue. */
export function progressPath(outPath: string): string {
  return `${outPath}.progress.jsonl`;
}

/**
 * The journal of processed bundles. Each bundle is appended as one line once all its calls are done (or once one
 * failed for good), so a run killed mid-bundle loses only that bundle's unfinished work (and the LLM cache still
 * holds its paid replies). A last line cut off by a kill holds no finished bundle: it is dropped on load and cut
 * off before the next append, as the archive's event log does. Damage anywhere else is an error, since it means
 * the file is not ours.
 */
export class ProgressStore {
  /** Byte length of the complete lines, and whether a torn tail must be cut before appending. */
  private tail: { validBytes: number; torn: boolean; unterminated: boolean } | undefined;

  constructor(
    readonly path: string,
    readonly run: string,
  ) {}

  /** Lines of this run, in file order (a bundle may appear more than once: failed, then done). */
  load(): BundleProgress[] {
    this.tail = { validBytes: 0, torn: false, unterminated: false };
    if (!existsSync(this.path)) return [];
    const text = readFileSync(this.path, 'utf8');
    const out: BundleProgress[] = [];
    let offset = 0;
    let lineNo = 0;
    while (offset < text.length) {
      const nl = text.indexOf('\n', offset);
      const end = nl < 0 ? text.length : nl;
      const line = text.slice(offset, end);
      lineNo++;
      const isLast = nl < 0 || nl === text.length - 1;
      if (line.trim() !== '') {
        let parsed: BundleProgress;
        try {
          parsed = BundleProgressSchema.parse(JSON.parse(line));
        } catch (err) {
          if (isLast) {
            this.tail.torn = true;
            break;
          }
          throw new InputError(
            'E_BAD_PROGRESS',
            `${this.path}:${lineNo}: not a progress line (${(err as Error).message.slice(0, 120)}); delete the file to start over`,
            { file: this.path, line: lineNo },
          );
        }
        if (parsed.run === this.run) out.push(parsed);
        this.tail.unterminated = nl < 0;
      }
      offset = nl < 0 ? text.length : nl + 1;
      this.tail.validBytes = Buffer.byteLength(text.slice(0, offset), 'utf8');
    }
    return out;
  }

  append(entry: Omit<BundleProgressInput, 'run'>): void {
    const line = BundleProgressSchema.parse({ ...entry, run: this.run });
    mkdirSync(dirname(this.path), { recursive: true });
    // Appending after a torn tail would glue the new line to it and corrupt the journal for good: cut it first.
    if (!this.tail) this.load();
    const tail = this.tail!;
    if (tail.torn) {
      const fd = openSync(this.path, 'r+');
      try {
        ftruncateSync(fd, tail.validBytes);
      } finally {
        closeSync(fd);
      }
    }
    const text = `${tail.unterminated && !tail.torn ? '\n' : ''}${JSON.stringify(line)}\n`;
    appendFileSync(this.path, text);
    this.tail = { validBytes: tail.validBytes + Buffer.byteLength(text, 'utf8'), torn: false, unterminated: false };
  }

  clear(): void {
    rmSync(this.path, { force: true });
    this.tail = undefined;
  }
}
