import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { acquireRunLock, createArchive, openArchive, type Archive, type RunLock } from '../archive/index.ts';
import { sha256 } from '../archive/program-id.ts';
import type { ProgramRecord } from '../archive/schemas.ts';
import { compileDesign } from '../design/compile.ts';
import { diffSources } from '../design/diff.ts';
import { ConfigError, InputError } from '../errors.ts';
import { createEvalPool, type EvalPool } from '../evaluate/evaluate.ts';
import { unitShards } from '../evaluate/eval-shards.ts';
import type { QueueStatus } from '../pool/queue-pool.ts';
import { queueRunId } from '../pool/queue-wire.ts';
import type { EvalSummary } from '../scoring/summary.ts';
import { loadHistories } from '../history/load.ts';
import { QAItemSchema, type History, type QAItem } from '../history/record.ts';
import { openLlmClient } from '../llm/client.ts';
import type { LlmClient } from '../llm/types.ts';
import { readJsonl, writeJsonl } from '../util/jsonl.ts';
import { QuestionTraceSchema, traceForFile } from '../scoring/trace-schema.ts';
import { OFFICIAL_TRACES_DIR } from '../archive/schemas.ts';
import { searchSplitsOnly, type CandidateEvaluation, type QuestionSplit } from './candidate-evaluator.ts';
import {
  ContextBudget,
  count,
  DEFAULT_FEEDBACK,
  FeedbackMode,
  ItemLimit,
  Iterations,
  Jobs,
  LIMITS,
  Objective,
  OfflineMoves,
  StructuralShare,
  RngSeed,
  SearchSpace,
} from '../config/run-options.ts';
import { createRunEvaluator } from './pool-evaluator.ts';
import { addSpend, llmSpendEvent, recordedSpend, spendMeter, subSpend, ZERO_SPEND, type Spend, type SpendMeter } from './llm-spend.ts';
import { createLlmProposer, proposerPromptVersion } from './proposers/llm-proposer.ts';
import { createMutationProposer } from './proposers/offline-mutation.ts';
import { createMixedProposer } from './proposers/mixed-proposer.ts';
import { createStructuralProposer } from './proposers/structural-proposer.ts';
import { createCaseDrivenProposer } from './proposers/case-driven-proposer.ts';
import { createConfigMutationProposer } from './proposers/config-mutation.ts';
import { createLlmConfigProposer } from './proposers/llm-config-proposer.ts';
import { configSpaceCompile } from './config-space.ts';
import type { Proposer } from './proposers/types.ts';
import { runSearch, type SearchEvent } from './search-loop.ts';
import { seedCompileError } from './search-settle.ts';
import {
  acceptanceFromSpec,
  anyOf,
  dollarBudget,
  maxIterations,
  maxProposals,
  noImprovement,
  parentSelectorFromSpec,
  tokenBudget,
  wallTime,
} from './strategies/index.ts';
import type { AcceptanceRule, ParentSelector, StopCondition } from './strategies/types.ts';

