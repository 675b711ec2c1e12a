import type { Command } from 'commander';
import Table from 'cli-table3';
import cliProgress from 'cli-progress';
import { join, resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { InputError } from '../../errors.ts';
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  OptimizeConfigSchema,
  runOptimize,
  type OptimizeConfigInput,
  type OptimizeReport,
  type SplitScores,
} from '../../optimize/run-optimize.ts';
import type { SearchEvent } from '../../optimize/search-loop.ts';
import type { QueueStatus } from '../../pool/queue-pool.ts';
import { acceptanceFromSpec, parentSelectorFromSpec } from '../../optimize/strategies/index.ts';
import { checkPaths, tablePathChecks } from '../check-paths.ts';
import * as common from '../common-options.ts';
import { loadCommandHistories } from '../history-warnings.ts';
import { addOptions, option, optionTable, parseOptions, type OptionsInput, type OptionsOf } from '../option-table.ts';

const C = OptimizeConfigSchema.shape;

/** `memsteer optimize`'s options, each declared once; defaults and bounds are the optimizer config schema's. */
export const OPTIMIZE_OPTIONS = optionTable({
  history: common.optionalHistory,
  supervision: common.supervision,
  seed: {
    flags: '--seed <file.ts>',
    description: 'seed design (default seeds/base-bm25.ts; seeds/configurable.ts with --space config)',
    schema: z.string().min(1).optional(),
    path: 'file',
  },
  space: {
    flags: '--space <space>',
    description: 'what the proposer may change (config: only the knobs of seeds/configurable.ts)',
    schema: C.space,
  },
  moves: {
    flags: '--moves <moves>',
    description: 'offline code moves: case-driven (default) | catalog (building blocks) | structural (AST mutation, crossover) | mixed',
    schema: C.moves,
  },
  structuralShare: {
    flags: '--structural-share <x>',
    description: 'with --moves mixed: share of proposals drawn from structural moves (0–1)',
    schema: C.structuralShare,
  },
  iterations: { flags: '--iterations <n>', description: 'iterations', schema: C.iterations },
  objective: common.objective,
  select: option({
    flags: '--select <spec>',
    description: 'parent selection: greedy | softmax:<T> | pareto | map-elites[:bins[:T]]',
    schema: C.select,
    check: (spec) => void parentSelectorFromSpec(spec),
  }),
  accept: option({
    flags: '--accept <spec>',
    description: 'acceptance: better[:epsilon] | bootstrap[:level]',
    schema: C.accept,
    check: (spec) => void acceptanceFromSpec(spec),
  }),
  offline: common.offline,
  budgetTokens: { flags: '--budget-tokens <n>', description: 'stop before LLM tokens exceed this', schema: C.budgetTokens },
  budgetDollars: { flags: '--budget-dollars <x>', description: 'stop before LLM cost exceeds this', schema: C.budgetDollars },
  maxProposals: { flags: '--max-proposals <n>', description: 'stop after this many proposals', schema: C.maxProposals },
  wallTime: { flags: '--wall-time <seconds>', description: 'stop after this much wall time', schema: C.wallTimeSeconds },
  patience: { flags: '--patience <n>', description: 'stop after n iterations without improvement', schema: C.patience },
  contextBudget: common.contextBudget,
  rngSeed: common.rngSeed,
  feedback: { flags: '--feedback <mode>', description: 'failure cases shown to the proposer', schema: C.feedback },
  perCategory: { flags: '--per-category <n>', description: 'failure cases per category', schema: C.perCategory },
  control: {
    flags: '--control',
    description: 'best-of-N control: every proposal from the seed, no archive conditioning',
    schema: C.control,
  },
  testCategories: common.testCategories,
  limit: common.limit,
  jobs: common.jobs,
  queue: common.queue,
  out: { flags: '--out <dir>', description: 'run directory (default archive/run-<timestamp>)', schema: z.string().min(1).optional() },
  resume: {
    flags: '--resume <dir>',
    description: 'continue the run in this directory',
    schema: z.string().min(1).optional(),
    path: 'run',
  },
  strict: common.strict,
  json: { ...common.json, description: 'print the report as JSON' },
});

/** `memsteer optimize`'s typed options. */
export type OptimizeOptions = OptionsOf<typeof OPTIMIZE_OPTIONS>;

