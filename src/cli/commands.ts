import type { Command } from 'commander';
import type { CliIO } from './io.ts';

/** Each command lives in its own module under ./commands/ and registers itself here. */
export function registerCommands(program: Command, io: CliIO): void {
  void program;
  void io;
}
