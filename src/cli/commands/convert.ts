import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { z } from 'zod';
import { checkPaths, tablePathChecks } from '../check-paths.ts';
import * as common from '../common-options.ts';
import { loadCommandHistories } from '../history-warnings.ts';
import { addOptions, optionTable, parseOptions } from '../option-table.ts';
import { QAItemSchema } from '../../history/record.ts';
import { ExternalFormat, PlainItemSchema, TaskListSchema, toPlain, toTaskList } from '../../supervision/external-formats.ts';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { readJsonl, writeJsonl } from '../../util/jsonl.ts';

/** `memsteer convert`'s options, each declared once (see option-table.ts). */
export const CONVERT_OPTIONS = optionTable({
  to: { flags: '--to <format>', description: 'output format', schema: ExternalFormat, required: true },
  out: { flags: '--out <file>', description: 'file to write', schema: z.string().min(1), path: 'out-file', required: true },
  history: {
    ...common.optionalHistory,
    description: 'histories the items are about; with it, plain output carries the evidence text',
  },
  strict: { ...common.strict, description: 'with --history: refuse degraded input (see inspect) instead of warning' },
});

/** `memsteer convert`: supervision.jsonl → formats other optimizers read. */
export function register(program: Command, io: CliIO): void {
  const command = program
    .command('convert <supervision>')
    .description('Write a supervision set in a format other optimizers read (plain JSONL, or an M*-style task list)');
  addOptions(command, CONVERT_OPTIONS).action(async (file: string, raw: Record<string, unknown>) => {
    const opts = parseOptions(CONVERT_OPTIONS, raw);
    checkPaths([{ flag: '<supervision>', value: file, role: 'file' }, ...tablePathChecks(CONVERT_OPTIONS, opts)]);
    const items = readJsonl(resolve(file), QAItemSchema);
    const histories = opts.history
      ? await loadCommandHistories(opts.history, io, { strict: opts.strict, questions: file, items })
      : undefined;
    if (opts.to === 'plain') {
      writeJsonl(resolve(opts.out), toPlain(items, histories), PlainItemSchema);
    } else {
      writeFileAtomic(resolve(opts.out), `${JSON.stringify(TaskListSchema.parse(toTaskList(items, file)), null, 2)}\n`);
    }
    io.out(`wrote ${items.length} items as ${opts.to} to ${opts.out}\n`);
  });
}
