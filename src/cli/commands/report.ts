import type { Command } from 'commander';
import { join, resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { writeReport } from '../../report/index.ts';
import { z } from 'zod';
import { checkPaths } from '../check-paths.ts';
import { addOptions, optionTable, parseOptions } from '../option-table.ts';

/** `memsteer report`'s options, each declared once (see option-table.ts). */
export const REPORT_OPTIONS = optionTable({
  out: {
    flags: '--out <file>',
    description: 'where to write the page (default <run>/report.html)',
    schema: z.string().min(1).optional(),
  },
});

/** `memsteer report <run> [--out report.html]`: the run as one self-contained HTML page. */
export function register(program: Command, io: CliIO): void {
  const command = program
    .command('report <run>')
    .description('Write an optimization run as one self-contained HTML page (fitness, lineage, failures, diffs, scores, cost)');
  addOptions(command, REPORT_OPTIONS).action(async (run: string, raw: Record<string, unknown>) => {
    const opts = parseOptions(REPORT_OPTIONS, raw);
    const out = opts.out ?? join(resolve(run), 'report.html');
    checkPaths([
      { flag: '<run>', value: run, role: 'run' },
      { flag: '--out', value: out, role: 'out-file' },
    ]);
    const { path, bytes } = await writeReport(run, out);
    io.out(`report: ${path} (${(bytes / 1024).toFixed(0)} KiB); open it in a browser, no network needed\n`);
  });
}
