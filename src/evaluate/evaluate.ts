/**
 * Runs a compiled memory design over histories and a question set, and scores it.
 *
 * How a run goes:
 * 1. Questions are grouped per history by the records they may see (see the date protocol below). Each group
 *    is one pool task: a fresh isolate `store`s that group's records, then `retrieve` + `context` run for each
 *    of its questions. The program and each history's records are sent once per child process (by hash), and
 *    tasks go preferably to the process that already holds their history.
 * 2. On the host, as groups finish, the fixed answerer reads each context and the answer is scored
 *    (correctness, F1, LoCoMo F1, evidence recall@k, context recall). Cost is summed over the run.
 *
 * Question-date protocol (RHELM's): when a question has a `date`, no record dated after that date can reach its
 * context, and the host enforces it, not the design. Each history with more than one date group is replayed once
 * in time order, in one task (eval-timeline.ts): the memory holds only the records dated on or before the group's
 * date (a date-only question date includes that whole day; records without a time are always kept) when that
 * date's questions run. A design with the optional `add` stage grows one memory through the pass; one without it
 * gets a fresh isolate and `store` per date, as before. Dates with no new record between them share one memory.
 * Questions without a date share one memory over all records. `replay: 'groups'` sends each group as its own task
 * (memory rebuilt per date for every design), the protocol before one-pass replay. When there are fewer such tasks
 * than pool processes, a history's one pass is split across several tasks that each build the same memory
 * (eval-shards.ts), so one history does not leave the other processes idle.
 *
 * Failures: a design that fails in `store` (or cannot load) fails every question of that group with that
 * reason; a failure in `retrieve` or `context` fails that question only; a crashed sandbox process fails the
 * group it was running (kind `crash`, with exit code / signal / stderr) and the pool replaces it. The run
 * always goes on and always returns a trace per question.
 */
import { createHash } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import type { Budget, Question, SourceRecord } from '../../sandbox/contract.ts';
import { InputError } from '../errors.ts';
import type { History, QAItem } from '../history/record.ts';
import type { LlmClient } from '../llm/types.ts';
import { groupByVisibleRecords } from './date-filter.ts';
import { SHARD_MIN_QUESTIONS, shardGroups, unitShards } from './eval-shards.ts';
import { evalCacheKey, historyContentHash, questionSetHash, readEvalCache, writeEvalCache } from './eval-cache.ts';
import { emptyGroupResult, failedRun, type GroupResult, type GroupTask, type QuestionRun } from './eval-group.ts';
import type { GroupSink, TimelineTask } from './eval-timeline.ts';
import {
  HOST_CALL_EMBED,
  HOST_CALL_GROUP_DONE,
  HOST_CALL_LLM,
  type GroupDoneArgs,
  type LlmCallArgs,
  type LlmCallReply,
} from './eval-worker.ts';
import { createPool, PoolTaskError, type PoolOptions, type ProcessPool } from '../pool/pool.ts';
import { createQueuePool, type QueuePoolOptions } from '../pool/queue-pool.ts';
import {
  DEFAULT_SANDBOX_LIMITS,
  type LlmCompleter,
  type CompiledProgram,
  type HostToolsOptions,
  type RemoteEmbedder,
  type SandboxLimits,
  type StageFailure,
} from '../isolate/sandbox-api.ts';
import type { QuestionScores, QuestionTrace } from '../scoring/trace.ts';
import { traceForFile } from '../scoring/trace-schema.ts';
import { MARGINAL_TIERS, marginalAnswerScore, marginalUtility } from '../scoring/marginal-utility.ts';
import { spanAwareDelivered } from '../scoring/evidence-spans.ts';

// ───────────────────────────── the pool evaluation runs on ─────────────────────────────

/** A process pool loaded with the evaluation handlers, and what it can bridge to its children. */
export interface EvalPool extends ProcessPool {
  readonly bridge: GroupTask['bridge'];
  /**
   * Whether the pool runs a history's date groups as one pass (local processes do); a queue's workers take date
   * groups one by one, so dated histories on a queue are rebuilt per date.
   */
  readonly timelines: boolean;
}

