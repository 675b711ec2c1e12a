import type { Command } from 'commander';
import Table from 'cli-table3';
import { resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { InputError } from '../../errors.ts';
import { runCompare, type ArmName, type CompareOptionsInput, type CompareReport, type CompareScores } from '../../optimize/compare.ts';
import type { SearchEvent } from '../../optimize/search-loop.ts';
import { DEFAULT_EVAL_BUDGET } from './eval.ts';

interface CompareFlags {
  history?: string;
  supervision?: string;
  seed?: string;
  codeSeed?: string;
  iterations: string;
  maxProposals?: string;
  budgetTokens?: string;
  control?: boolean;
  offline?: boolean;
  objective?: string;
  rngSeed: string;
  contextBudget: string;
  testCategories?: string;
  limit?: string;
  jobs?: string;
  queue?: string;
  out?: string;
  json?: boolean;
}

const positive = (flag: string, v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InputError('E_BAD_FLAG', `${flag} ${JSON.stringify(v)}: expected a positive whole number`);
  return n;
};

/** Flags → runCompare's options (validated again by its zod schema). */
export function compareOptionsFromFlags(f: CompareFlags, out: string): CompareOptionsInput {
  if (!f.history || !f.supervision)
    throw new InputError('E_BAD_FLAG', 'compare needs --history and --supervision (generate supervision with memsteer generate)');
  const rngSeed = Number(f.rngSeed);
  if (!Number.isInteger(rngSeed)) throw new InputError('E_BAD_FLAG', `--rng-seed ${JSON.stringify(f.rngSeed)}: expected a whole number`);
  const opts: CompareOptionsInput = {
    history: f.history,
    supervision: f.supervision,
    out,
    iterations: positive('--iterations', f.iterations)!,
    control: Boolean(f.control),
    offline: Boolean(f.offline),
    rngSeed,
    contextBudget: positive('--context-budget', f.contextBudget)!,
    testCategories: f.testCategories
      ? f.testCategories
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [],
  };
  if (f.seed) opts.seed = resolve(f.seed);
  if (f.codeSeed) opts.codeSeed = resolve(f.codeSeed);
  if (f.objective) opts.objective = f.objective as 'evidence';
  const maxProposals = positive('--max-proposals', f.maxProposals);
  const budgetTokens = positive('--budget-tokens', f.budgetTokens);
  const limit = positive('--limit', f.limit);
  const jobs = positive('--jobs', f.jobs);
  if (maxProposals) opts.maxProposals = maxProposals;
  if (budgetTokens) opts.budgetTokens = budgetTokens;
  if (limit) opts.limit = limit;
  if (jobs) opts.jobs = jobs;
  if (f.queue) opts.queue = f.queue;
  return opts;
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '–' : (x * 100).toFixed(1));
const signed = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(2)}`;

/** Best-so-far validation score per iteration, one column per arm (a `*` marks an accepted candidate). */
export function renderTrajectories(report: CompareReport): string {
  const t = new Table({
    head: ['iter', ...report.arms.map((a) => `${a.arm} best`), ...report.arms.map((a) => `${a.arm} cand.`)],
    style: { head: [], border: [], compact: true },
  });
  t.push(['0 (seed)', ...report.arms.map((a) => pct(a.seed.val.fitness)), ...report.arms.map(() => '')]);
  const last = Math.max(0, ...report.arms.map((a) => a.trajectory.at(-1)?.iteration ?? 0));
  for (let i = 1; i <= last; i++) {
    const at = report.arms.map((a) => a.trajectory.find((p) => p.iteration === i));
    t.push([
      String(i),
      ...at.map((p) => (p ? pct(p.bestSoFar) : '')),
      ...at.map((p) => (p ? `${p.candidate === null ? 'invalid' : pct(p.candidate)}${p.accepted ? ' *' : ''}` : '')),
    ]);
  }
  return t.toString();
}

/** Final scores of each arm's seed and best design on validation (generated) and test (official QA). */
export function renderFinalScores(report: CompareReport): string {
  const t = new Table({
    head: ['arm', 'design', 'split', 'n', 'fitness', 'R@10', 'ctx recall', 'accuracy', 'F1', 'LoCoMo F1', 'acc./prop.', 'tokens', 'time'],
    style: { head: [], border: [], compact: true },
  });
  const row = (arm: string, design: string, split: string, s: CompareScores | null, extra: string[]) =>
    s
      ? [
          arm,
          design,
          split,
          String(s.n),
          pct(s.fitness),
          pct(s.recallAt10),
          pct(s.contextRecall),
          pct(s.accuracy),
          pct(s.f1),
          pct(s.locomoF1),
          ...extra,
        ]
      : [arm, design, split, '–', '–', '–', '–', '–', '–', '–', ...extra];
  const first = report.arms[0]!;
  t.push(row('(all)', `seed ${first.seed.id}`, 'val', first.seed.val, ['', '', '']));
  if (first.seed.test) t.push(row('(all)', `seed ${first.seed.id}`, 'official', first.seed.test, ['', '', '']));
  for (const a of report.arms) {
    const extra = [`${a.accepted}/${a.proposals}`, String(a.tokens), `${(a.ms / 1000).toFixed(0)} s`];
    t.push(row(a.arm, `best ${a.best.id}`, 'val', a.best.val, extra));
    if (a.best.test) t.push(row(a.arm, `best ${a.best.id}`, 'official', a.best.test, ['', '', '']));
  }
  return t.toString();
}

/** One line per paired-bootstrap difference. */
export function renderDifferences(report: CompareReport): string {
  return report.differences
    .map(
      (d) =>
        `${d.a} − ${d.b} on ${d.split === 'test' ? 'official QA (test)' : 'validation'}, ${d.n} questions, ${report.objective} fitness: ` +
        `mean ${signed(d.mean)} pts, ${Math.round(d.level * 100)}% CI [${signed(d.lower)}, ${signed(d.upper)}] (paired bootstrap, ${d.resamples} resamples); ` +
        `${d.a} better in ${(d.pBetter * 100).toFixed(1)}% of resamples${d.lower > 0 || d.upper < 0 ? '' : ' — the interval includes 0'}`,
    )
    .join('\n');
}

export async function runCompareCommand(f: CompareFlags, io: CliIO): Promise<CompareReport> {
  const out = resolve(f.out ?? `archive/compare-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const options = compareOptionsFromFlags(f, out);
  const quiet = Boolean(f.json);
  const onArm = (arm: ArmName, phase: 'start' | 'done') => {
    if (!quiet && phase === 'start') io.err(`── ${arm} ${arm === 'control' ? '(best-of-N, code space)' : 'search'} ──\n`);
  };
  const onEvent = (arm: ArmName, e: SearchEvent) => {
    if (quiet) return;
    if (e.type === 'iteration')
      io.err(`${arm} iteration ${e.iteration}: best ${pct(e.bestScore)} (${e.best}), ${e.accepted} accepted, LLM tokens ${e.tokens}\n`);
    else if (e.type === 'invalid') io.err(`  ${arm} ${e.program}: invalid at ${e.stage}: ${e.message.split('\n')[0]}\n`);
  };
  const report = await runCompare(options, { onArm, onEvent });
  if (f.json) {
    io.out(`${JSON.stringify(report, null, 2)}\n`);
    return report;
  }
  io.out(
    `compare: ${report.arms.map((a) => a.arm).join(' vs ')} from ${report.seed}${report.codeSeed !== report.seed ? ` (code: ${report.codeSeed})` : ''}, ${report.iterations} iterations each, objective ${report.objective}, RNG seed ${report.rngSeed}` +
      `${report.budgetTokens ? `, ≤ ${report.budgetTokens} LLM tokens each` : ''}${report.maxProposals ? `, ≤ ${report.maxProposals} proposals each` : ''}\n`,
  );
  io.out("validation fitness, best so far per iteration (cand. = that iteration's candidate, * accepted):\n");
  io.out(`${renderTrajectories(report)}\n`);
  io.out(`${renderFinalScores(report)}\n`);
  io.out(`${renderDifferences(report)}\n`);
  for (const a of report.arms) io.out(`${a.arm}: stopped (${a.stopReason}); run in ${a.dir}\n`);
  io.out(`total ${(report.ms / 1000).toFixed(0)} s; report ${resolve(out, 'compare.json')}\n`);
  return report;
}