/** The optimizer's configuration, as given on the command line; stored in the manifest so `--resume` needs nothing else. */
export const OptimizeConfigSchema = z.object({
  history: z.string(),
  supervision: z.string(),
  seed: z.string(),
  iterations: Iterations.default(20),
  objective: Objective.optional(),
  select: z.string().default('greedy'),
  accept: z.string().default('better'),
  offline: z.boolean().default(false),
  budgetTokens: count(LIMITS.tokens).optional(),
  budgetDollars: z.number().positive().max(LIMITS.dollars).optional(),
  maxProposals: Iterations.optional(),
  wallTimeSeconds: z.number().positive().max(LIMITS.wallTimeSeconds).optional(),
  patience: Iterations.optional(),
  contextBudget: ContextBudget,
  rngSeed: RngSeed,
  perCategory: count(LIMITS.perCategory).default(10),
  feedback: FeedbackMode.default(DEFAULT_FEEDBACK),
  repairs: z.number().int().nonnegative().default(2),
  control: z.boolean().default(false),
  /** Official QA categories for the final test (empty: all). */
  testCategories: z.array(z.string()).default([]),
  /** Limits the supervision used per split (for quick runs). */
  limit: ItemLimit,
  jobs: Jobs,
  /** What the proposer may change: the design's code, or only the config constants of seeds/configurable.ts. */
  space: SearchSpace.default('code'),
  /**
   * Offline code search: `case-driven` (reads the failure cases, mines and fits the training split; the default),
   * the `catalog` of building blocks chosen by the dominant failure category, `structural` moves (AST mutation,
   * crossover), or `mixed` (case-driven and structural).
   */
  moves: OfflineMoves.default('case-driven'),
  /** With `moves: mixed`: the share of proposals drawn from structural moves. */
  structuralShare: StructuralShare,
});
export type OptimizeConfig = z.infer<typeof OptimizeConfigSchema>;
export type OptimizeConfigInput = z.input<typeof OptimizeConfigSchema>;

/** A program's scores on one split, as reported. */
export interface SplitScores {
  fitness: number;
  n: number;
  recallAt10: number | null;
  contextRecall: number | null;
  accuracy: number;
  f1: number;
  locomoF1: number | null;
  summary: EvalSummary;
}

/** What an optimization run reports. */
export interface OptimizeReport {
  run: string;
  dir: string;
  objective: Objective;
  stopReason: string;
  /** One point per iteration: the candidate's validation score and whether it was accepted. */
  trajectory: Array<{
    iteration: number;
    program: string;
    parent: string | null;
    score: number | null;
    accepted: boolean;
    status: string;
    proposer: string;
    rationale: string;
  }>;
  seed: { id: string; val: SplitScores; test: SplitScores | null };
  best: { id: string; val: SplitScores; test: SplitScores | null };
  accepted: number;
  proposals: number;
  /** Unified diff of the best design against the seed. */
  diff: string;
  /**
   * Everything the LLM client billed for this run (all its processes): what programs booked, plus calls that failed,
   * judge and diagnosis calls, and the final official test. `breakdown` says which is which.
   */
  cost: {
    promptTokens: number;
    completionTokens: number;
    dollars: number;
    breakdown: { programs: Spend; unbooked: Spend; finalTest: Spend };
  };
  /**
   * True when the LLM budget ran out during the final official test: some answers or judgments were refused, so
   * the test scores are lower than the designs earned. Re-run the test with more budget before comparing them.
   */
  testBudgetExhausted: boolean;
}

export interface OptimizeOptions {
  /** Where the run is written (`archive/<run>`); with `resume` it is the run to continue. */
  out: string;
  resume?: boolean;
  config?: OptimizeConfigInput;
  onEvent?: (e: SearchEvent) => void;
  onProgress?: (split: QuestionSplit, done: number, total: number) => void;
  /** An LLM client; by default one is opened from the environment (none when offline). */
  llm?: LlmClient | null;
  /** Evaluate on `memsteer worker`s through this Redis queue (`redis://host:port[/db]`) instead of local processes. */
  queue?: string;
  /** With `queue`: its workers and queued groups, every second. */
  onQueueStatus?: (s: QueueStatus) => void;
  /** The histories of the config's (or resumed manifest's) `history`, when the caller has loaded them already. */
  histories?: History[];
}

/**
 * Runs (or resumes) a code search: loads the history and supervision, starts the sandbox pool, evolves the seed
 * design, then evaluates the seed and the best design once on the histories' official QA when there is any.
 */