export interface EvalPoolOptions extends Omit<PoolOptions, 'module' | 'hostCalls'> {
  /** Offered to designs as `tools.llm` (role `design`); absent → offline (`tools.llm.available` false). */
  llm?: LlmClient;
  /** Remote embeddings for `tools.embed`; absent → the local deterministic embedding. */
  embedder?: RemoteEmbedder;
  /**
   * Run groups on `memsteer worker`s through this Redis queue instead of local child processes. The workers
   * bridge `tools.llm` and `tools.embed` to their own configured models, not to `llm`/`embedder` here.
   */
  queue?: Pick<QueuePoolOptions, 'url' | 'runId' | 'downAfterMs' | 'onStatus'>;
}

const EVAL_WORKER = new URL('./eval-worker.ts', import.meta.url);

/** Per running timeline (by token), where its child's group reports go. */
const timelineSinks = new Map<string, GroupSink>();

/** A design's `tools.llm` over the LLM client (role `design`); undefined when no model has that role. */
export function designCompleter(llm: LlmClient): LlmCompleter | undefined {
  if (!llm.hasRole('design')) return undefined;
  return async (messages, o) => {
    const r = await llm.complete({
      role: 'design',
      messages,
      ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    });
    return { text: r.text, promptTokens: r.usage.promptTokens, completionTokens: r.usage.completionTokens };
  };
}

/**
 * Starts the sandbox process pool for evaluation. The LLM client and a remote embedder stay in this process;
 * children reach them through the pool's host calls. Close it when done.
 */
export function createEvalPool(options: EvalPoolOptions = {}): EvalPool {
  const { llm, embedder, queue, ...local } = options;
  const bridge: GroupTask['bridge'] = {
    llm: Boolean(llm?.hasRole('design')),
    embedder: embedder ? { model: embedder.model, dim: embedder.dim } : null,
  };
  // A queue's workers are other processes with their own clients: the host calls below serve only local children.
  if (queue) return Object.assign(createQueuePool(queue), { bridge, timelines: false });
  const hostCalls: NonNullable<PoolOptions['hostCalls']> = {};
  const complete = llm ? designCompleter(llm) : undefined;
  if (complete) hostCalls[HOST_CALL_LLM] = ({ messages, options: o }: LlmCallArgs): Promise<LlmCallReply> => complete(messages, o);
  if (embedder) hostCalls[HOST_CALL_EMBED] = (texts: string[]) => embedder.embed(texts);
  hostCalls[HOST_CALL_GROUP_DONE] = ({ token, index, result }: GroupDoneArgs) => timelineSinks.get(token)?.(index, result);
  return Object.assign(createPool({ ...local, module: EVAL_WORKER, hostCalls }), { bridge, timelines: true });
}

// ───────────────────────────── answering and scoring (injected) ─────────────────────────────

/**
 * The fixed answerer as evaluation uses it (src/scoring/answerer.ts provides the real ones). It is handed the
 * question's text and date only, never the QA item: nothing derived from the gold answer (its answer type
 * included) reaches it.
 */
export interface EvalAnswerer {
  /** Identifies the answerer and its prompt/model in cache keys. */
  readonly id: string;
  answer(
    question: Pick<QAItem, 'question' | 'date'>,
    context: string,
  ): Promise<{ answer: string; promptTokens?: number; completionTokens?: number }>;
}

/** Scores one question from its trace (src/scoring/score.ts provides it). */
export type EvalScorer = (item: QAItem, trace: QuestionTrace, options: { ks: number[] }) => Promise<QuestionScores> | QuestionScores;

/** Aggregates traces (src/scoring/summary.ts provides it). */
export type EvalSummarizer<S> = (traces: QuestionTrace[]) => S;

// ───────────────────────────── evaluateProgram ─────────────────────────────

