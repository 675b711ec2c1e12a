/**
 * One unit of evaluation work: a compiled design, the records of one history visible at one cutoff, and the
 * questions of that cutoff. Runs in a pool child (see eval-worker.ts): build a fresh isolate, `store` the
 * visible records, then `retrieve` + `context` per question. Answering and scoring happen on the host.
 *
 * A fresh isolate per group is deliberate: a design can keep globals across `store` calls, and reusing an
 * isolate would let records of a later date (or another user) leak into an earlier group's memory. (A one-pass
 * timeline, eval-timeline.ts, keeps an isolate only to grow it forward in time with the design's `add`.) It costs
 * ~2 ms; the process, its imported modules and the bm25 index cache stay warm.
 */
import type { Budget, Hit, Question, SourceRecord } from '../../sandbox/contract.ts';
import type {
  CompiledProgram,
  HostTools,
  HostToolsOptions,
  Sandbox,
  SandboxLimits,
  SandboxFactory,
  StageFailure,
  StageResult,
  StoreSummary,
  ToolMeter,
} from '../isolate/sandbox-api.ts';
import { verifiedUnitTexts } from '../scoring/marginal-utility.ts';
import { visibleRecords } from './date-filter.ts';
import { VerifiedMemory } from './verified-memory.ts';

/** What the host sends for one group (the program and records travel as blobs, by key). */
export interface GroupTask {
  programKey: string;
  recordsKey: string;
  history: string;
  /** Epoch-ms cutoff; null = every record. */
  cutoff: number | null;
  questions: Question[];
  /**
   * Gold evidence record ids per question id. Never shown to the design: the child only intersects them with
   * the memory's verified provenance, so diagnosis can tell storage failures (evidence in no unit) from retrieval
   * ones.
   */
  gold: Record<string, string[]>;
  budget: Budget;
  limits: Partial<SandboxLimits>;
  /** Which bridged capabilities the host offers (the LLM client and a remote embedder live in the host). */
  bridge: { llm: boolean; embedder: { model: string; dim: number } | null };
  toolOptions: Pick<HostToolsOptions, 'llmTokensPerQuestion' | 'llmTokensPerStore' | 'logMaxLines' | 'logMaxChars' | 'bm25MaxDocs'>;
  /** Ranked units kept per question (with provenance). */
  rankCap: number;
  /** Ranked records kept per question (units expanded to verified sources). */
  recordCap: number;
  /** When set, collect up to this many delivered unit texts per question for marginal utility (absent: none). */
  marginalUnits?: number;
  /** Wall-clock cap on the group's questions, after `store` (default DEFAULT_GROUP_TIMEOUT_MS). */
  groupTimeoutMs?: number;
}

/** The design's work for one question, before answering. */
export interface QuestionRun {
  id: string;
  /** Ranked units (capped) with their verified sources. */
  ranked: Array<{ unit: string; score: number; sources: string[] }>;
  /** Ranked units expanded to verified records (see VerifiedMemory.rankedRecords). */
  rankedRecords: string[];
  /** Verified records of the ranked units that fit the context budget (see VerifiedMemory.budgetRecords). */
  budgetRecords: string[];
  /** Declared units that delivered a record, and the records the delivered (budget-cut) text carries. */
  delivered: string[];
  deliveredRecords: string[];
  /** Claimed sources that failed verification, over the ranked (capped) and declared units. */
  unverifiedSources: number;
  context: { text: string; tokens: number; truncatedFrom?: number } | null;
  failure?: StageFailure;
  timeMs: { retrieve: number; context: number };
  toolCalls: Record<string, number>;
  log: string[];
  llmTokens: { prompt: number; completion: number };
  /** The question's gold evidence records that some memory unit verifiably carries (recoverable from memory). */
  recoverable: string[];
  /** With `marginalUnits`: the delivered unit texts found in the context, in reading order (see verifiedUnitTexts). */
  marginalTexts?: string[];
}

export interface GroupResult {
  /** Set when the group could not get past loading + store: every question of it failed with this. */
  failure?: StageFailure;
  visibleRecords: number;
  units: number;
  createMs: number;
  storeMs: number;
  store: Pick<ToolMeter, 'toolCalls' | 'log' | 'llmTokens'>;
  /** Isolates rebuilt after a question killed one (memory, watchdog timeout). */
  rebuilds: number;
  bm25CacheHits: number;
  questions: QuestionRun[];
}

export type { SandboxFactory } from '../isolate/sandbox-api.ts';

/** At most this many isolate rebuilds per group; past it the remaining questions fail with the last reason. */
const MAX_REBUILDS = 2;

/**
 * Default wall-clock cap on one group's questions (store has its own timeout). With the 60 s store timeout and
 * one call's overrun it stays inside the pool's 10-minute task deadline, so a slow design fails as itself (its
 * stage, a timeout, the questions it did answer kept) instead of as a killed process reported as a store
 * failure; and it is as long as that allows, since a legitimate design calling `tools.llm` per question can need
 * minutes for a group of a few hundred questions.
 */
