import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { QAItemSchema, type QAItem } from '../history/record.ts';
import { InputError } from '../errors.ts';
import { RunStatsSchema, type RunStats } from './summary.ts';

/** One finished bundle: the items it produced and the counters (paid tokens included) it cost. */
export const BundleProgressSchema = z.object({
  bundle: z.string().min(1),
  /** Fingerprint of the run settings; lines of another configuration are ignored. */
  run: z.string(),
  items: z.array(QAItemSchema),
  stats: RunStatsSchema,
});
export type BundleProgress = z.infer<typeof BundleProgressSchema>;

/** `<out>.progress.jsonl`: the journal next to the output that lets a stopped run continue. */
export function progressPath(outPath: string): string {
  return `${outPath}.progress.jsonl`;
}

/**
 * The journal of finished bundles. Each bundle is appended as one line once all its calls are done, so a run
 * killed mid-bundle loses only that bundle's unfinished work (and the LLM cache still holds its paid replies).
 * A torn last line (killed mid-write) is ignored; any other bad line is an error, since it means the file is
 * not ours.
 */
export class ProgressStore {
  constructor(
    readonly path: string,
    readonly run: string,
  ) {}

  load(): BundleProgress[] {
    if (!existsSync(this.path)) return [];
    const lines = readFileSync(this.path, 'utf8').split('\n');
    const out: BundleProgress[] = [];
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      let parsed: BundleProgress;
      try {
        parsed = BundleProgressSchema.parse(JSON.parse(line));
      } catch (err) {
        if (i >= lines.length - 2) return; // the torn tail of a killed run
        throw new InputError(
          'E_BAD_PROGRESS',
          `${this.path}:${i + 1}: not a progress line (${(err as Error).message.slice(0, 120)}); delete the file to start over`,
          { file: this.path, line: i + 1 },
        );
      }
      if (parsed.run === this.run) out.push(parsed);
    });
    return out;
  }

  append(bundle: string, items: QAItem[], stats: RunStats): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const line = BundleProgressSchema.parse({ bundle, run: this.run, items, stats });
    appendFileSync(this.path, `${JSON.stringify(line)}\n`);
  }

  clear(): void {
    rmSync(this.path, { force: true });
  }
}