export interface EvalProgress {
  done: number;
  total: number;
  failed: number;
  /** Memory builds finished / planned. */
  groupsDone: number;
  groups: number;
  history: string;
}

/**
 * Runs the date groups of one history in one pass somewhere, reporting each group's result to `onGroup` as it is
 * done; the default sends it to the pool. It may reject with a PoolTaskError: groups not reported by then fail.
 */
export type TimelineRunner = (
  task: TimelineTask,
  program: CompiledProgram,
  records: readonly SourceRecord[],
  historyHash: string,
  onGroup: GroupSink,
) => Promise<void>;

/** Runs one group somewhere; the default sends it to the pool. Benchmarks swap in an in-process runner. */
export type GroupRunner = (
  task: GroupTask,
  program: CompiledProgram,
  records: readonly SourceRecord[],
  historyHash: string,
) => Promise<GroupResult>;

export interface EvaluateOptions<S> {
  program: CompiledProgram;
  histories: readonly History[];
  questions: readonly QAItem[];
  budget: Budget;
  answerer: EvalAnswerer;
  score: EvalScorer;
  summarize: EvalSummarizer<S>;
  /** Id of the judge inside `score` (cache key only; e.g. `f1>=0.5` or `llm:<model>`). */
  judgeId?: string;
  pool: EvalPool;
  /** Recall cut-offs (default [1, 5, 10]). */
  ks?: number[];
  onProgress?: (p: EvalProgress) => void;
  /** Directory of the on-disk result cache; absent → no caching. */
  cacheDir?: string;
  limits?: Partial<SandboxLimits>;
  toolOptions?: GroupTask['toolOptions'];
  /** Concurrent answerer calls (default 8; matters for an LLM answerer). */
  answerConcurrency?: number;
  /** Replaces the pool for single groups (benchmarks, tests). Alone, it also makes every group a task of its own. */
  runner?: GroupRunner;
  /**
   * Also score MemSifter's marginal utility (src/scoring/marginal-utility.ts) into `scores.marginalUtility`: the host
   * answers again with no memory and with the top k delivered units for each tier. Costs tiers + 1 answers a question.
   */
  marginal?: { tiers?: readonly number[] };
  /** Replaces the pool for one-pass timelines (benchmarks, tests). */
  timelineRunner?: TimelineRunner;
  /**
   * How dated questions of a history are run: `timeline` (default) replays the history once in time order, growing
   * memory with the design's `add` when it has one; `groups` sends each date group as its own task.
   */
  replay?: 'timeline' | 'groups';
  /**
   * Pool tasks each history's questions are split across (eval-shards.ts). Default: a history replayed in one pass
   * (questions on more than one day), when there are fewer histories than local pool processes, gets enough to fill
   * the idle ones, at most one per {@link SHARD_MIN_QUESTIONS} questions; a history with one date group, and a queue's
   * workers, are not split. Traces are the same for any count unless a design's `retrieve` or `context` changes its
   * memory.
   */
  shards?: number;
}

export interface EvaluationStats {
  /** Wall-clock ms of the whole call. */
  ms: number;
  groups: number;
  /** Groups that failed as a whole (load/store failure or a crashed process). */
  failedGroups: number;
  crashes: number;
  questions: number;
  failedQuestions: number;
  /** LLM tokens over the run: the designs' own calls plus the answerer. */
  llmTokens: { prompt: number; completion: number };
  /** Ms summed over groups: isolate creation, store, retrieve+context, answering+scoring. */
  phaseMs: { create: number; store: number; retrieve: number; context: number; answer: number };
  bm25CacheHits: number;
}

/**
 * Whether a gold evidence record is recoverable from the memory the design built for that question (its history
 * and date group): some unit names it as a source. Matches src/diagnose's `Provenance` function form.
 */
export type RecoverableFn = (history: string, record: string, item: QAItem) => boolean;

