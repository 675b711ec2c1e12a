import type { Command } from 'commander';
import Table from 'cli-table3';
import cliProgress from 'cli-progress';
import { resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { InputError } from '../../errors.ts';
import { runOptimize, type OptimizeConfigInput, type OptimizeReport, type SplitScores } from '../../optimize/run-optimize.ts';
import type { SearchEvent } from '../../optimize/search-loop.ts';
import { DEFAULT_EVAL_BUDGET } from './eval.ts';

interface OptimizeFlags {
  history?: string;
  supervision?: string;
  seed?: string;
  iterations: string;
  objective?: string;
  select: string;
  accept: string;
  offline?: boolean;
  budgetTokens?: string;
  budgetDollars?: string;
  maxProposals?: string;
  wallTime?: string;
  patience?: string;
  contextBudget: string;
  rngSeed: string;
  feedback: string;
  perCategory: string;
  control?: boolean;
  testCategories?: string;
  limit?: string;
  jobs?: string;
  out?: string;
  resume?: string;
  json?: boolean;
  space?: string;
}

const num = (flag: string, v: string | undefined, integer = true): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new InputError('E_BAD_FLAG', `${flag} ${JSON.stringify(v)}: expected a positive ${integer ? 'whole ' : ''}number`);
  return n;
};

/** Flags → the optimizer's config (validated again by its zod schema). */
export function configFromFlags(f: OptimizeFlags): OptimizeConfigInput {
  if (!f.history || !f.supervision) throw new InputError('E_BAD_FLAG', 'optimize needs --history and --supervision (or --resume <run>)');
  const space = f.space ?? 'code';
  if (space !== 'code' && space !== 'config')
    throw new InputError('E_BAD_FLAG', `--space ${JSON.stringify(f.space)}: expected code or config`);
  const cfg: OptimizeConfigInput = {
    history: f.history,
    supervision: f.supervision,
    seed: f.seed ?? (space === 'config' ? 'seeds/configurable.ts' : 'seeds/base-bm25.ts'),
    space,
    iterations: num('--iterations', f.iterations)!,
    select: f.select,
    accept: f.accept,
    offline: Boolean(f.offline),
    contextBudget: num('--context-budget', f.contextBudget)!,
    rngSeed: Number(f.rngSeed),
    feedback: f.feedback as 'stratified',
    perCategory: num('--per-category', f.perCategory)!,
    control: Boolean(f.control),
    testCategories: f.testCategories
      ? f.testCategories
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [],
  };
  if (f.objective) cfg.objective = f.objective as 'evidence';
  const opt = (k: keyof OptimizeConfigInput, flag: string, v: string | undefined, integer = true) => {
    const n = num(flag, v, integer);
    if (n !== undefined) (cfg as Record<string, unknown>)[k] = n;
  };
  opt('budgetTokens', '--budget-tokens', f.budgetTokens);
  opt('budgetDollars', '--budget-dollars', f.budgetDollars, false);
  opt('maxProposals', '--max-proposals', f.maxProposals);
  opt('wallTimeSeconds', '--wall-time', f.wallTime, false);
  opt('patience', '--patience', f.patience);
  opt('limit', '--limit', f.limit);
  opt('jobs', '--jobs', f.jobs);
  return cfg;
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

export async function runOptimizeCommand(f: OptimizeFlags, io: CliIO): Promise<OptimizeReport> {
  const resume = f.resume !== undefined;
  const out = resume ? f.resume! : (f.out ?? `archive/run-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  let line = '';
  const bar = io.interactive
    ? new cliProgress.SingleBar(
        {
          format: 'optimize {bar} iteration {value}/{total} | best {best} | accepted {accepted} | {what}',
          stream: { write: (s: string) => io.err(s), isTTY: true } as unknown as NodeJS.WritableStream,
          hideCursor: true,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const total = resume ? 0 : num('--iterations', f.iterations)!;
  bar?.start(total, 0, { best: '–', accepted: 0, what: 'seed' });
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
    report = await runOptimize({ out: resolve(out), resume, ...(resume ? {} : { config: configFromFlags(f) }), onEvent });
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
  program
    .command('optimize')
    .description('Evolve a memory design as code, steered by generated supervision (resumable)')
    .option('--history <source>', 'history source: <format>:<path>[#<history>]')
    .option('--supervision <file>', 'supervision.jsonl with train and val items (memsteer generate)')
    .option('--seed <file.ts>', 'seed design (default seeds/base-bm25.ts; seeds/configurable.ts with --space config)')
    .option('--space <space>', 'what the proposer may change: code | config (only the knobs of seeds/configurable.ts)', 'code')
    .option('--iterations <n>', 'iterations', '20')
    .option('--objective <name>', 'accuracy | evidence | f1 | marginal (default: accuracy with a model, evidence offline)')
    .option('--select <spec>', 'parent selection: greedy | softmax:<T> | pareto', 'greedy')
    .option('--accept <spec>', 'acceptance: better[:epsilon] | bootstrap[:level]', 'better')
    .option('--offline', 'use the offline proposer and answerer even when a model is configured')
    .option('--budget-tokens <n>', 'stop before LLM tokens exceed this')
    .option('--budget-dollars <x>', 'stop before LLM cost exceeds this')
    .option('--max-proposals <n>', 'stop after this many proposals')
    .option('--wall-time <seconds>', 'stop after this much wall time')
    .option('--patience <n>', 'stop after n iterations without improvement')
    .option('--context-budget <tokens>', 'context budget of the fixed answerer', String(DEFAULT_EVAL_BUDGET))
    .option('--rng-seed <n>', 'seed of every random choice', '1')
    .option('--feedback <mode>', 'failure cases shown to the proposer: stratified | diagnosis | random', 'stratified')
    .option('--per-category <n>', 'failure cases per category', '10')
    .option('--control', 'best-of-N control: every proposal from the seed, no archive conditioning')
    .option('--test-categories <list>', 'official QA categories for the final test (e.g. 1,2,3,4)')
    .option('--limit <n>', 'use at most n supervision items per split')
    .option('--jobs <n>', 'sandbox processes')
    .option('--out <dir>', 'run directory (default archive/run-<timestamp>)')
    .option('--resume <dir>', 'continue the run in this directory')
    .option('--json', 'print the report as JSON')
    .action(async (f: OptimizeFlags) => {
      await runOptimizeCommand(f, io);
    });
}
