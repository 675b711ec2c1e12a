import type { Command } from 'commander';
import { join, resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { loadCommandHistories } from '../history-warnings.ts';
import { DEFAULT_SOURCE } from '../../history/default-source.ts';
import { QAItemSchema } from '../../history/record.ts';
import { summarizeHistories } from '../../history/summary.ts';
import { generateSupervision } from '../../supervision/generate.ts';
import { writeJsonl } from '../../util/jsonl.ts';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEFAULT_RNG_SEED } from '../../config/run-options.ts';
import { InputError } from '../../errors.ts';
import { checkPaths } from '../check-paths.ts';
import { addOptions, optionTable, parseOptions } from '../option-table.ts';
import { OPTIMIZE_OPTIONS, runOptimizeCommand } from './optimize.ts';

/** `memsteer start`'s options, each declared once (see option-table.ts). */
export const START_OPTIONS = optionTable({
  iterations: { ...OPTIMIZE_OPTIONS.iterations, description: 'optimizer iterations' },
  out: {
    flags: '--out <dir>',
    description: 'run directory; the supervision is written into it too (default archive/start-<timestamp>)',
    schema: z.string().min(1).optional(),
  },
});

/**
 * `memsteer start` (what `npm start` runs): the main job on the embedded default history, offline. Generate
 * supervision from the history alone, evolve Base-BM25 on it, and test the result on the history's official QA.
 */
export function register(program: Command, io: CliIO): void {
  const command = program
    .command('start')
    .description('The main job on the embedded default history, offline: generate supervision, optimize Base-BM25, test on official QA');
  addOptions(command, START_OPTIONS).action(async (raw: Record<string, unknown>) => {
    const opts = parseOptions(START_OPTIONS, raw);
    const out = resolve(opts.out ?? join('archive', `start-${new Date().toISOString().replace(/[:.]/g, '-')}`));
    const supervision = join(out, 'supervision.jsonl');
    checkPaths([
      { flag: '--out', value: out, role: 'out-dir' },
      { flag: '--out', value: supervision, role: 'out-file' },
    ]);
    if (existsSync(join(out, 'manifest.json')))
      throw new InputError('E_ARCHIVE_EXISTS', `--out ${out}: already holds a run; resume it with memsteer optimize --resume`, {
        file: out,
      });
    const [history] = await loadCommandHistories(DEFAULT_SOURCE, io, { strict: false });
    const summary = summarizeHistories([history!]).total;
    io.out(
      `memsteer: embedded default history ${history!.id} (RHELM persona, MIT): ${summary.records} records ` +
        `(${Object.entries(summary.recordsByKind)
          .map(([k, n]) => `${n} ${k}`)
          .join(', ')}), ${history!.qa.length} official questions\n`,
    );
    io.out('1/2 generating supervision from the history alone (offline rule-based generator)…\n');
    const generated = await generateSupervision(history!, { mode: 'offline', seed: DEFAULT_RNG_SEED });
    writeJsonl(supervision, generated.items, QAItemSchema);
    const g = generated.summary;
    io.out(
      `    ${g.kept} items (train ${g.split.train}, val ${g.split.val}): ${Object.entries(g.byType)
        .map(([t, c]) => `${t} ${c.train + c.val}`)
        .join(', ')} → ${supervision}\n`,
    );
    io.out(
      `2/2 optimizing seeds/base-bm25.ts on that supervision for ${opts.iterations} iterations ` +
        '(offline case-driven proposer, objective: context recall of the generated evidence), ' +
        'then testing the seed and the best design on the official questions (question dates enforced)…\n',
    );
    await runOptimizeCommand(
      {
        history: DEFAULT_SOURCE,
        supervision,
        seed: fileURLToPath(new URL('../../../seeds/base-bm25.ts', import.meta.url)),
        iterations: opts.iterations,
        offline: true,
        out,
      },
      io,
    );
  });
}