export interface EvaluationResult<S> {
  traces: QuestionTrace[];
  summary: S;
  /** Per question id, its gold evidence records found among the memory's sources (storage vs retrieval failures). */
  recoverable: Record<string, string[]>;
  /** {@link recoverable} as a predicate, for diagnosis. */
  provenance: RecoverableFn;
  /** True when the traces came from the on-disk cache. */
  cached: boolean;
  cacheKey: string;
  stats: EvaluationStats;
}

const RANK_CAP = 50;
/** Deadline per date group of a one-pass timeline task (the pool's default per task). */
const TIMELINE_GROUP_MS = 10 * 60_000;

/** The key a program's blob travels under to the pool's children (sent once per child). */
const programKeyOf = (program: CompiledProgram): string => `program:${program.hash}`;

/** The runner of one-pass replays: the option's, else the pool's (local pools only); null sends every group alone. */
function timelineRunnerFor(
  options: Pick<EvaluateOptions<unknown>, 'timelineRunner' | 'runner' | 'pool' | 'program'>,
): TimelineRunner | null {
  if (options.timelineRunner) return options.timelineRunner;
  if (options.runner || !options.pool.timelines) return null;
  const programKey = programKeyOf(options.program);
  return async (task, program, records, _historyHash, onGroup) => {
    timelineSinks.set(task.token, onGroup);
    try {
      await options.pool.run({
        handler: 'evalTimeline',
        payload: task,
        // A pass does the work of all its groups: it gets the time each would have had as a task of its own.
        timeoutMs: task.groups.length * TIMELINE_GROUP_MS,
        blobs: [
          { key: programKey, data: () => program },
          { key: task.groups[0]!.recordsKey, data: () => records },
        ],
      });
    } finally {
      timelineSinks.delete(task.token);
    }
  };
}