export async function runOptimize(options: OptimizeOptions): Promise<OptimizeReport> {
  const dir = resolve(options.out);
  if (options.resume && !existsSync(join(dir, 'manifest.json')))
    throw new InputError('E_NO_RUN', `${options.out}: no run to resume here (no manifest.json)`, { file: dir });
  // One writer per run: a resume locks before it reads the run; a new run once its inputs are checked, before it
  // creates anything (so a refused command leaves no half-made run folder).
  let lock: RunLock | null = options.resume ? acquireRunLock(dir, { command: 'optimize --resume' }) : null;
  try {
    const resumed = options.resume ? openArchive(dir) : null;
    const config = OptimizeConfigSchema.parse(resumed ? resumed.manifest.config : (options.config ?? {}));
    const llm = config.offline ? null : options.llm !== undefined ? options.llm : openLlmClient();
    const objective: Objective = config.objective ?? (llm?.hasRole('answerer') ? 'accuracy' : 'evidence');
    const histories = options.histories ?? (await loadHistories(config.history));
    const splits = loadSplits(config.supervision, histories, config);
    const seedPath = resolve(config.seed);
    if (!existsSync(seedPath)) throw new InputError('E_NO_FILE', `${config.seed}: seed design not found`, { file: config.seed });
    const seedSource = readFileSync(seedPath, 'utf8');
    // Config search compiles through the config-space guard: a candidate may differ from the seed only in its knobs.
    const compile = config.space === 'config' ? configSpaceCompile(seedSource, (s) => compileDesign(s)) : (s: string) => compileDesign(s);
    // Built before the run folder exists: a bad spec must not leave a half-made run that blocks a corrected re-run.
    const select = parentSelectorFromSpec(config.select, { groupOf: questionGroups(splits) });
    const accept = acceptanceFromSpec(config.accept);
    let archive = resumed;
    if (!archive) {
      const seedCompiled = await compile(seedSource);
      if (!seedCompiled.ok) throw seedCompileError(config.seed, seedCompiled.diagnostics);
      lock = acquireRunLock(dir, { command: 'optimize' });
      archive = createRun(dir, config, objective, llm, seedSource);
    }
    return await searchThenTest({ options, dir, archive, config, llm, objective, histories, splits, seedSource, compile, select, accept });
  } finally {
    lock?.release();
  }
}

/** A new run's folder and manifest: the resolved config, the seed's hash, and the model of each role. */
function createRun(dir: string, config: OptimizeConfig, objective: Objective, llm: LlmClient | null, seedSource: string): Archive {
  return createArchive(dir, {
    config: { ...config, objective },
    seeds: [{ path: config.seed, sha256: sha256(seedSource) }],
    models: llm
      ? { proposer: modelName(llm, 'proposer'), answerer: modelName(llm, 'answerer'), judge: modelName(llm, 'judge') }
      : {
          proposer: config.space === 'config' ? 'offline-config-mutation' : offlineProposerName(config.moves),
          answerer: 'extractive-reader',
          judge: 'f1-threshold',
        },
    // The code-space LLM proposer's prompt, so a run says which prompt wrote its programs.
    promptVersions: config.space === 'code' && llm?.hasRole('proposer') ? { proposer: proposerPromptVersion() } : {},
    rngSeed: config.rngSeed,
  });
}

/** What a prepared run hands to the search and the final test. */
interface PreparedRun {
  options: OptimizeOptions;
  dir: string;
  archive: Archive;
  config: OptimizeConfig;
  llm: LlmClient | null;
  objective: Objective;
  histories: History[];
  splits: Record<QuestionSplit, QAItem[]>;
  seedSource: string;
  compile: (source: string) => ReturnType<typeof compileDesign>;
  select: ParentSelector;
  accept: AcceptanceRule;
}

/**
 * Whether one validation evaluation leaves a local pool process idle beyond the one the host needs for answering, so
 * a training evaluation can run beside it. Each history is one task (its dates replay in one pass, or it has one
 * group) or, with processes to spare and questions on more than one day, several shards of it (eval-shards.ts). The
 * host's core is kept free because on two cores (one pool process per core) a quick start with the prefetch took as
 * long (174 s against 175 s) for 35% more CPU time. A queue's workers take date groups one by one and are shared:
 * never.
 */
