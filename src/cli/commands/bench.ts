import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../errors.ts';
import type { BenchConfigInput } from '../../experiments/bench-config.ts';
import type { BenchEvent } from '../../experiments/context.ts';
import { runBench, type BenchReport } from '../../experiments/run-bench.ts';
import { EXPERIMENTS, ExperimentName, type BenchDataset } from '../../experiments/schemas.ts';
import type { CliIO } from '../io.ts';

interface BenchFlags {
  dataset: string;
  experiments?: string;
  iterations: string;
  out: string;
  data: string;
  perHistory?: string;
  budgets?: string;
  transferSources?: string;
  ablationPersonas?: string;
  ablationPerHistory?: string;
  rhelmTest?: string;
  rngSeed: string;
  jobs?: string;
  queue?: string;
  fresh?: boolean;
  json?: boolean;
}

const int = (flag: string, v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InputError('E_BAD_FLAG', `${flag} ${JSON.stringify(v)}: expected a positive whole number`);
  return n;
};

/** Where each dataset lives under `--data` (the layout of ../shared/data). */
const DATA_PATHS: Record<BenchDataset, { format: string; path: string }> = {
  locomo: { format: 'locomo', path: join('locomo', 'locomo10.json') },
  rhelm: { format: 'rhelm', path: 'rhelm' },
};

/** Flags → the bench's config (validated again by its zod schema). */
export function benchConfigFromFlags(f: BenchFlags): BenchConfigInput {
  const ids: BenchDataset[] =
    f.dataset === 'all' ? ['locomo', 'rhelm'] : f.dataset === 'locomo' || f.dataset === 'rhelm' ? [f.dataset] : [];
  if (!ids.length) throw new InputError('E_BAD_FLAG', `--dataset ${JSON.stringify(f.dataset)}: expected locomo, rhelm or all`);
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
  const experiments = (f.experiments ?? EXPERIMENTS.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((e) => {
      const r = ExperimentName.safeParse(e);
      if (!r.success)
        throw new InputError('E_BAD_FLAG', `--experiments: unknown experiment ${JSON.stringify(e)}; use ${EXPERIMENTS.join(', ')}`);
      return r.data;
    });
  const cfg: BenchConfigInput = {
    out: f.out,
    datasets,
    experiments,
    iterations: int('--iterations', f.iterations),
    rngSeed: Number(f.rngSeed),
    fresh: Boolean(f.fresh),
  };
  if (f.perHistory) cfg.perHistory = int('--per-history', f.perHistory);
  if (f.budgets) cfg.budgets = f.budgets.split(',').map((b) => int('--budgets', b.trim()));
  if (f.transferSources) cfg.transferSources = int('--transfer-sources', f.transferSources);
  if (f.ablationPersonas) cfg.ablationPersonas = int('--ablation-personas', f.ablationPersonas);
  if (f.ablationPerHistory) cfg.ablationPerHistory = int('--ablation-per-history', f.ablationPerHistory);
  if (f.jobs) cfg.jobs = int('--jobs', f.jobs);
  if (f.queue) cfg.queue = f.queue;
  if (f.rhelmTest) cfg.rhelmTestPerPersona = f.rhelmTest === 'all' ? null : int('--rhelm-test', f.rhelmTest);
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
  }
}

export async function runBenchCommand(f: BenchFlags, io: CliIO): Promise<BenchReport> {
  const started = performance.now();
  const report = await runBench(benchConfigFromFlags(f), (e) => {
    const line = progressLine(e, (performance.now() - started) / 1000);
    if (line && !f.json) io.err(`${line}\n`);
  });
  if (f.json) io.out(`${JSON.stringify({ seconds: report.seconds, files: report.files, results: report.results }, null, 2)}\n`);
  else
    io.out(
      `wrote ${report.files.length} files to ${resolve(f.out)} in ${(report.seconds / 60).toFixed(1)} min:\n${report.files.map((p) => `  ${p}`).join('\n')}\n`,
    );
  return report;
}

export function register(program: Command, io: CliIO): void {
  program
    .command('bench')
    .description(
      "Offline versions of the method's experiments (main, transfer, supervision and feedback ablations) as JSON and Markdown tables",
    )
    .option('--dataset <name>', 'locomo | rhelm | all', 'all')
    .option('--experiments <list>', `comma-separated: ${EXPERIMENTS.join(',')}`)
    .option('--iterations <n>', 'search iterations per optimization run', '10')
    .option('--out <dir>', 'results directory (intermediate work under <dir>/work is reused by later runs)', 'archive/bench')
    .option('--data <dir>', 'folder holding locomo/locomo10.json and rhelm/', '../shared/data')
    .option('--per-history <n>', 'generated items per history (main, transfer, LoCoMo ablations)')
    .option('--budgets <list>', 'training budgets of the supervision ablation (default 100,200,400)')
    .option('--transfer-sources <n>', 'RHELM personas the transfer design is optimized on (default 4)')
    .option('--ablation-personas <n>', 'RHELM personas the ablations run on (default 2)')
    .option('--ablation-per-history <n>', 'generated items per RHELM ablation persona (default 300)')
    .option('--rhelm-test <n|all>', 'RHELM official questions tested per persona (a fixed sample; default all)')
    .option('--rng-seed <n>', 'seed of every random choice', '1')
    .option('--jobs <n>', 'sandbox processes per pool')
    .option('--queue <url>', 'run groups on memsteer workers through this Redis queue (redis://host:port[/db])')
    .option('--fresh', 'discard earlier work under <out>/work (supervision, runs, evaluation cache)')
    .option('--json', 'print every result as JSON instead of progress and file list')
    .action(async (f: BenchFlags) => {
      await runBenchCommand(f, io);
    });
}