/** Evaluates `program` on `questions` over `histories`. See the module comment for the protocol. */
export async function evaluateProgram<S>(options: EvaluateOptions<S>): Promise<EvaluationResult<S>> {
  const t0 = performance.now();
  const ks = options.ks ?? [1, 5, 10];
  const limits: Partial<SandboxLimits> = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
  const marginalTiers = options.marginal ? (options.marginal.tiers ?? MARGINAL_TIERS) : undefined;
  const byId = new Map(options.histories.map((h) => [h.id, h]));
  const itemsByHistory = new Map<string, QAItem[]>();
  for (const q of options.questions) {
    if (!byId.has(q.history)) {
      throw new InputError(
        'E_UNKNOWN_HISTORY',
        `question ${q.id} is about history '${q.history}', which is not loaded ` +
          `(loaded: ${[...byId.keys()].slice(0, 5).join(', ')}${byId.size > 5 ? ', …' : ''}); load that history or drop the question`,
      );
    }
    let list = itemsByHistory.get(q.history);
    if (!list) itemsByHistory.set(q.history, (list = []));
    list.push(q);
  }
  const usedHistories = [...itemsByHistory.keys()].map((id) => byId.get(id)!);
  const replay = options.replay ?? 'timeline';
  const timelineRunner = timelineRunnerFor(options);
  // The units of work: a history replayed in one pass, or one date group. Each may be split into shards
  // (eval-shards.ts); the counts are part of the cache key, since a design that changes its memory in `retrieve`
  // sees only its own shard's changes.
  const units = usedHistories.flatMap((history) => {
    const groups = groupByVisibleRecords(history.records, itemsByHistory.get(history.id)!);
    const timeline = replay === 'timeline' && timelineRunner !== null && groups.length > 1;
    return (timeline ? [groups] : groups.map((g) => [g])).map((g) => ({ history, groups: g, timeline }));
  });
  // By default only one-pass replays are split (a queue pool has none): a single group split in two builds its memory
  // twice to share only its questions, which was slower on a LoCoMo conversation (eval-shards.ts).
  const shards = unitShards(
    units.map((u) => ({ questions: u.groups.reduce((n, g) => n + g.questions.length, 0), onePass: u.timeline })),
    options.pool.size,
    options.shards,
  );
  const cacheKey = evalCacheKey({
    programHash: options.program.hash,
    historyHashes: usedHistories.map(historyContentHash),
    questionsHash: questionSetHash(options.questions),
    answererId: options.answerer.id,
    judgeId: options.judgeId ?? 'default',
    budgetTokens: options.budget.tokens,
    ks,
    limits: {
      ...limits,
      bridge: options.pool.bridge,
      toolOptions: options.toolOptions ?? {},
      replay,
      ...(shards.some((k) => k > 1) ? { shards } : {}),
    },
    ...(marginalTiers ? { marginalTiers: [...marginalTiers] } : {}),
  });
  const stats: EvaluationStats = {
    ms: 0,
    groups: 0,
    failedGroups: 0,
    crashes: 0,
    questions: options.questions.length,
    failedQuestions: 0,
    llmTokens: { prompt: 0, completion: 0 },
    phaseMs: { create: 0, store: 0, retrieve: 0, context: 0, answer: 0 },
    bm25CacheHits: 0,
  };

  if (options.cacheDir) {
    const hit = readEvalCache(options.cacheDir, cacheKey);
    if (hit && hit.traces.length === options.questions.length) {
      for (const t of hit.traces) addTokens(stats.llmTokens, t.llmTokens);
      stats.failedQuestions = hit.traces.filter((t) => t.error).length;
      stats.ms = performance.now() - t0;
      return {
        traces: hit.traces,
        summary: options.summarize(hit.traces),
        recoverable: hit.recoverable,
        provenance: provenanceOf(hit.recoverable),
        cached: true,
        cacheKey,
        stats,
      };
    }
  }

  const programKey = programKeyOf(options.program);
  const runner: GroupRunner =
    options.runner ??
    ((task, program, records, historyHash) =>
      options.pool.run<GroupResult>({
        handler: 'evalGroup',
        payload: task,
        blobs: [
          { key: programKey, data: () => program },
          { key: task.recordsKey, data: () => records },
        ],
      }));

  // Plan every group first so progress knows the total.
  interface Planned {
    history: History;
    historyHash: string;
    task: GroupTask;
    items: QAItem[];
    visible: number;
  }
  const planned: Planned[] = [];
  const opaque = opaqueIds(options.questions, cacheKey);
  /** Histories (or shards of one) replayed in one pass: their planned groups in time order. */
  const timelines: Planned[][] = [];
  const plan = (history: History, cutoff: number | null, visible: number, items: QAItem[]): Planned => {
    const historyHash = historyContentHash(history);
    return {
      history,
      historyHash,
      items,
      visible,
      task: {
        programKey,
        recordsKey: `records:${historyHash}`,
        history: history.id,
        cutoff,
        questions: items.map((q) => toQuestion(q, opaque.get(q)!)),
        gold: Object.fromEntries(items.map((q) => [opaque.get(q)!, [...new Set(q.evidence.map((e) => e.record))]])),
        budget: options.budget,
        limits,
        bridge: options.pool.bridge,
        toolOptions: options.toolOptions ?? {},
        rankCap: RANK_CAP,
        recordCap: Math.max(100, ...ks),
        ...(marginalTiers ? { marginalUnits: Math.max(...marginalTiers) } : {}),
      },
    };
  };
  for (const [u, unit] of units.entries()) {
    const own = unit.groups.map((g) => plan(unit.history, g.cutoff, g.visible, g.questions));
    for (const shard of shardGroups<QAItem, Planned>(
      own,
      shards[u]!,
      (p) => p.visible,
      (p, items) => plan(p.history, p.task.cutoff, p.visible, items),
    )) {
      if (unit.timeline && shard.length > 1) timelines.push(shard);
      else planned.push(...shard);
    }
  }
  // Memory builds that answer something: a shard's group left without questions only carries records forward.
  stats.groups = [...planned, ...timelines.flat()].filter((p) => p.items.length > 0).length;
  // Longest first: with a handful of groups per process, a big group started last would leave the other
  // processes idle at the end. Cost ≈ index build (per record) + per-question work (~20 records' worth).
  const cost = (p: Planned) => p.task.questions.length * 20 + p.visible;
  planned.sort((a, b) => cost(b) - cost(a));

  const traceById = new Map<string, QuestionTrace>();
  const recoverable: Record<string, string[]> = {};
  const progress: EvalProgress = {
    done: 0,
    total: options.questions.length,
    failed: 0,
    groupsDone: 0,
    groups: stats.groups,
    history: '',
  };
  const answerSlots = semaphore(options.answerConcurrency ?? 8);

  const runPlanned = async (p: Planned): Promise<void> => {
    let result: GroupResult;
    try {
      result = await runner(p.task, options.program, p.history.records, p.historyHash);
    } catch (err) {
      if (!(err instanceof PoolTaskError)) throw err;
      if (err.kind === 'crash') stats.crashes++;
      result = crashedGroup(p.task, poolFailure(err));
    }
    await finishGroup(p, result);
  };

  // One pass over a history: groups are answered as their reports arrive; a crash fails only the unreported ones.
  const runTimelinePlanned = async (groups: Planned[]): Promise<void> => {
    const first = groups[0]!;
    const reported = new Set<number>();
    const finishing: Array<Promise<void>> = [];
    const sink: GroupSink = (index, result) => {
      const p = groups[index];
      if (!p || reported.has(index)) return;
      reported.add(index);
      finishing.push(finishGroup(p, result));
    };
    const task: TimelineTask = { token: randomUUID(), groups: groups.map((p) => p.task) };
    let lost: StageFailure = { stage: 'store', kind: 'crash', message: 'the one-pass replay returned no result for this date group' };
    try {
      await timelineRunner!(task, options.program, first.history.records, first.historyHash, sink);
    } catch (err) {
      if (!(err instanceof PoolTaskError)) throw err;
      if (err.kind === 'crash') stats.crashes++;
      const f = poolFailure(err);
      lost = {
        ...f,
        message: `${f.message} (the one-pass replay of ${first.history.id} had finished ${reported.size} of ${groups.length} date groups)`,
      };
    }
    groups.forEach((p, i) => sink(i, crashedGroup(p.task, lost)));
    await Promise.all(finishing);
  };

  const finishGroup = async (p: Planned, result: GroupResult): Promise<void> => {
    stats.phaseMs.create += result.createMs;
    stats.phaseMs.store += result.storeMs;
    stats.bm25CacheHits += result.bm25CacheHits;
    addTokens(stats.llmTokens, result.store.llmTokens);
    if (p.items.length === 0) return;
    if (result.failure) stats.failedGroups++;
    const runs = new Map(result.questions.map((r) => [r.id, r]));
    const storeShare = p.items.length ? result.storeMs / p.items.length : 0;
    await Promise.all(
      p.items.map(async (item) => {
        const run = runs.get(opaque.get(item)!);
        recoverable[item.id] = result.failure ? [] : (run?.recoverable ?? []);
        const failure =
          result.failure ??
          run?.failure ??
          (run
            ? undefined
            : { stage: 'retrieve' as const, kind: 'crash' as const, message: 'the sandbox returned no result for this question' });
        const trace = await answerAndScore(item, run, failure, storeShare, options, ks, answerSlots);
        stats.phaseMs.retrieve += trace.timeMs.retrieve;
        stats.phaseMs.context += trace.timeMs.context;
        stats.phaseMs.answer += trace.timeMs.answer;
        addTokens(stats.llmTokens, trace.llmTokens);
        if (trace.error) {
          stats.failedQuestions++;
          progress.failed++;
        }
        traceById.set(item.id, trace);
        progress.done++;
        progress.history = p.history.id;
        options.onProgress?.({ ...progress });
      }),
    );
    progress.groupsDone++;
    options.onProgress?.({ ...progress });
  };

  // Every group and timeline is queued at once; the pool runs `size` of them at a time and answers overlap with
  // sandboxes. Timelines (a whole history each) go first: they are the longest tasks.
  timelines.sort((a, b) => b.reduce((n, p) => n + cost(p), 0) - a.reduce((n, p) => n + cost(p), 0));
  await Promise.all([...timelines.map(runTimelinePlanned), ...planned.map(runPlanned)]);

  const traces = options.questions.map((q) => traceById.get(q.id)!);
  if (options.cacheDir) writeEvalCache(options.cacheDir, cacheKey, traces.map(traceForFile), recoverable);
  stats.ms = performance.now() - t0;
  return { traces, summary: options.summarize(traces), recoverable, provenance: provenanceOf(recoverable), cached: false, cacheKey, stats };
}