export const DEFAULT_GROUP_TIMEOUT_MS = 480_000;

/**
 * Questions in a row whose stage call timed out before the rest of the group is given up. One slow question (a
 * huge query, a slow endpoint behind `tools.llm`) is not enough; a stage that loops times out every time.
 */
const MAX_TIMEOUTS_IN_A_ROW = 2;

const ZERO_METER = (): Pick<ToolMeter, 'toolCalls' | 'log' | 'llmTokens'> => ({
  toolCalls: {},
  log: [],
  llmTokens: { prompt: 0, completion: 0 },
});

/**
 * Where a group's memory comes from. The default ({@link freshMemory}) is a fresh sandbox that `store`s the
 * group's records and is disposed after the group; a timeline (eval-timeline.ts) keeps one sandbox across the
 * groups of a history and grows it with `add`.
 */
export interface MemorySource {
  /** The host tools of the sandboxes this source opens (bm25 handles live here). */
  readonly tools: HostTools;
  /**
   * A sandbox whose memory holds exactly `records`, and the stage result that built it. `rebuild`: the group lost
   * its isolate and needs a new one built from scratch. `sandbox` is null when the design could not load.
   */
  open(
    records: SourceRecord[],
    rebuild: boolean,
  ): Promise<{ createMs: number; sandbox: Sandbox | null; failure?: StageFailure; stored?: StageResult<StoreSummary> }>;
  /** The group is done (the default disposes the sandbox and the tools). */
  close(): void;
}

/** A fresh isolate per group (and per rebuild) that stores the visible records; see the module comment. */
export function freshMemory(
  factory: SandboxFactory,
  program: CompiledProgram,
  task: Pick<GroupTask, 'toolOptions' | 'limits'>,
  bridge: Pick<HostToolsOptions, 'llm' | 'embedder'>,
): MemorySource {
  const tools = factory.createHostTools({ ...task.toolOptions, ...bridge });
  let sandbox: Sandbox | null = null;
  return {
    tools,
    async open(records) {
      sandbox?.dispose();
      sandbox = null;
      const created = await factory.createSandbox(program, tools, task.limits);
      if (!created.ok) return { createMs: created.ms, sandbox: null, failure: created.failure };
      sandbox = created.sandbox;
      return { createMs: created.ms, sandbox, stored: await sandbox.store(records) };
    },
    close() {
      sandbox?.dispose();
      tools.dispose();
    },
  };
}

/** Runs one group. Never throws for anything the design does; a thrown error here is a bug in memsteer. */
export async function runGroup(
  task: GroupTask,
  program: CompiledProgram,
  allRecords: readonly SourceRecord[],
  factory: SandboxFactory,
  bridge: Pick<HostToolsOptions, 'llm' | 'embedder'>,
  source: MemorySource = freshMemory(factory, program, task, bridge),
): Promise<GroupResult> {
  const records = visibleRecords(allRecords, task.cutoff);
  const result: GroupResult = { ...emptyGroupResult(), visibleRecords: records.length };
  let sandbox: Sandbox | null = null;
  let memory = new VerifiedMemory([], []);

  // Gets a sandbox whose memory holds the visible records; returns a failure when it cannot.
  const load = async (rebuild: boolean): Promise<StageFailure | null> => {
    const opened = await source.open(records, rebuild);
    result.createMs += opened.createMs;
    sandbox = opened.sandbox;
    const live = opened.sandbox;
    if (opened.failure || !opened.stored || !live) return opened.failure ?? { stage: 'store', kind: 'crash', message: 'no sandbox' };
    const stored = opened.stored;
    result.storeMs += stored.ms;
    mergeMeter(result.store, stored);
    result.bm25CacheHits += stored.bm25CacheHits;
    if (!stored.ok) return stored.failure;
    result.units = stored.value.units;
    // A group without questions (a shard's replay up to its first date) only carries records forward.
    if (task.questions.length === 0) return null;
    const units = await live.memoryUnits();
    result.storeMs += units.ms;
    if (!units.ok) return { ...units.failure, stage: 'store' };
    memory = new VerifiedMemory(units.value, records);
    return null;
  };

  try {
    const failure = await load(false);
    if (failure) {
      result.failure = failure;
      return result;
    }
    let fatal: StageFailure | null = null;
    // Checked between questions, so a group overruns its cap by at most one call's own timeout.
    const capMs = task.groupTimeoutMs ?? DEFAULT_GROUP_TIMEOUT_MS;
    const deadline = performance.now() + capMs;
    const spent = { retrieve: 0, context: 0 };
    let timeoutsInARow = 0;
    for (const [i, q] of task.questions.entries()) {
      if (fatal) {
        result.questions.push(failedRun(q.id, fatal));
        continue;
      }
      if (performance.now() > deadline) {
        fatal = {
          stage: spent.context > spent.retrieve ? 'context' : 'retrieve',
          kind: 'timeout',
          message: `this group's questions ran past their ${capMs} ms wall-clock cap; ${task.questions.length - i} questions skipped`,
        };
        result.questions.push(failedRun(q.id, fatal));
        continue;
      }
      if (!sandbox || !(sandbox as Sandbox).alive) {
        if (result.rebuilds >= MAX_REBUILDS) {
          fatal = {
            stage: 'retrieve',
            kind: 'crash',
            message: `isolate lost ${result.rebuilds + 1} times in this group; remaining questions skipped`,
          };
          result.questions.push(failedRun(q.id, fatal));
          continue;
        }
        result.rebuilds++;
        const again = await load(true);
        if (again) {
          fatal = again;
          result.questions.push(failedRun(q.id, again));
          continue;
        }
      }
      const run = await runQuestion(sandbox!, q, task, memory);
      run.recoverable = memory.recoverable(task.gold[q.id] ?? []);
      result.questions.push(run);
      spent.retrieve += run.timeMs.retrieve;
      spent.context += run.timeMs.context;
      timeoutsInARow = run.failure?.kind === 'timeout' ? timeoutsInARow + 1 : 0;
      if (run.failure && timeoutsInARow >= MAX_TIMEOUTS_IN_A_ROW) {
        // A stage that keeps running out of time (a loop, a search that explodes) would do so for each question in
        // turn: the rest of the group fails under that stage instead of costing one timeout per question.
        const left = task.questions.length - i - 1;
        fatal = {
          ...run.failure,
          message: `${run.failure.message}; ${timeoutsInARow} questions in a row timed out, the group's other ${left} were skipped`,
        };
      }
    }
    return result;
  } finally {
    source.close();
  }
}

