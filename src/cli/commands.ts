import type { Command } from 'commander';
import type { CliIO } from './io.ts';
import { register as registerInspect } from './commands/inspect.ts';
import { register as registerEval } from './commands/eval.ts';
import { register as registerGenerate } from './commands/generate.ts';
import { register as registerOptimize } from './commands/optimize.ts';
import { register as registerArchive } from './commands/archive.ts';
import { register as registerStart } from './commands/start.ts';
import { register as registerConvert } from './commands/convert.ts';
import { register as registerExport } from './commands/export.ts';
import { register as registerReport } from './commands/report.ts';
import { register as registerCompare } from './commands/compare.ts';
import { register as registerBench } from './commands/bench.ts';
import { register as registerWorker } from './commands/worker.ts';

/** Each command lives in its own module under ./commands/ and registers itself here. */
export function registerCommands(program: Command, io: CliIO): void {
  registerStart(program, io);
  registerInspect(program, io);
  registerGenerate(program, io);
  registerEval(program, io);
  registerOptimize(program, io);
  registerArchive(program, io);
  registerConvert(program, io);
  registerExport(program, io);
  registerReport(program, io);
  registerCompare(program, io);
  registerBench(program, io);
  registerWorker(program, io);
}