function provenanceOf(recoverable: Record<string, string[]>): RecoverableFn {
  const sets = new Map(Object.entries(recoverable).map(([id, records]) => [id, new Set(records)]));
  return (_history, record, item) => sets.get(item.id)?.has(record) ?? false;
}

/** The question as the design sees it: text, date, and an opaque id that says nothing about where it came from. */
function toQuestion(q: QAItem, id: string): Question {
  return q.date ? { id, text: q.question, date: q.date } : { id, text: q.question };
}

/**
 * Per-evaluation question ids for the isolate. Official ids (`conv-26:q12`) look nothing like generated ones, so a
 * design that saw them could behave differently on test questions; these are keyed hashes of the history and id
 * (keyed by the evaluation's cache key, which the design cannot know), and the host maps results back.
 */
function opaqueIds(items: readonly QAItem[], key: string): Map<QAItem, string> {
  const out = new Map<QAItem, string>();
  const taken = new Set<string>();
  for (const item of items) {
    let id = `q-${createHash('sha256').update(`${key}\u0000${item.history}\u0000${item.id}`).digest('hex').slice(0, 16)}`;
    for (let n = 2; taken.has(id); n++) id = `${id.split('~')[0]}~${n}`;
    taken.add(id);
    out.set(item, id);
  }
  return out;
}

