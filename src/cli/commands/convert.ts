import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { ConfigError } from '../../errors.ts';
import { loadHistories } from '../../history/load.ts';
import { QAItemSchema } from '../../history/record.ts';
import { ExternalFormat, PlainItemSchema, TaskListSchema, toPlain, toTaskList } from '../../supervision/external-formats.ts';
import { writeFileAtomic } from '../../util/atomic-write.ts';
import { readJsonl, writeJsonl } from '../../util/jsonl.ts';

/** `memsteer convert`: supervision.jsonl → formats other optimizers read. */
export function register(program: Command, io: CliIO): void {
  program
    .command('convert <supervision>')
    .description('Write a supervision set in a format other optimizers read (plain JSONL, or an M*-style task list)')
    .requiredOption('--to <format>', `output format: ${ExternalFormat.options.join(' | ')}`)
    .requiredOption('--out <file>', 'file to write')
    .option('--history <source>', 'histories the items are about; with it, plain output carries the evidence text')
    .action(async (file: string, opts: { to: string; out: string; history?: string }) => {
      const format = ExternalFormat.safeParse(opts.to);
      if (!format.success) throw new ConfigError('E_BAD_OPTION', `--to ${opts.to}: expected ${ExternalFormat.options.join(' or ')}`);
      const items = readJsonl(resolve(file), QAItemSchema);
      if (format.data === 'plain') {
        const histories = opts.history ? await loadHistories(opts.history) : undefined;
        writeJsonl(resolve(opts.out), toPlain(items, histories), PlainItemSchema);
      } else {
        writeFileAtomic(resolve(opts.out), `${JSON.stringify(TaskListSchema.parse(toTaskList(items, file)), null, 2)}\n`);
      }
      io.out(`wrote ${items.length} items as ${format.data} to ${opts.out}\n`);
    });
}
