import type { Command } from 'commander';
import { join, resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { writeReport } from '../../report/index.ts';

/** `memsteer report <run> [--out report.html]`: the run as one self-contained HTML page. */
export function register(program: Command, io: CliIO): void {
  program
    .command('report <run>')
    .description('Write an optimization run as one self-contained HTML page (fitness, lineage, failures, diffs, scores, cost)')
    .option('--out <file>', 'where to write the page (default <run>/report.html)')
    .action(async (run: string, opts: { out?: string }) => {
      const out = opts.out ?? join(resolve(run), 'report.html');
      const { path, bytes } = await writeReport(run, out);
      io.out(`report: ${path} (${(bytes / 1024).toFixed(0)} KiB); open it in a browser, no network needed\n`);
    });
}
