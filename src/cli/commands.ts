import type { Command } from 'commander';
import type { CliIO } from './io.ts';
import { register as registerInspect } from './commands/inspect.ts';
import { register as registerEval } from './commands/eval.ts';
import { register as registerGenerate } from './commands/generate.ts';

/** Each command lives in its own module under ./commands/ and registers itself here. */
export function registerCommands(program: Command, io: CliIO): void {
  void program;
  void io;
  registerInspect(program, io);
  registerEval(program, io);
  registerGenerate(program, io);
}
