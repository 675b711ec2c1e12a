import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { QAItemSchema } from '../history/record.ts';
import { InputError } from '../errors.ts';
import { appendLogLine, jsonLine, readAppendLog, type AppendLogTail } from '../util/append-log.ts';
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
  /** Where the next append starts, and whether a torn tail must be cut first. */
  private tail: AppendLogTail | undefined;

  constructor(
    readonly path: string,
    readonly run: string,
  ) {}

  /** Lines of this run, in file order (a bundle may appear more than once: failed, then done). */
  load(): BundleProgress[] {
    const { items, tail } = readAppendLog<BundleProgress>(
      this.path,
      (line) =>
        jsonLine(line, (value) => {
          const r = BundleProgressSchema.safeParse(value);
          return r.success ? { ok: true, value: r.data } : { ok: false, message: r.error.message };
        }),
      (lineNo, message) =>
        new InputError(
          'E_BAD_PROGRESS',
          `${this.path}:${lineNo}: not a progress line (${message.slice(0, 120)}); delete the file to start over`,
          { file: this.path, line: lineNo },
        ),
    );
    this.tail = tail;
    return items.filter((p) => p.run === this.run);
  }

  append(entry: Omit<BundleProgressInput, 'run'>): void {
    const line = BundleProgressSchema.parse({ ...entry, run: this.run });
    mkdirSync(dirname(this.path), { recursive: true });
    if (!this.tail) this.load();
    this.tail = appendLogLine(this.path, JSON.stringify(line), this.tail!);
  }

  clear(): void {
    rmSync(this.path, { force: true });
    this.tail = undefined;
  }
}