async function answerAndScore<S>(
  item: QAItem,
  run: QuestionRun | undefined,
  failure: StageFailure | undefined,
  storeShare: number,
  options: EvaluateOptions<S>,
  ks: number[],
  slots: <T>(fn: () => Promise<T>) => Promise<T>,
): Promise<QuestionTrace> {
  const trace: QuestionTrace = {
    question: item.id,
    history: item.history,
    ...(item.category !== undefined ? { category: item.category } : {}),
    ranked: run?.ranked ?? [],
    rankedRecords: run?.rankedRecords ?? [],
    budgetRecords: run?.budgetRecords ?? [],
    delivered: run?.delivered ?? [],
    deliveredRecords: run?.deliveredRecords ?? [],
    creditedRecords: run?.context ? spanAwareDelivered(run.context.text, item.evidence, run.deliveredRecords) : [],
    unverifiedSources: run?.unverifiedSources ?? 0,
    contextTokens: run?.context?.tokens ?? 0,
    contextText: run?.context?.text ?? '',
    answer: null,
    reference: item.answer,
    scores: null,
    timeMs: { store: storeShare, retrieve: run?.timeMs.retrieve ?? 0, context: run?.timeMs.context ?? 0, answer: 0 },
    toolCalls: run?.toolCalls ?? {},
    ...(run?.log.length ? { log: run.log } : {}),
    llmTokens: { prompt: run?.llmTokens.prompt ?? 0, completion: run?.llmTokens.completion ?? 0 },
  };
  if (failure) trace.error = failure;
  // Time is taken inside the slot: waiting for one is not answering.
  let answerMs = 0;
  const timed = <T>(fn: () => Promise<T> | T) =>
    slots(async () => {
      const t = performance.now();
      try {
        return await fn();
      } finally {
        answerMs += performance.now() - t;
      }
    });
  if (!failure && run?.context) {
    try {
      const asked = item.date ? { question: item.question, date: item.date } : { question: item.question };
      const a = await timed(() => options.answerer.answer(asked, run.context!.text));
      trace.answer = a.answer;
      trace.llmTokens!.prompt += a.promptTokens ?? 0;
      trace.llmTokens!.completion += a.completionTokens ?? 0;
    } catch (err) {
      trace.error = { stage: 'answer', kind: 'throw', message: err instanceof Error ? err.message : String(err) };
    }
  }
  // Failed questions are scored too (no answer → incorrect, recall from whatever was ranked) so that a design's
  // failures count against it in every mean rather than silently leaving the denominator.
  trace.scores = await timed(() => options.score(item, trace, { ks }));
  if (options.marginal) {
    // A failed question gains nothing from memory; it counts as 0 like in every other mean.
    let utility = 0;
    if (!trace.error && run?.context) {
      try {
        utility = await marginalOf(item, run.marginalTexts ?? [], options, timed, trace.llmTokens!);
      } catch (err) {
        trace.error = { stage: 'answer', kind: 'throw', message: `marginal utility: ${err instanceof Error ? err.message : String(err)}` };
      }
    }
    trace.scores.marginalUtility = utility;
  }
  trace.timeMs.answer = answerMs;
  return trace;
}