/** Typed options → the optimizer's config (validated again by its zod schema). */
export function configFromFlags(f: OptimizeOptions): OptimizeConfigInput {
  if (!f.history || !f.supervision)
    throw new InputError('E_MISSING_FLAG', 'optimize needs --history and --supervision (or --resume <run>)');
  const {
    history,
    supervision,
    space,
    moves,
    structuralShare,
    iterations,
    select,
    accept,
    offline,
    contextBudget,
    rngSeed,
    feedback,
    perCategory,
    control,
  } = f;
  const cfg: OptimizeConfigInput = {
    history,
    supervision,
    seed: f.seed ?? (space === 'config' ? 'seeds/configurable.ts' : 'seeds/base-bm25.ts'),
    space,
    moves,
    structuralShare,
    iterations,
    select,
    accept,
    offline,
    contextBudget,
    rngSeed,
    feedback,
    perCategory,
    control,
    testCategories: f.testCategories,
  };
  if (f.objective) cfg.objective = f.objective;
  if (f.budgetTokens !== undefined) cfg.budgetTokens = f.budgetTokens;
  if (f.budgetDollars !== undefined) cfg.budgetDollars = f.budgetDollars;
  if (f.maxProposals !== undefined) cfg.maxProposals = f.maxProposals;
  if (f.wallTime !== undefined) cfg.wallTimeSeconds = f.wallTime;
  if (f.patience !== undefined) cfg.patience = f.patience;
  if (f.limit !== undefined) cfg.limit = f.limit;
  if (f.jobs !== undefined) cfg.jobs = f.jobs;
  return cfg;
}

/** Where a new run goes when --out is not given. */
const defaultRunDir = () => `archive/run-${new Date().toISOString().replace(/[:.]/g, '-')}`;

/**
 * Everything `optimize` checks before any work: the options, the paths, and that a new run's folder does not
 * already hold a run. Returns the run folder and, for a new run, its config.
 */
export function prepareOptimize(f: OptimizeOptions): { out: string; config?: OptimizeConfigInput } {
  if (f.resume !== undefined) {
    checkPaths(tablePathChecks({ resume: OPTIMIZE_OPTIONS.resume }, f));
    return { out: resolve(f.resume) };
  }
  const config = configFromFlags(f);
  const out = resolve(f.out ?? defaultRunDir());
  checkPaths([
    ...tablePathChecks(OPTIMIZE_OPTIONS, f),
    { flag: '--seed', value: config.seed, role: 'file' },
    { flag: '--out', value: out, role: 'out-dir' },
  ]);
  if (existsSync(join(out, 'manifest.json')))
    throw new InputError('E_ARCHIVE_EXISTS', `--out ${out}: already holds a run; resume it (--resume) or choose another --out`, {
      file: out,
    });
  return { out, config };
}

const RecordedInputsSchema = z.looseObject({ config: z.looseObject({ history: z.string(), supervision: z.string() }) });

/**
 * The history and supervision a run to resume was started with, from its manifest alone (written once, atomically,
 * so it can be read while another process holds the run). Undefined when there is no readable manifest: the search
 * then refuses the resume with its own coded error.
 */
function recordedInputs(dir: string): { history: string; supervision: string } | undefined {
  try {
    return RecordedInputsSchema.parse(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))).config;
  } catch {
    return undefined;
  }
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '–' : (x * 100).toFixed(1));

/** The side-by-side table: seed vs best, on validation (generated) and test (official QA). */
export function renderComparison(report: OptimizeReport): string {
  const t = new Table({
    head: ['', 'split', 'n', 'fitness', 'R@10', 'ctx recall', 'accuracy', 'F1', 'LoCoMo F1'],
    style: { head: [], border: [], compact: true },
  });
  const row = (name: string, split: string, s: SplitScores | null) =>
    s
      ? [name, split, String(s.n), pct(s.fitness), pct(s.recallAt10), pct(s.contextRecall), pct(s.accuracy), pct(s.f1), pct(s.locomoF1)]
      : [name, split, '–', '–', '–', '–', '–', '–', '–'];
  t.push(row(`seed ${report.seed.id}`, 'val', report.seed.val), row(`best ${report.best.id}`, 'val', report.best.val));
  if (report.seed.test || report.best.test)
    t.push(row(`seed ${report.seed.id}`, 'official', report.seed.test), row(`best ${report.best.id}`, 'official', report.best.test));
  return t.toString();
}

