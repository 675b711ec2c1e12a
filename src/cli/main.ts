import { Command, CommanderError } from 'commander';
import { MemsteerError } from '../errors.ts';
import type { CliIO } from './io.ts';
import { defaultIO } from './io.ts';
import { registerCommands } from './commands.ts';

/** Commander's parse errors as our stable codes (anything else it reports is `E_USAGE`). */
const COMMANDER_CODES: Record<string, string> = {
  'commander.invalidArgument': 'E_BAD_FLAG',
  'commander.missingMandatoryOptionValue': 'E_MISSING_FLAG',
  'commander.optionMissingArgument': 'E_MISSING_FLAG',
  'commander.unknownOption': 'E_UNKNOWN_FLAG',
  'commander.unknownCommand': 'E_UNKNOWN_COMMAND',
  'commander.missingArgument': 'E_USAGE',
  'commander.excessArguments': 'E_USAGE',
};

/** Commander exits that are not errors: help was asked for or shown. */
const QUIET_COMMANDER_CODES = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

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
    // Commander's own parse errors are printed below as coded lines like ours; help and version still print.
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s), outputError: () => {} });
  registerCommands(program, io);
  try {
    await program.parseAsync(argv);
    return io.exitCode ?? 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0 || QUIET_COMMANDER_CODES.has(err.code)) return err.exitCode;
      const message = err.message
        .replace(/^error: /, '')
        .split('\n')[0]!
        .replace(/\.$/, '');
      io.err(`memsteer: ${COMMANDER_CODES[err.code] ?? 'E_USAGE'}: ${message}; see memsteer help\n`);
      return err.exitCode || 1;
    }
    if (err instanceof MemsteerError) {
      io.err(`memsteer: ${err.code}: ${err.message}\n`);
      return 1;
    }
    io.err(`memsteer: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    return 70;
  }
}