async function runQuestion(sandbox: Sandbox, q: Question, task: GroupTask, memory: VerifiedMemory): Promise<QuestionRun> {
  const run = emptyRun(q.id);
  const retrieved = await sandbox.retrieve(q);
  run.timeMs.retrieve = retrieved.ms;
  mergeMeter(run, retrieved);
  if (!retrieved.ok) {
    run.failure = retrieved.failure;
    return run;
  }
  const hits: Hit[] = retrieved.value;
  const order = hits.map((h) => h.unit);
  const top = hits.slice(0, task.rankCap);
  run.ranked = top.map((h) => ({ unit: h.unit, score: h.score, sources: memory.check(h.unit).verified }));
  run.rankedRecords = memory.rankedRecords(order, task.recordCap);
  run.budgetRecords = memory.budgetRecords(order, task.budget.tokens);
  const ctx = await sandbox.context(q, hits, task.budget);
  run.timeMs.context = ctx.ms;
  mergeMeter(run, ctx);
  run.unverifiedSources = memory.unverifiedCount(top.map((h) => h.unit));
  if (!ctx.ok) {
    run.failure = ctx.failure;
    return run;
  }
  const delivered = memory.delivered(ctx.value.text, ctx.value.units);
  run.delivered = delivered.units;
  run.deliveredRecords = delivered.records;
  run.unverifiedSources = memory.unverifiedCount([...top.map((h) => h.unit), ...ctx.value.units]);
  run.context = {
    text: ctx.value.text,
    tokens: ctx.value.tokens,
    ...(ctx.value.truncatedFrom !== undefined ? { truncatedFrom: ctx.value.truncatedFrom } : {}),
  };
  if (task.marginalUnits) {
    // Texts as the host read them at store time: a unit the design declares but never stored contributes nothing.
    const units = [...new Set(ctx.value.units)].map((id) => ({ id, text: memory.text(id) }));
    run.marginalTexts = verifiedUnitTexts(ctx.value.text, units, task.marginalUnits);
  }
  return run;
}

function emptyRun(id: string): QuestionRun {
  return {
    id,
    ranked: [],
    rankedRecords: [],
    budgetRecords: [],
    delivered: [],
    deliveredRecords: [],
    unverifiedSources: 0,
    context: null,
    timeMs: { retrieve: 0, context: 0 },
    toolCalls: {},
    log: [],
    llmTokens: { prompt: 0, completion: 0 },
    recoverable: [],
  };
}

/** A group's result before anything ran: no memory, no questions (a group that was not built reports just this). */
export function emptyGroupResult(): GroupResult {
  return { visibleRecords: 0, units: 0, createMs: 0, storeMs: 0, store: ZERO_METER(), rebuilds: 0, bm25CacheHits: 0, questions: [] };
}

/** A question that never ran (its group or its own stage failed), with the failure recorded. */
export function failedRun(id: string, failure: StageFailure): QuestionRun {
  return { ...emptyRun(id), failure };
}

function mergeMeter(
  into: Pick<ToolMeter, 'toolCalls' | 'log' | 'llmTokens'>,
  from: Pick<ToolMeter, 'toolCalls' | 'log' | 'llmTokens'>,
): void {
  for (const [k, v] of Object.entries(from.toolCalls)) into.toolCalls[k] = (into.toolCalls[k] ?? 0) + v;
  if (from.log.length) into.log.push(...from.log.slice(0, Math.max(0, 200 - into.log.length)));
  into.llmTokens.prompt += from.llmTokens.prompt;
  into.llmTokens.completion += from.llmTokens.completion;
}
