import { queueStatusLines } from '../queue-status.ts';
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../errors.ts';
import { BenchConfigSchema, type BenchConfigInput } from '../../experiments/bench-config.ts';
import type { BenchEvent } from '../../experiments/context.ts';
import { runBench, type BenchReport } from '../../experiments/run-bench.ts';
import { BenchDataset, EXPERIMENTS, ExperimentName } from '../../experiments/schemas.ts';
import type { CliIO } from '../io.ts';
import { z } from 'zod';
import { count, LIMITS } from '../../config/run-options.ts';
import { checkPaths, tablePathChecks } from '../check-paths.ts';
import * as common from '../common-options.ts';
import type { History } from '../../history/record.ts';
import { loadCommandHistories } from '../history-warnings.ts';
import { addOptions, optionTable, parseOptions, toNumber, type OptionsInput, type OptionsOf } from '../option-table.ts';

const B = BenchConfigSchema.shape;

/** `memsteer bench`'s options, each declared once; defaults and bounds are the bench config schema's. */
export const BENCH_OPTIONS = optionTable({
  dataset: { flags: '--dataset <name>', description: 'which data sets', schema: z.enum([...BenchDataset.options, 'all']).default('all') },
  experiments: {
    flags: '--experiments <list>',
    description: `comma-separated: ${EXPERIMENTS.join(',')}`,
    schema: z.array(ExperimentName).min(1).optional(),
  },
  iterations: { flags: '--iterations <n>', description: 'search iterations per optimization run', schema: B.iterations },
  out: {
    flags: '--out <dir>',
    description: 'results directory (intermediate work under <dir>/work is reused by later runs)',
    schema: z.string().min(1).default('archive/bench'),
    path: 'out-dir',
  },
  data: {
    flags: '--data <dir>',
    description: 'folder holding locomo/locomo10.json and rhelm/',
    schema: z.string().min(1).default('../shared/data'),
    path: 'dir',
  },
  perHistory: {
    flags: '--per-history <n>',
    description: 'generated items per history (main, transfer, LoCoMo ablations)',
    schema: count(LIMITS.generateItems).optional(),
  },
  budgets: {
    flags: '--budgets <list>',
    description: 'training budgets of the supervision ablation (default 100,200,400)',
    schema: z.array(count(LIMITS.generateItems)).min(1).optional(),
  },
  transferSources: {
    flags: '--transfer-sources <n>',
    description: 'RHELM personas the transfer design is optimized on (default 4)',
    schema: count(LIMITS.items).optional(),
  },
  ablationPersonas: {
    flags: '--ablation-personas <n>',
    description: 'RHELM personas the ablations run on (default 2)',
    schema: count(LIMITS.items).optional(),
  },
  ablationPerHistory: {
    flags: '--ablation-per-history <n>',
    description: 'generated items per RHELM ablation persona (default 300)',
    schema: count(LIMITS.generateItems).optional(),
  },
  rhelmTest: {
    flags: '--rhelm-test <n|all>',
    description: 'RHELM official questions tested per persona (a fixed sample; default all)',
    schema: count(LIMITS.items).nullable().optional(),
    parse: (text: string) => (text.trim() === 'all' ? null : toNumber(text)),
  },
  excludeDev: {
    flags: '--exclude-dev',
    description: 'leave the development histories (src/experiments/dev-subsets.ts) out of every experiment',
    schema: B.excludeDev,
  },
  fidelity: {
    flags: '--fidelity',
    description: "evaluate every candidate of each optimized row's run on its official questions: τ-b, Spearman, regret",
    schema: B.fidelity,
  },
  rngSeed: common.rngSeed,
  jobs: { ...common.jobs, description: 'sandbox processes per pool' },
  queue: common.queue,
  fresh: { flags: '--fresh', description: 'discard earlier work under <out>/work (supervision, runs, evaluation cache)', schema: B.fresh },
  strict: common.strict,
  json: { ...common.json, description: 'print every result as JSON instead of progress and file list' },
});

/** `memsteer bench`'s typed options. */
export type BenchOptions = OptionsOf<typeof BENCH_OPTIONS>;

/** Where each dataset lives under `--data` (the layout of ../shared/data). */
const DATA_PATHS: Record<BenchDataset, { format: string; path: string }> = {
  locomo: { format: 'locomo', path: join('locomo', 'locomo10.json') },
  rhelm: { format: 'rhelm', path: 'rhelm' },
};

