/**
 * A design run in this process with no isolate: the design object is called directly with the host tools.
 * TRUSTED CODE ONLY (no memory limit, no watchdog, full access to the process). It exists as the baseline of
 * the throughput benchmark (sandbox pool vs in-process) and for tests of the evaluation loop; it implements the
 * same {@link SandboxFactory} as the real runner so everything around it is identical.
 */
import type { Bm25Index, Budget, Context, Hit, Memory, MemoryDesign, Question, SourceRecord, Tools } from '../../sandbox/contract.ts';
import type {
  CreateSandboxResult,
  SandboxFactory,
  HostTools,
  HostToolsOptions,
  Sandbox,
  StageResult,
  StageStats,
  ToolMeter,
} from './sandbox-api.ts';

/** The contract's `tools` over host tools, as the isolate prelude builds them, minus the boundary. */
export function toolsFromHost(h: HostTools): Tools {
  return {
    bm25: {
      index(docs, options) {
        return indexHandle(h, h.bm25Index(docs, options));
      },
    },
    text: {
      tokenize: (t) => h.tokenize(t),
      stem: (w) => h.stem(w),
      isStopword: (w) => h.isStopword(w),
      terms: (t) => h.terms(t),
      dates: (t, r) => h.dates(t, r),
    },
    embed: { dim: h.embedDim, model: h.embedModel, embed: (texts) => h.embed(texts) },
    llm: { available: h.llmAvailable, complete: (m, o) => h.llm(m, o) },
    countTokens: (t) => h.countTokens(t),
    log: (m) => h.log(m),
  };
}

function indexHandle(h: HostTools, { handle, size }: { handle: number; size: number }): Bm25Index {
  return {
    size,
    search: (query: string, k?: number) => h.bm25Search(handle, query, k),
    add: (docs) => indexHandle(h, h.bm25Add(handle, docs)),
  };
}

/**
 * A factory whose "sandboxes" call `design` directly. `createHostTools` is the real one (so bm25, metering and
 * its cache are the same as in the pool).
 */
export function directSandboxFactory(design: MemoryDesign, createHostTools: (o: HostToolsOptions) => HostTools): SandboxFactory {
  return {
    createHostTools,
    async createSandbox(_program, hostTools): Promise<CreateSandboxResult> {
      return { ok: true, sandbox: directSandbox(design, hostTools), ms: 0 };
    },
  };
}

function directSandbox(design: MemoryDesign, h: HostTools): Sandbox {
  const tools = toolsFromHost(h);
  let memory: Memory | null = null;
  let alive = true;

  async function call<T>(scope: string, fn: () => Promise<T> | T, stage: 'store' | 'retrieve' | 'context'): Promise<StageResult<T>> {
    const t = performance.now();
    h.beginCall(scope);
    let value: T;
    try {
      value = await fn();
    } catch (err) {
      const meter = h.endCall();
      return {
        ok: false,
        failure: { stage, kind: 'throw', message: err instanceof Error ? err.message : String(err) },
        ...stats(meter, t),
      };
    }
    return { ok: true, value, ...stats(h.endCall(), t) };
  }

  return {
    get alive() {
      return alive;
    },
    store(records: SourceRecord[]) {
      return call(
        'store',
        async () => {
          memory = null;
          memory = await design.store(records, tools);
          return { units: memory.units.length, textChars: memory.units.reduce((n, u) => n + u.text.length, 0) };
        },
        'store',
      );
    },
    incremental: typeof design.add === 'function',
    add(records: SourceRecord[]) {
      return call(
        'add',
        async () => {
          if (typeof design.add !== 'function') throw new Error('the design has no add stage');
          if (!memory) throw new Error('no memory yet: store has not succeeded');
          // As in the isolate: until add succeeds the half-changed memory is not used.
          const grown = memory;
          memory = null;
          memory = await design.add(grown, records, tools);
          return { units: memory.units.length, textChars: memory.units.reduce((n, u) => n + u.text.length, 0) };
        },
        'store',
      );
    },
    async memoryUnits() {
      const t = performance.now();
      if (!memory) {
        return {
          ok: false,
          failure: { stage: 'store', kind: 'malformed', message: 'no memory: store has not succeeded' },
          ...stats(emptyMeter(), t),
        };
      }
      const value = memory.units.map((u) => ({
        id: u.id,
        text: u.text,
        sources: u.sources,
        ...(u.time ? { time: u.time } : {}),
      }));
      return { ok: true, value, ...stats(emptyMeter(), t) };
    },
    retrieve(q: Question) {
      return call(`q:${q.id}`, () => design.retrieve(q, memory!, tools) as Hit[] | Promise<Hit[]>, 'retrieve');
    },
    async context(q: Question, hits: Hit[], budget: Budget) {
      const r = await call(`q:${q.id}`, () => design.context(q, hits, memory!, tools, budget) as Context | Promise<Context>, 'context');
      if (!r.ok) return r;
      const tokens = h.countTokens(r.value.text);
      return { ...r, value: { text: r.value.text, units: r.value.units, tokens } };
    },
    heapUsed: () => null,
    dispose() {
      alive = false;
      memory = null;
    },
  };
}

function emptyMeter(): ToolMeter {
  return { toolCalls: {}, log: [], logDropped: 0, llmTokens: { prompt: 0, completion: 0 }, bm25CacheHits: 0 };
}

function stats(meter: ToolMeter, t: number): StageStats {
  return { ...meter, ms: performance.now() - t };
}
