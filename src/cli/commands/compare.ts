import type { QueueStatus } from '../../pool/queue-pool.ts';
import { queueStatusLines } from '../queue-status.ts';
import type { Command } from 'commander';
import Table from 'cli-table3';
import { join, resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { InputError } from '../../errors.ts';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import {
  ArmName,
  CompareOptionsSchema,
  runCompare,
  type CompareOptionsInput,
  type CompareReport,
  type CompareScores,
} from '../../optimize/compare.ts';
import type { SearchEvent } from '../../optimize/search-loop.ts';
import { runCompareSeeds, seedDir, type CompareSeedsReport, type PooledDifference } from '../../optimize/compare-seeds.ts';
import { checkPaths, tablePathChecks } from '../check-paths.ts';
import * as common from '../common-options.ts';
import { loadCommandHistories } from '../history-warnings.ts';
import { historySplit } from '../../experiments/dev-subsets.ts';
import { acceptanceFromSpec, parentSelectorFromSpec } from '../../optimize/strategies/index.ts';
import { addOptions, option, optionTable, parseOptions, type OptionsInput, type OptionsOf } from '../option-table.ts';

const C = CompareOptionsSchema.shape;

/** `memsteer compare`'s options, each declared once; defaults and bounds are runCompare's schema's. */
export const COMPARE_OPTIONS = optionTable({
  history: common.history,
  supervision: { ...common.supervision, schema: z.string().min(1), required: true },
  seed: {
    flags: '--seed <file.ts>',
    description: "the shared seed, a config-space design (default: the package's seeds/configurable.ts)",
    schema: z.string().min(1).optional(),
    path: 'file',
  },
  codeSeed: {
    flags: '--code-seed <file.ts>',
    description: 'seed of the code and control arms when it should differ (e.g. seeds/base-bm25.ts: the same behaviour as the defaults)',
    schema: z.string().min(1).optional(),
    path: 'file',
  },
  iterations: { flags: '--iterations <n>', description: 'iterations per arm', schema: C.iterations },
  maxProposals: { flags: '--max-proposals <n>', description: 'proposals per arm (repairs count)', schema: C.maxProposals },
  budgetTokens: { flags: '--budget-tokens <n>', description: 'LLM tokens per arm', schema: C.budgetTokens },
  control: {
    flags: '--control',
    description: 'also run the best-of-N control (code space, every proposal from the seed)',
    schema: C.control,
  },
  moves: {
    flags: '--moves <moves>',
    description: 'offline moves of the code arm: case-driven (default) | catalog | structural (AST mutation, crossover) | mixed',
    schema: C.moves,
  },
  select: option({
    flags: '--select <spec>',
    description: 'parent selection of every arm: greedy | softmax:<T> | pareto | map-elites[:bins[:T]]',
    schema: C.select,
    check: (spec) => void parentSelectorFromSpec(spec),
  }),
  accept: option({
    flags: '--accept <spec>',
    description: 'acceptance of every arm: better[:epsilon] | bootstrap[:level] (default better)',
    schema: C.accept,
    check: (spec) => void acceptanceFromSpec(spec),
  }),
  offline: common.offline,
  objective: common.objective,
  rngSeed: { ...common.rngSeed, description: 'seed of every random choice (the same for every arm)' },
  rngSeeds: {
    flags: '--rng-seeds <list>',
    description:
      'run the comparison once per RNG seed (two or more, comma-separated, e.g. 1,2,3; each in <out>/seed-<n>; ' +
      'one seed is --rng-seed) and pool the runs: ' +
      "the interval then covers the search's luck as well as the questions",
    schema: z.array(z.number().int()).min(2).optional(),
  },
  contextBudget: common.contextBudget,
  testCategories: common.testCategories,
  limit: common.limit,
  jobs: common.jobs,
  queue: common.queue,
  out: {
    flags: '--out <dir>',
    description: "where the arms' runs and compare.json go (default archive/compare-<timestamp>)",
    schema: z.string().min(1).optional(),
  },
  excludeDev: {
    flags: '--exclude-dev',
    description: 'search and test on the held-out histories only (not those of src/experiments/dev-subsets.ts)',
    schema: z.boolean().default(false),
  },
  strict: common.strict,
  json: { ...common.json, description: 'print the report as JSON' },
});

/** `memsteer compare`'s typed options. */
export type CompareCliOptions = OptionsOf<typeof COMPARE_OPTIONS>;

/** Typed options → runCompare's options (validated again by its zod schema). */
export function compareOptionsFromFlags(f: CompareCliOptions, out: string): CompareOptionsInput {
  const { history, supervision, iterations, control, moves, select, accept, offline, rngSeed, contextBudget, testCategories } = f;
  const opts: CompareOptionsInput = {
    history,
    supervision,
    out,
    iterations,
    control,
    moves,
    select,
    accept,
    offline,
    rngSeed,
    contextBudget,
    testCategories,
  };
  if (f.seed) opts.seed = resolve(f.seed);
  if (f.codeSeed) opts.codeSeed = resolve(f.codeSeed);
  if (f.objective) opts.objective = f.objective;
  if (f.maxProposals !== undefined) opts.maxProposals = f.maxProposals;
  if (f.budgetTokens !== undefined) opts.budgetTokens = f.budgetTokens;
  if (f.limit !== undefined) opts.limit = f.limit;
  if (f.jobs !== undefined) opts.jobs = f.jobs;
  if (f.queue !== undefined) opts.queue = f.queue;
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

/** Each arm's best design by content hash, and whether it is the same design as an earlier arm's. */
export function renderDesigns(report: CompareReport): string {
  const t = new Table({ head: ['arm', 'best design', 'content hash', 'same design as'], style: { head: [], border: [], compact: true } });
  for (const a of report.arms) t.push([a.arm, a.best.id, a.bestHash.slice(0, 12), a.sameDesignAs ?? '–']);
  return t.toString();
}

/** One line per paired-bootstrap difference. */
export function renderDifferences(report: CompareReport): string {
  return report.differences
    .map(
      (d) =>
        `${d.a} − ${d.b} on ${d.split === 'test' ? 'official QA (test)' : 'validation'}, ` +
        `${d.n} questions, ${report.objective} fitness: ` +
        `mean ${signed(d.mean)} pts, ${Math.round(d.level * 100)}% CI [${signed(d.lower)}, ${signed(d.upper)}] ` +
        `(paired bootstrap, ${d.resamples} resamples); ` +
        `${d.a} better in ${(d.pBetter * 100).toFixed(1)}% of resamples${d.lower > 0 || d.upper < 0 ? '' : ' — the interval includes 0'}`,
    )
    .join('\n');
}

/** Each seed's run (best designs, official scores, its own interval) and the pooled difference. */
export function renderSeedRuns(report: CompareSeedsReport): string {
  const t = new Table({
    head: ['RNG seed', 'code best', 'config best', 'same design', 'code R@10', 'config R@10', 'code − config', 'CI (questions)'],
    style: { head: [], border: [], compact: true },
  });
  for (const r of report.runs) {
    const arm = (name: string) => r.arms.find((a) => a.arm === name);
    const [code, config] = [arm('code'), arm('config')];
    const d = r.differences.find((x) => x.a === 'code' && x.b === 'config');
    t.push([
      String(r.rngSeed),
      code?.best.id ?? '–',
      config?.best.id ?? '–',
      config?.sameDesignAs ? 'yes' : 'no',
      pct(code?.best.test?.recallAt10 ?? code?.best.val.recallAt10),
      pct(config?.best.test?.recallAt10 ?? config?.best.val.recallAt10),
      d ? `${signed(d.mean)} pts` : '–',
      d ? `[${signed(d.lower)}, ${signed(d.upper)}]` : '–',
    ]);
  }
  return `${t.toString()}\n${report.pooled.map(pooledLine).join('\n')}`;
}

const pooledLine = (d: PooledDifference) =>
  `${d.a} − ${d.b} pooled over ${d.runs} RNG seeds on ${d.split === 'test' ? 'official QA (test)' : 'validation'}, ${d.n} questions: ` +
  `mean ${signed(d.mean)} pts, ${Math.round(d.level * 100)}% CI [${signed(d.lower)}, ${signed(d.upper)}] ` +
  `(bootstrap over seeds and questions, ${d.resamples} resamples); ${d.a} better in ${(d.pBetter * 100).toFixed(1)}% of resamples` +
  `${d.lower > 0 || d.upper < 0 ? '' : ' — the interval includes 0'}`;

/** What both forms of the command share: options checked, histories loaded, progress hooks on the terminal. */
async function prepare(input: OptionsInput<typeof COMPARE_OPTIONS>, io: CliIO) {
  const f = parseOptions(COMPARE_OPTIONS, input);
  const out = resolve(f.out ?? `archive/compare-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const options = compareOptionsFromFlags(f, out);
  checkPaths([...tablePathChecks(COMPARE_OPTIONS, f), { flag: '--out', value: out, role: 'out-dir' }]);
  for (const base of f.rngSeeds ? f.rngSeeds.map((s) => seedDir(out, s)) : [out]) {
    for (const arm of ArmName.options) {
      const dir = join(base, arm);
      if (existsSync(join(dir, 'manifest.json')))
        throw new InputError('E_ARCHIVE_EXISTS', `--out ${out}: ${dir} already holds a run; choose another --out`, { file: dir });
    }
  }
  // Loaded here so their warnings come before any work; runCompare reuses them.
  const loaded = await loadCommandHistories(f.history, io, { strict: f.strict, questions: f.supervision });
  const histories = f.excludeDev ? loaded.filter((h) => historySplit(h.id) === 'heldout') : loaded;
  if (histories.length === 0)
    throw new InputError(
      'E_NO_HISTORIES',
      `--history ${f.history}: every history is a development history (${loaded.map((h) => h.id).join(', ')}); ` +
        'drop --exclude-dev or pass held-out histories',
    );
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
  const queueLine = queueStatusLines();
  const onQueueStatus = (arm: ArmName, s: QueueStatus) => {
    const line = quiet ? null : queueLine(s);
    if (line) io.err(`${arm} ${line}\n`);
  };
  return { f, out, options, hooks: { onArm, onEvent, onQueueStatus, histories } };
}

/** `memsteer compare --rng-seeds 1,2,3`: one comparison per seed, then the pooled difference. */
export async function runCompareSeedsCommand(input: OptionsInput<typeof COMPARE_OPTIONS>, io: CliIO): Promise<CompareSeedsReport> {
  const { f, out, options, hooks } = await prepare(input, io);
  if (!f.rngSeeds) throw new InputError('E_BAD_OPTION', '--rng-seeds is required here: give two or more seeds, e.g. 1,2,3');
  const onSeed = (rngSeed: number, phase: 'start' | 'done') => {
    if (!f.json && phase === 'start') io.err(`══ RNG seed ${rngSeed} ══\n`);
  };
  const { rngSeed: _one, ...rest } = options;
  const report = await runCompareSeeds(rest, f.rngSeeds, { ...hooks, onSeed });
  if (f.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else {
    if (f.excludeDev) io.out(`held-out histories only (--exclude-dev): ${report.runs[0]!.histories.join(', ')}\n`);
    io.out(`${renderSeedRuns(report)}\ntotal ${(report.ms / 1000).toFixed(0)} s; report ${resolve(out, 'compare-seeds.json')}\n`);
  }
  return report;
}

export async function runCompareCommand(input: OptionsInput<typeof COMPARE_OPTIONS>, io: CliIO): Promise<CompareReport> {
  const { f, out, options, hooks } = await prepare(input, io);
  if (f.rngSeeds) throw new InputError('E_BAD_OPTION', '--rng-seeds runs several comparisons: use runCompareSeedsCommand');
  const report = await runCompare(options, hooks);
  if (f.json) {
    io.out(`${JSON.stringify(report, null, 2)}\n`);
    return report;
  }
  io.out(
    `compare: ${report.arms.map((a) => a.arm).join(' vs ')} from ${report.seed}` +
      `${report.codeSeed !== report.seed ? ` (code: ${report.codeSeed})` : ''}, ` +
      `${report.iterations} iterations each, objective ${report.objective}, acceptance ${report.accept}, RNG seed ${report.rngSeed}` +
      `${report.budgetTokens ? `, ≤ ${report.budgetTokens} LLM tokens each` : ''}` +
      `${report.maxProposals ? `, ≤ ${report.maxProposals} proposals each` : ''}\n`,
  );
  if (f.excludeDev) io.out(`held-out histories only (--exclude-dev): ${report.histories.join(', ')}\n`);
  io.out("validation fitness, best so far per iteration (cand. = that iteration's candidate, * accepted):\n");
  io.out(`${renderTrajectories(report)}\n`);
  io.out(`${renderFinalScores(report)}\n`);
  io.out(`${renderDesigns(report)}\n`);
  io.out(`${renderDifferences(report)}\n`);
  for (const a of report.arms) io.out(`${a.arm}: stopped (${a.stopReason}); run in ${a.dir}\n`);
  io.out(`total ${(report.ms / 1000).toFixed(0)} s; report ${resolve(out, 'compare.json')}\n`);
  return report;
}

export function register(program: Command, io: CliIO): void {
  const command = program
    .command('compare')
    .description(
      'Code search vs config search from the same seed, supervision, RNG seed and budget: ' +
        'trajectories, final scores and the paired bootstrap CI of the difference',
    );
  addOptions(command, COMPARE_OPTIONS).action(async (raw: Record<string, unknown>) => {
    if (raw.rngSeeds !== undefined) {
      if (command.getOptionValueSource('rngSeed') === 'cli')
        throw new InputError('E_BAD_OPTION', '--rng-seed and --rng-seeds: give one (--rng-seeds runs every seed it lists)');
      await runCompareSeedsCommand(raw, io);
    } else await runCompareCommand(raw, io);
  });
}