/** Flags (typed, or as typed on the command line) → the bench's config (validated again by its zod schema). */
export function benchConfigFromFlags(input: OptionsInput<typeof BENCH_OPTIONS>): BenchConfigInput {
  const f = parseOptions(BENCH_OPTIONS, input);
  const ids: BenchDataset[] = f.dataset === 'all' ? ['locomo', 'rhelm'] : [f.dataset];
  const datasets = ids.map((id) => {
    const p = resolve(f.data, DATA_PATHS[id].path);
    if (!existsSync(p))
      throw new InputError(
        'E_NO_FILE',
        `${p}: ${id} data not found; point --data at the folder holding ${DATA_PATHS[id].path} (e.g. ../shared/data)`,
        { file: p },
      );
    return { id, source: `${DATA_PATHS[id].format}:${p}` };
  });
  const cfg: BenchConfigInput = {
    out: f.out,
    datasets,
    experiments: f.experiments ?? [...EXPERIMENTS],
    iterations: f.iterations,
    rngSeed: f.rngSeed,
    fresh: f.fresh,
    excludeDev: f.excludeDev,
    fidelity: f.fidelity,
  };
  if (f.perHistory !== undefined) cfg.perHistory = f.perHistory;
  if (f.budgets) cfg.budgets = f.budgets;
  if (f.transferSources !== undefined) cfg.transferSources = f.transferSources;
  if (f.ablationPersonas !== undefined) cfg.ablationPersonas = f.ablationPersonas;
  if (f.ablationPerHistory !== undefined) cfg.ablationPerHistory = f.ablationPerHistory;
  if (f.jobs !== undefined) cfg.jobs = f.jobs;
  if (f.queue !== undefined) cfg.queue = f.queue;
  if (f.rhelmTest !== undefined) cfg.rhelmTestPerPersona = f.rhelmTest;
  return cfg;
}

/** One progress line per event worth a line (iterations, steps, finished evaluations). */
export function progressLine(e: BenchEvent, elapsed: number): string | null {
  const t = `[${Math.floor(elapsed / 60)}:${String(Math.floor(elapsed % 60)).padStart(2, '0')}]`;
  switch (e.type) {
    case 'experiment':
      return e.phase === 'start' ? `${t} ── ${e.experiment}` : `${t} ${e.experiment} done in ${(e.seconds ?? 0).toFixed(0)} s`;
    case 'step':
      return `${t} ${e.message}`;
    case 'search':
      return `${t}   ${e.cell}: iteration ${e.iteration}/${e.iterations}, best ${(e.bestScore * 100).toFixed(1)}, ${e.accepted} accepted`;
    case 'evaluate':
      return e.done === e.total ? `${t}   official QA ${e.label}: ${e.total} questions` : null;
    case 'queue':
      return `${t}   queue: ${e.workers} workers, ${e.waiting} groups waiting`;
  }
}

export async function runBenchCommand(input: OptionsInput<typeof BENCH_OPTIONS>, io: CliIO): Promise<BenchReport> {
  const f = parseOptions(BENCH_OPTIONS, input);
  checkPaths(tablePathChecks(BENCH_OPTIONS, f));
  const config = benchConfigFromFlags(f);
  // The data sets are loaded here so their warnings (or the --strict refusal) come before hours of work; the
  // experiments reuse them.
  const histories = new Map<BenchDataset, History[]>();
  for (const d of config.datasets) histories.set(d.id, await loadCommandHistories(d.source, io, { strict: f.strict }));
  const started = performance.now();
  const queueLine = queueStatusLines();
  const report = await runBench(
    config,
    (e) => {
      // The queue reports every second: print only when its workers or waiting groups changed.
      if (e.type === 'queue' && queueLine(e) === null) return;
      const line = progressLine(e, (performance.now() - started) / 1000);
      if (line && !f.json) io.err(`${line}\n`);
    },
    histories,
  );
  if (f.json) io.out(`${JSON.stringify({ seconds: report.seconds, files: report.files, results: report.results }, null, 2)}\n`);
  else
    io.out(
      `wrote ${report.files.length} files to ${resolve(f.out)} in ${(report.seconds / 60).toFixed(1)} min:\n` +
        `${report.files.map((p) => `  ${p}`).join('\n')}\n`,
    );
  return report;
}

export function register(program: Command, io: CliIO): void {
  const command = program
    .command('bench')
    .description(
      "Offline versions of the method's experiments (main, transfer, supervision and feedback ablations) as JSON and Markdown tables",
    );
  addOptions(command, BENCH_OPTIONS).action(async (raw: Record<string, unknown>) => {
    await runBenchCommand(raw, io);
  });
}