/**
 * s_0 per answerer and question: answering without memory does not depend on the design, so a search pays for it
 * once per question rather than once per candidate.
 */
const noMemoryScores = new WeakMap<EvalAnswerer, Map<string, Promise<number>>>();

/** MemSifter's marginal utility of the delivered units `texts` (reading order) for one question, answered on the host. */
async function marginalOf<S>(
  item: QAItem,
  texts: readonly string[],
  options: EvaluateOptions<S>,
  timed: <T>(fn: () => Promise<T> | T) => Promise<T>,
  tokens: { prompt: number; completion: number },
): Promise<number> {
  const scoreWith = async (context: string): Promise<number> => {
    const a = await timed(() => options.answerer.answer(item, context));
    tokens.prompt += a.promptTokens ?? 0;
    tokens.completion += a.completionTokens ?? 0;
    return marginalAnswerScore(item, a.answer);
  };
  let memo = noMemoryScores.get(options.answerer);
  if (!memo) noMemoryScores.set(options.answerer, (memo = new Map()));
  const key = questionSetHash([item]);
  // Tiers past the delivered units repeat the same context: answer each distinct context once.
  const byContext = new Map<string, Promise<number>>();
  const r = await marginalUtility(
    (k) => {
      if (k === 0) {
        let s0 = memo.get(key);
        if (!s0) {
          s0 = scoreWith('');
          memo.set(key, s0);
          s0.catch(() => memo.delete(key));
        }
        return s0;
      }
      const context = texts.slice(0, k).join('\n');
      let s = byContext.get(context);
      if (!s) byContext.set(context, (s = scoreWith(context)));
      return s;
    },
    { ...(options.marginal?.tiers ? { tiers: options.marginal.tiers } : {}) },
  );
  return r.utility;
}

function crashedGroup(task: GroupTask, failure: StageFailure): GroupResult {
  return { ...emptyGroupResult(), failure, questions: task.questions.map((q) => failedRun(q.id, failure)) };
}

/**
 * A pool-level failure as a trace failure. The stage is `store` because the whole group's memory is lost with
 * the process, whichever call was running when it died.
 */
function poolFailure(err: PoolTaskError): StageFailure {
  return { stage: 'store', kind: err.kind === 'timeout' ? 'timeout' : 'crash', message: err.message };
}

function addTokens(into: { prompt: number; completion: number }, from: { prompt: number; completion: number } | undefined): void {
  if (!from) return;
  into.prompt += from.prompt;
  into.completion += from.completion;
}

/** Limits concurrent async work to `n` (a finishing call hands its slot straight to the next waiter). */
function semaphore(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((r) => waiting.push(r));
    else active++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

export type { HostToolsOptions };