export function register(program: Command, io: CliIO): void {
  program
    .command('compare')
    .description(
      'Code search vs config search from the same seed, supervision, RNG seed and budget: trajectories, final scores and the paired bootstrap CI of the difference',
    )
    .option('--history <source>', 'history source: <format>:<path>[#<history>]')
    .option('--supervision <file>', 'supervision.jsonl with train and val items (memsteer generate)')
    .option('--seed <file.ts>', "the shared seed, a config-space design (default: the package's seeds/configurable.ts)")
    .option(
      '--code-seed <file.ts>',
      'seed of the code and control arms when it should differ (e.g. seeds/base-bm25.ts: the same behaviour as the defaults)',
    )
    .option('--iterations <n>', 'iterations per arm', '10')
    .option('--max-proposals <n>', 'proposals per arm (repairs count)')
    .option('--budget-tokens <n>', 'LLM tokens per arm')
    .option('--control', 'also run the best-of-N control (code space, every proposal from the seed)')
    .option('--offline', 'use the offline proposers and answerer even when a model is configured')
    .option('--objective <name>', 'accuracy | evidence | f1 | marginal (default: accuracy with a model, evidence offline)')
    .option('--rng-seed <n>', 'seed of every random choice (the same for every arm)', '1')
    .option('--context-budget <tokens>', 'context budget of the fixed answerer', String(DEFAULT_EVAL_BUDGET))
    .option('--test-categories <list>', 'official QA categories for the final test (e.g. 1,2,3,4)')
    .option('--limit <n>', 'use at most n supervision items per split')
    .option('--jobs <n>', 'sandbox processes')
    .option('--queue <url>', 'run groups on memsteer workers through this Redis queue (redis://host:port[/db])')
    .option('--out <dir>', "where the arms' runs and compare.json go (default archive/compare-<timestamp>)")
    .option('--json', 'print the report as JSON')
    .action(async (f: CompareFlags) => {
      await runCompareCommand(f, io);
    });
}