export function renderTrajectory(report: OptimizeReport): string {
  const t = new Table({
    head: ['iter', 'program', 'parent', 'score', 'status', 'proposer', 'rationale'],
    style: { head: [], border: [], compact: true },
  });
  for (const p of report.trajectory) {
    t.push([
      String(p.iteration),
      p.program,
      p.parent ?? '',
      p.score === null ? '–' : pct(p.score),
      p.status,
      p.proposer,
      p.rationale.slice(0, 70),
    ]);
  }
  return t.toString();
}

export async function runOptimizeCommand(input: OptionsInput<typeof OPTIMIZE_OPTIONS>, io: CliIO): Promise<OptimizeReport> {
  const f = parseOptions(OPTIMIZE_OPTIONS, input);
  const resume = f.resume !== undefined;
  const { out, config } = prepareOptimize(f);
  // The histories are loaded here, before any work, so their warnings (or the --strict refusal) come first; the search
  // reuses them. A resumed run's inputs are those its manifest recorded.
  const inputs = config ?? recordedInputs(out);
  const histories = inputs ? await loadCommandHistories(inputs.history, io, { strict: f.strict, questions: inputs.supervision }) : null;
  let line = '';
  const bar = io.interactive
    ? new cliProgress.SingleBar(
        {
          format: `optimize {bar} iteration {value}/{total} | best {best} | accepted {accepted}${f.queue ? ' | {queue}' : ''} | {what}`,
          stream: { write: (s: string) => io.err(s), isTTY: true } as unknown as NodeJS.WritableStream,
          hideCursor: true,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const total = resume ? 0 : f.iterations;
  bar?.start(total, 0, { best: '–', accepted: 0, what: 'seed', queue: 'connecting' });
  const onEvent = (e: SearchEvent) => {
    if (e.type === 'iteration') {
      bar?.update(e.iteration, { best: pct(e.bestScore), accepted: e.accepted, what: `tokens ${e.tokens}` });
      if (!bar && !f.json)
        io.err(`iteration ${e.iteration}: best ${pct(e.bestScore)} (${e.best}), ${e.accepted} accepted, LLM tokens ${e.tokens}\n`);
    } else if (e.type === 'evaluating') bar?.update({ what: `evaluating ${e.program} on ${e.split}` });
    else if (e.type === 'decided')
      line = `${e.program}: ${e.accepted ? 'accepted' : 'rejected'} (${pct(e.score)}, Δ ${(e.delta * 100).toFixed(2)}) ${e.reason}`;
    else if (e.type === 'invalid') line = `${e.program}: invalid at ${e.stage}: ${e.message.split('\n')[0]}`;
    if (line && !bar && !f.json && (e.type === 'decided' || e.type === 'invalid')) io.err(`  ${line}\n`);
  };
  let report: OptimizeReport;
  try {
    const queue = f.queue
      ? { queue: f.queue, onQueueStatus: (s: QueueStatus) => bar?.update({ queue: `${s.workers} workers, ${s.waiting} queued` }) }
      : {};
    report = await runOptimize({ out, resume, ...(config ? { config } : {}), ...(histories ? { histories } : {}), onEvent, ...queue });
  } finally {
    bar?.stop();
  }
  // The official scores are not what the designs earned when answers were refused for lack of budget: say so.
  if (report.testBudgetExhausted)
    io.err(
      'memsteer: warning: the LLM budget ran out during the final official test; its scores are incomplete (re-run with more budget)\n',
    );
  if (f.json) {
    io.out(`${JSON.stringify(report, null, 2)}\n`);
    return report;
  }
  io.out(`run ${report.run} (${report.dir}), objective ${report.objective}; stopped: ${report.stopReason}\n`);
  io.out(`${renderTrajectory(report)}\n`);
  io.out(`${renderComparison(report)}\n`);
  io.out(
    `${report.accepted} accepted of ${report.proposals} proposals; LLM tokens ${report.cost.promptTokens + report.cost.completionTokens}\n`,
  );
  io.out(report.diff ? `best design vs seed:\n${report.diff}\n` : 'the seed stayed best\n');
  return report;
}

export function register(program: Command, io: CliIO): void {
  const command = program.command('optimize').description('Evolve a memory design as code, steered by generated supervision (resumable)');
  addOptions(command, OPTIMIZE_OPTIONS).action(async (raw: Record<string, unknown>) => {
    await runOptimizeCommand(raw, io);
  });
}
