import { Command, CommanderError } from 'commander';
import { MemsteerError } from '../errors.ts';
import type { CliIO } from './io.ts';
import { defaultIO } from './io.ts';
import { registerCommands } from './commands.ts';

/**
 * Runs the memsteer CLI with the given argv (as `process.argv`) and returns the exit code. Errors we raise on
 * purpose print as one line `memsteer: <code>: <message>`; anything else is a bug and prints its stack.
 */
export async function main(argv: string[], io: CliIO = defaultIO()): Promise<number> {
  const program = new Command();
  program
    .name('memsteer')
    .description('Supervision from unlabeled histories, and memory designs evolved as code.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });
  registerCommands(program, io);
  try {
    await program.parseAsync(argv);
    return io.exitCode ?? 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof MemsteerError) {
      io.err(`memsteer: ${err.code}: ${err.message}\n`);
      return 1;
    }
    io.err(`memsteer: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    return 70;
  }
}