export function leavesProcessesIdle(pool: Pick<EvalPool, 'size' | 'timelines'>, val: readonly QAItem[]): boolean {
  if (!pool.timelines) return false;
  const perHistory = new Map<string, { questions: number; days: Set<string | undefined> }>();
  for (const q of val) {
    let h = perHistory.get(q.history);
    if (!h) perHistory.set(q.history, (h = { questions: 0, days: new Set() }));
    h.questions++;
    h.days.add(q.date);
  }
  // Only a history asked on more than one day is split (its days may still share one memory: then this errs towards
  // no prefetch, the behaviour on two cores anyway).
  const units = [...perHistory.values()].map((h) => ({ questions: h.questions, onePass: h.days.size > 1 }));
  const tasks = unitShards(units, pool.size).reduce((n, k) => n + k, 0);
  return tasks + 1 < pool.size;
}

/**
 * The search on train and val (it gets an evaluator without the test split), then, outside it, the seed and the best
 * design once on the histories' official QA; their scores go into the archive as `test-scores` events.
 */
async function searchThenTest(r: PreparedRun): Promise<OptimizeReport> {
  const { options, dir, archive, config, llm, objective, histories, splits } = r;
  const proposer: Proposer =
    config.space === 'config'
      ? llm?.hasRole('proposer')
        ? createLlmConfigProposer({ client: llm })
        : createConfigMutationProposer()
      : llm?.hasRole('proposer')
        ? createLlmProposer({ client: llm })
        : offlineCodeProposer(config.moves, config.structuralShare, r.compile);
  const onStatus = options.onQueueStatus ? { onStatus: options.onQueueStatus } : {};
  const queue = options.queue ? { queue: { url: options.queue, runId: queueRunId(dir), ...onStatus } } : {};
  const pool = createEvalPool({ ...(config.jobs ? { size: config.jobs } : {}), ...(llm ? { llm } : {}), ...queue });
  try {
    const evaluator = createRunEvaluator({
      histories,
      questions: splits,
      pool,
      llm,
      contextBudget: config.contextBudget,
      objective,
      runDir: dir,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    // A resumed run's --wall-time counts the time already spent: proposing and evaluating, as the programs recorded it.
    const elapsedBeforeMs = options.resume
      ? archive.list().reduce((ms, p) => ms + (p.cost.proposeMs ?? 0) + (p.cost.evaluateMs ?? 0), 0)
      : 0;
    // The client's ledger sees every billed token; programs book only their own share. The difference is kept.
    const meter = spendMeter(llm);
    const bookedBefore = archive.list().reduce<Spend>((s, p) => addSpend(s, p.cost), ZERO_SPEND);
    const earlierSpend = recordedSpend(archive);
    const billedBefore = meter.billed();
    const result = await runSearch({
      archive,
      evaluator: searchSplitsOnly(evaluator),
      elapsedBeforeMs,
      proposer,
      select: r.select,
      accept: r.accept,
      stop: stopCondition(config, meter),
      compile: r.compile,
      objective,
      seeds: [{ label: config.seed, source: r.seedSource }],
      records: histories,
      rngSeed: config.rngSeed,
      perCategory: config.perCategory,
      feedback: config.feedback,
      repairs: config.repairs,
      control: config.control,
      prefetchTraining: leavesProcessesIdle(pool, splits.val),
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    });

    const scoresFor = async (p: ProgramRecord, split: QuestionSplit): Promise<SplitScores | null> => {
      if (splits[split].length === 0) return null;
      const c = await compileDesign(archive.source(p.id));
      if (!c.ok) return null;
      const e = await evaluator.evaluate(c.program, split);
      // Official traces go beside the run so the report can break the test scores down by category.
      if (split === 'test') writeJsonl(join(dir, OFFICIAL_TRACES_DIR, `${p.id}.jsonl`), e.traces.map(traceForFile), QuestionTraceSchema);
      return splitScores(e);
    };
    // A dead endpoint: no final test against it. The run stops with the coded error and resumes like a killed one.
    const circuit = meter.circuitOpen();
    if (circuit) throw circuit;
    const billedAfterSearch = meter.billed();
    // The seed and the best are scored side by side: one history's evaluation keeps one pool process busy (its
    // dates replay in one pass), so the other would otherwise idle. A search that kept its seed scores it once.
    const both = async (split: QuestionSplit) => {
      const seed = scoresFor(result.seed, split);
      const best = result.best.id === result.seed.id ? seed : scoresFor(result.best, split);
      return Promise.all([seed, best]);
    };
    const [seedVal, bestVal] = (await both('val')) as [SplitScores, SplitScores];
    const refusedBeforeOfficial = meter.refusals();
    const [seedTest, bestTest] = await both('test');
    const testBudgetExhausted = meter.refusals() > refusedBeforeOfficial;
    for (const [p, t] of [
      [result.seed, seedTest],
      [result.best, bestTest],
    ] as const) {
      if (t)
        archive.recordTestScores({
          program: p.id,
          value: t.fitness,
          n: t.n,
          metrics: testMetrics(t),
          ...(testBudgetExhausted ? { budgetExhausted: true } : {}),
        });
    }
    const state = result.state;
    const billedAtEnd = meter.billed();
    const programs = { promptTokens: state.cost.promptTokens, completionTokens: state.cost.completionTokens, dollars: state.cost.dollars };
    let unbooked = ZERO_SPEND;
    let finalTest = ZERO_SPEND;
    if (billedBefore && billedAfterSearch && billedAtEnd) {
      // billed during the search, less what this process's programs booked
      unbooked = subSpend(subSpend(billedAfterSearch, billedBefore), subSpend(programs, bookedBefore));
      // the final val re-scores and official tests are booked to no program
      finalTest = subSpend(billedAtEnd, billedAfterSearch);
      archive.appendEvent(llmSpendEvent({ unbooked, finalTest }));
    }
    const breakdown = {
      programs,
      unbooked: addSpend(earlierSpend.unbooked, unbooked),
      finalTest: addSpend(earlierSpend.finalTest, finalTest),
    };
    const total = addSpend(programs, addSpend(breakdown.unbooked, breakdown.finalTest));
    return {
      run: archive.manifest.run,
      dir,
      objective,
      stopReason: result.stopReason,
      trajectory: state.programs
        .filter((p) => p.kind !== 'seed')
        .map((p) => ({
          iteration: p.iteration,
          program: p.id,
          parent: p.parent,
          score: p.scores?.value ?? null,
          accepted: p.status === 'accepted',
          status: p.status,
          proposer: p.proposer ?? '',
          rationale: p.rationale ?? '',
        })),
      seed: { id: result.seed.id, val: seedVal, test: seedTest },
      best: { id: result.best.id, val: bestVal, test: bestTest },
      accepted: state.accepted.length - state.seeds.length,
      proposals: state.proposals,
      diff: diffSources(archive.source(result.seed.id), archive.source(result.best.id), {
        from: `seed (${basename(config.seed)})`,
        to: `best (${result.best.id})`,
      }),
      cost: { ...total, breakdown },
      testBudgetExhausted,
    };
  } finally {
    await pool.close();
  }
}

/** The manifest's name of the offline code proposer. */
function offlineProposerName(moves: OfflineMoves): string {
  if (moves === 'catalog') return 'offline-mutation';
  if (moves === 'case-driven') return 'case-driven';
  return `offline-${moves}`;
}

/**
 * The offline code proposer for `--moves`. Structural moves are type-checked with the run's compiler before they are
 * proposed; the mix draws structural moves with probability `share` and case-driven moves otherwise, each falling
 * back on the other when spent.
 */
function offlineCodeProposer(moves: OfflineMoves, share: number, compile: PreparedRun['compile']): Proposer {
  if (moves === 'catalog') return createMutationProposer();
  if (moves === 'case-driven') return createCaseDrivenProposer();
  const structural = createStructuralProposer({ check: async (source) => (await compile(source)).ok });
  if (moves === 'structural') return structural;
  return createMixedProposer([
    { proposer: createCaseDrivenProposer(), weight: 1 - share },
    { proposer: structural, weight: share },
  ]);
}

/** The behaviour group of each supervision question (`<history>/<id>` → its category or generated type). */
function questionGroups(splits: Record<QuestionSplit, QAItem[]>): (key: string) => string | undefined {
  const groups = new Map<string, string>();
  for (const q of [...splits.train, ...splits.val]) groups.set(`${q.history}/${q.id}`, q.category ?? q.answerType);
  return (key) => groups.get(key);
}

function modelName(llm: LlmClient, role: 'proposer' | 'answerer' | 'judge'): string {
  const m = (llm as { modelFor?: (r: string) => string | undefined }).modelFor?.(role);
  return llm.hasRole(role) ? (m ?? 'configured') : 'offline';
}

/** Train/val from a supervision file (by each item's split, at most `limit` each), test from the histories' official QA. */
export function loadSplits(
  supervision: string,
  histories: readonly History[],
  options: { limit?: number | undefined; testCategories: readonly string[] },
): Record<QuestionSplit, QAItem[]> {
  const ids = new Set(histories.map((h) => h.id));
  const items = readJsonl(resolve(supervision), QAItemSchema).filter((q) => ids.has(q.history));
  const cut = (xs: QAItem[]) => (options.limit ? xs.slice(0, options.limit) : xs);
  const train = cut(items.filter((q) => q.split === 'train'));
  const val = cut(items.filter((q) => q.split === 'val'));
  if (train.length === 0 || val.length === 0) {
    throw new InputError(
      'E_NO_SPLIT',
      `${supervision}: needs items with split "train" and "val" about the loaded histories ` +
        `(found ${train.length} train, ${val.length} val); generate them with memsteer generate`,
      { file: supervision },
    );
  }
  const keep = new Set(options.testCategories);
  const test = histories.flatMap((h) => h.qa).filter((q) => keep.size === 0 || (q.category !== undefined && keep.has(q.category)));
  return { train, val, test };
}

function stopCondition(config: OptimizeConfig, meter: SpendMeter): StopCondition {
  const conditions: StopCondition[] = [maxIterations(config.iterations)];
  // LLM calls keep failing the same way: further iterations would only record failures.
  conditions.push({ name: 'llm-circuit', check: () => (meter.circuitOpen() ? 'the LLM circuit breaker opened' : null) });
  if (config.maxProposals) conditions.push(maxProposals(config.maxProposals));
  if (config.budgetTokens) conditions.push(tokenBudget(config.budgetTokens));
  if (config.budgetDollars) conditions.push(dollarBudget(config.budgetDollars));
  if (config.wallTimeSeconds) conditions.push(wallTime(config.wallTimeSeconds * 1000));
  if (config.patience) conditions.push(noImprovement(config.patience));
  if (conditions.length === 0) throw new ConfigError('E_NO_STOP', 'no stopping condition');
  return anyOf(...conditions);
}

function splitScores(e: CandidateEvaluation): SplitScores {
  const s = e.summary;
  return {
    fitness: e.fitness,
    n: s.n,
    recallAt10: s.withEvidence ? (s.recallAt['10'] ?? null) : null,
    contextRecall: s.contextRecall,
    accuracy: s.accuracy,
    f1: s.f1,
    locomoF1: s.locomo?.categories1to4 ?? s.locomoF1,
    summary: s,
  };
}

function testMetrics(s: SplitScores): Record<string, number> {
  const out: Record<string, number> = { accuracy: s.accuracy, f1: s.f1 };
  if (s.recallAt10 !== null) out['recall@10'] = s.recallAt10;
  if (s.contextRecall !== null) out.contextRecall = s.contextRecall;
  if (s.locomoF1 !== null) out.locomoF1 = s.locomoF1;
  return out;
}
