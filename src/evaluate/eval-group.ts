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
  UnitProvenance,
} from '../isolate/sandbox-api.ts';
import { visibleRecords } from './date-filter.ts';

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
   * the memory's provenance, so diagnosis can tell storage failures (evidence in no unit) from retrieval ones.
   */
  gold: Record<string, string[]>;
  budget: Budget;
  limits: Partial<SandboxLimits>;
  /** Which bridged capabilities the host offers (the LLM client and a remote embedder live in the host). */
  bridge: { llm: boolean; embedder: { model: string; dim: number } | null };
  toolOptions: Pick<HostToolsOptions, 'llmTokensPerQuestion' | 'llmTokensPerStore' | 'logMaxLines' | 'logMaxChars' | 'bm25MaxDocs'>;
  /** Ranked units kept per question (with provenance). */
  rankCap: number;
  /** Ranked records kept per question (units expanded to sources). */
  recordCap: number;
}

/** The design's work for one question, before answering. */
export interface QuestionRun {
  id: string;
  ranked: Array<{ unit: string; score: number; sources: string[] }>;
  rankedRecords: string[];
  delivered: string[];
  deliveredRecords: string[];
  context: { text: string; tokens: number; truncatedFrom?: number } | null;
  failure?: StageFailure;
  timeMs: { retrieve: number; context: number };
  toolCalls: Record<string, number>;
  log: string[];
  llmTokens: { prompt: number; completion: number };
  /** The question's gold evidence records that some memory unit names as a source (recoverable from memory). */
  recoverable: string[];
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
  const visibleIds = new Set(records.map((r) => r.id));
  const result: GroupResult = {
    visibleRecords: records.length,
    units: 0,
    createMs: 0,
    storeMs: 0,
    store: ZERO_METER(),
    rebuilds: 0,
    bm25CacheHits: 0,
    questions: [],
  };
  let sandbox: Sandbox | null = null;
  let provenance = new Map<string, string[]>();

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
    const units = await live.memoryUnits();
    result.storeMs += units.ms;
    if (!units.ok) return { ...units.failure, stage: 'store' };
    provenance = provenanceMap(units.value, visibleIds);
    return null;
  };

  try {
    const failure = await load(false);
    if (failure) {
      result.failure = failure;
      return result;
    }
    let fatal: StageFailure | null = null;
    for (const q of task.questions) {
      if (fatal) {
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
      const run = await runQuestion(sandbox!, q, task, provenance);
      run.recoverable = recoverableGold(task.gold[q.id], provenance);
      result.questions.push(run);
    }
    return result;
  } finally {
    source.close();
  }
}

async function runQuestion(sandbox: Sandbox, q: Question, task: GroupTask, provenance: Map<string, string[]>): Promise<QuestionRun> {
  const run: QuestionRun = {
    id: q.id,
    ranked: [],
    rankedRecords: [],
    delivered: [],
    deliveredRecords: [],
    context: null,
    timeMs: { retrieve: 0, context: 0 },
    toolCalls: {},
    log: [],
    llmTokens: { prompt: 0, completion: 0 },
    recoverable: [],
  };
  const retrieved = await sandbox.retrieve(q);
  run.timeMs.retrieve = retrieved.ms;
  mergeMeter(run, retrieved);
  if (!retrieved.ok) {
    run.failure = retrieved.failure;
    return run;
  }
  const hits: Hit[] = retrieved.value;
  run.ranked = hits.slice(0, task.rankCap).map((h) => ({ unit: h.unit, score: h.score, sources: provenance.get(h.unit) ?? [] }));
  run.rankedRecords = expand(
    hits.map((h) => h.unit),
    provenance,
    task.recordCap,
  );
  const ctx = await sandbox.context(q, hits, task.budget);
  run.timeMs.context = ctx.ms;
  mergeMeter(run, ctx);
  if (!ctx.ok) {
    run.failure = ctx.failure;
    return run;
  }
  run.delivered = ctx.value.units;
  run.deliveredRecords = expand(ctx.value.units, provenance, Infinity);
  run.context = {
    text: ctx.value.text,
    tokens: ctx.value.tokens,
    ...(ctx.value.truncatedFrom !== undefined ? { truncatedFrom: ctx.value.truncatedFrom } : {}),
  };
  return run;
}

/** A question that never ran (its group or its own stage failed), with the failure recorded. */
export function failedRun(id: string, failure: StageFailure): QuestionRun {
  return {
    id,
    ranked: [],
    rankedRecords: [],
    delivered: [],
    deliveredRecords: [],
    context: null,
    failure,
    timeMs: { retrieve: 0, context: 0 },
    toolCalls: {},
    log: [],
    llmTokens: { prompt: 0, completion: 0 },
    recoverable: [],
  };
}

/** Gold records that appear among the memory's (visible) sources. */
function recoverableGold(gold: readonly string[] | undefined, provenance: Map<string, string[]>): string[] {
  if (!gold?.length) return [];
  const want = new Set(gold);
  const found = new Set<string>();
  for (const sources of provenance.values()) {
    for (const s of sources) if (want.has(s)) found.add(s);
    if (found.size === want.size) break;
  }
  return gold.filter((g) => found.has(g));
}

/**
 * Unit id → its sources, keeping only ids of records this group could see: a design cannot earn evidence
 * recall by naming records it was never given.
 */
export function provenanceMap(units: readonly UnitProvenance[], visible: ReadonlySet<string>): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const u of units)
    m.set(
      u.id,
      u.sources.filter((s) => visible.has(s)),
    );
  return m;
}

/** Units expanded to their source records in order, de-duplicated, at most `cap`. */
export function expand(units: readonly string[], provenance: ReadonlyMap<string, string[]>, cap = Infinity): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const u of units) {
    for (const s of provenance.get(u) ?? []) {
      if (seen.has(s)) continue;
      seen.add(s);
      out.push(s);
      if (out.length >= cap) return out;
    }
  }
  return out;
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
