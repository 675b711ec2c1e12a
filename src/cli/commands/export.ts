import type { Command } from 'commander';
import { relative, resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { exportDesign } from '../../export/export-design.ts';
import { z } from 'zod';
import { checkPaths, tablePathChecks } from '../check-paths.ts';
import * as common from '../common-options.ts';
import { addOptions, optionTable, parseOptions } from '../option-table.ts';

const pct = (x: number | undefined) => (x === undefined ? '–' : (x * 100).toFixed(1));

/** `memsteer export`'s options, each declared once (see option-table.ts). */
export const EXPORT_OPTIONS = optionTable({
  program: {
    flags: '--program <id>',
    description: 'program id to export (default: the best accepted program)',
    schema: z.string().min(1).optional(),
  },
  out: {
    flags: '--out <dir>',
    description: 'directory to write the export into',
    schema: z.string().min(1),
    path: 'out-dir',
    required: true,
  },
  json: { ...common.json, description: 'print design.json instead of a summary' },
});

/** `memsteer export`: a run's program as a standalone module for apps (design.ts, design.json, README.md). */
export function register(program: Command, io: CliIO): void {
  const command = program
    .command('export <run>')
    .description("Export a run's design (default: its best) for apps: design.ts, design.json and a README, used with createMemory");
  addOptions(command, EXPORT_OPTIONS).action(async (run: string, raw: Record<string, unknown>) => {
    const opts = parseOptions(EXPORT_OPTIONS, raw);
    checkPaths([{ flag: '<run>', value: run, role: 'run' }, ...tablePathChecks(EXPORT_OPTIONS, opts)]);
    const r = await exportDesign({ run: resolve(run), out: resolve(opts.out), ...(opts.program ? { program: opts.program } : {}) });
    if (opts.json) {
      io.out(`${JSON.stringify(r.manifest, null, 2)}\n`);
      return;
    }
    const m = r.manifest;
    // Relative to where the user is when that is shorter, absolute otherwise.
    const rel = (p: string) => {
      const r = relative(process.cwd(), p);
      return r && !r.startsWith('..') ? r : p;
    };
    io.out(
      `exported ${m.program.id}${m.program.best ? ' (the best)' : ''} of run ${m.run.name}: ` +
        `val ${m.objective} ${pct(m.scores.val?.value)}${m.scores.test ? `, official test ${pct(m.scores.test.value)}` : ''}, ` +
        `budget ${m.budget.tokens} tokens\n` +
        `  ${rel(r.files.design)}\n  ${rel(r.files.manifest)}\n  ${rel(r.files.readme)}\n` +
        `use it: import { createMemory } from 'memsteer'; const memory = await createMemory({ design: '${rel(r.files.design)}' })\n`,
    );
  });
}
