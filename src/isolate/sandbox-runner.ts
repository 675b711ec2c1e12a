import ivm from 'isolated-vm';
import { z } from 'zod';
import type { Budget, Hit, Question, SourceRecord } from '../../sandbox/contract.ts';
import { PRELUDE_JS } from '../../sandbox/prelude.ts';
import {
  DEFAULT_SANDBOX_LIMITS,
  type CompiledProgram,
  type ContextOutcome,
  type CreateSandboxResult,
  type FailureKind,
  type HostTools,
  type Sandbox,
  type SandboxLimits,
  type StageFailure,
  type StageResult,
  type StoreSummary,
  type ToolMeter,
  type UnitProvenance,
} from './sandbox-api.ts';
import { fitToBudget } from './host-tools/text-budget.ts';
import { startStageClock } from './stage-clock.ts';

/** The memo's answers by tool name, as the prelude's 'hits' op reports them. */
const MemoHitsSchema = z.record(z.string(), z.number().int().nonnegative());

type Op = 'store' | 'add' | 'retrieve' | 'context' | 'unitsDelta' | 'texts' | 'hits';
type Stage = StageFailure['stage'];

// The prelude validates in the isolate; these re-check on the host, which is the side we trust.
const HitsSchema = z.array(z.object({ unit: z.string().min(1), score: z.number().refine(Number.isFinite) }));
const ContextSchema = z.object({ text: z.string(), units: z.array(z.string()) });
const StoreSchema = z.object({ units: z.number().int().nonnegative(), textChars: z.number().int().nonnegative() });
const UnitSchema = z.object({
  id: z.string().min(1),
  sources: z.array(z.string()),
  time: z.string().optional(),
  textLength: z.number().int().nonnegative(),
  /** The text, when it fit the delta's inline share; otherwise the host reads it with 'texts'. */
  text: z.string().optional(),
});
const UnitsDeltaSchema = z.object({
  full: z.boolean(),
  units: z.array(UnitSchema),
  removed: z.array(z.string()),
  order: z.array(z.string()).nullable(),
});
const TextsPageSchema = z.object({ texts: z.array(z.string()), next: z.number().int().positive().nullable() });
const LoadedSchema = z.object({ add: z.boolean() });
const AddSchema = StoreSchema.extend({ delta: UnitsDeltaSchema, unchecked: z.literal(true).optional() });

const EMPTY_METER: ToolMeter = { toolCalls: {}, log: [], logDropped: 0, llmTokens: { prompt: 0, completion: 0 }, bm25CacheHits: 0 };

/**
 * Loads a compiled design into a fresh isolate with the prelude and the host tools. Nothing the design
 * does makes this throw: a design that fails to load comes back as `{ok: false, failure}` (stage
 * 'compile'). The caller owns `hostTools` (dispose it after the sandbox if it is not reused).
 */
export async function createSandbox(
  program: CompiledProgram,
  hostTools: HostTools,
  limits: Partial<SandboxLimits> = {},
): Promise<CreateSandboxResult> {
  const started = performance.now();
  const L: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...stripUndefined(limits) };
  const isolate = new ivm.Isolate({ memoryLimit: L.memoryMb });
  const loadFailure = (kind: FailureKind, message: string): CreateSandboxResult => {
    if (!isolate.isDisposed) isolate.dispose();
    return { ok: false, failure: { stage: 'compile', kind, message }, ms: performance.now() - started };
  };
  let call: ivm.Reference<(op: Op, arg: string) => string>;
  let awaitPending: ivm.Reference<() => string | Promise<string>>;
  let incremental = false;
  try {
    const context = isolate.createContextSync();
    installHostTools(context.global, hostTools, L);
    const preludeScript = isolate.compileScriptSync(PRELUDE_JS, { filename: 'memsteer:prelude.js' });
    const api = preludeScript.runSync(context, { reference: true, timeout: 2000 }) as ivm.Reference<Record<string, unknown>>;
    call = api.getSync('call', { reference: true }) as typeof call;
    awaitPending = api.getSync('awaitPending', { reference: true }) as typeof awaitPending;
    const load = api.getSync('load', { reference: true }) as ivm.Reference<() => string>;
    api.release();
    let designScript: ivm.Script;
    try {
      designScript = isolate.compileScriptSync(program.js, { filename: `design:${program.fileName}` });
    } catch (error) {
      return loadFailure('throw', `the compiled design does not parse: ${messageOf(error)}`);
    }
    designScript.runSync(context, { timeout: wholeMs(L.callTimeoutMs) });
    designScript.release();
    const loaded = load.applySync(undefined, [], { timeout: wholeMs(L.callTimeoutMs) });
    load.release();
    if (loaded[0] !== 'R') return loadFailure(loaded[0] === 'M' ? 'malformed' : 'throw', loaded.slice(1));
    incremental = LoadedSchema.parse(JSON.parse(loaded.slice(1))).add;
  } catch (error) {
    const { kind, message } = classify(error, isolate, false);
    // A throw at the design's top level keeps its error name, as stage throws do.
    return loadFailure(kind, kind === 'throw' && error instanceof Error ? `${error.name}: ${message}` : `loading the design: ${message}`);
  }
  const sandbox = new IsolateSandbox(isolate, call, awaitPending, hostTools, L, incremental);
  return { ok: true, sandbox, ms: performance.now() - started };
}

/** Installs the `__h_*` globals the prelude picks up (and deletes) when it runs. */
function installHostTools(global: ivm.Reference<Record<string, unknown>>, tools: HostTools, L: SandboxLimits): void {
  const config = {
    seed: L.seed,
    now: L.now,
    maxResultChars: L.maxResultChars,
    embedModel: tools.embedModel,
    embedDim: tools.embedDim,
    llmAvailable: tools.llmAvailable,
  };
  global.setSync('__h_config', new ivm.ExternalCopy(config).copyInto());
  global.setSync('__h_bm25Index', new ivm.Callback((docs: Array<{ id: string; text: string }>, o: object) => tools.bm25Index(docs, o)));
  global.setSync(
    '__h_bm25Add',
    new ivm.Callback((handle: number, docs: Array<{ id: string; text: string }>) => tools.bm25Add(handle, docs)),
  );
  global.setSync('__h_bm25Search', new ivm.Callback((handle: number, query: string, k: number) => tools.bm25Search(handle, query, k)));
  global.setSync('__h_tokenize', new ivm.Callback((text: string) => tools.tokenize(text)));
  global.setSync('__h_stem', new ivm.Callback((word: string) => tools.stem(word)));
  global.setSync('__h_isStopword', new ivm.Callback((word: string) => tools.isStopword(word)));
  global.setSync('__h_terms', new ivm.Callback((text: string) => tools.terms(text)));
  global.setSync('__h_countTokens', new ivm.Callback((text: string) => tools.countTokens(text)));
  global.setSync('__h_dates', new ivm.Callback((text: string, reference?: string) => tools.dates(text, reference)));
  global.setSync('__h_log', new ivm.Callback((message: string) => tools.log(message)));
  // ivm.Callback cannot hand a promise back; a Reference applied with {result: {promise: true}} can.
  global.setSync('__h_embed', new ivm.Reference((texts: string[]) => handled(tools.embed(texts))));
  global.setSync(
    '__h_llm',
    new ivm.Reference((messages: Parameters<HostTools['llm']>[0], o: Parameters<HostTools['llm']>[1]) => handled(tools.llm(messages, o))),
  );
}

/**
 * isolated-vm subscribes to a returned promise only after a tick, so a promise that is already rejected
 * would be reported by Node as an unhandled rejection; the isolate still receives the rejection.
 */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

class IsolateSandbox implements Sandbox {
  #isolate: ivm.Isolate;
  #call: ivm.Reference<(op: Op, arg: string) => string>;
  #await: ivm.Reference<() => string | Promise<string>>;
  #tools: HostTools;
  #limits: SandboxLimits;
  #deadReason: string | null = null;
  #busy = false;
  /** Provenance as the host last received it (null: ask for every unit), and the units' order. */
  #units: Map<string, UnitProvenance> | null = null;
  #order: string[] = [];
  /** #order mapped through #units (kept in step when a delta only appends units). */
  #list: UnitProvenance[] = [];
  /** True right after an add applied its delta: no stage ran since, so #list is the memory's provenance. */
  #unitsFresh = false;
  readonly incremental: boolean;

  constructor(
    isolate: ivm.Isolate,
    call: ivm.Reference<(op: Op, arg: string) => string>,
    awaitPending: ivm.Reference<() => string | Promise<string>>,
    tools: HostTools,
    limits: SandboxLimits,
    incremental: boolean,
  ) {
    this.incremental = incremental;
    this.#isolate = isolate;
    this.#call = call;
    this.#await = awaitPending;
    this.#tools = tools;
    this.#limits = limits;
  }

  /**
   * `meter` with the calls the isolate's text-tool memo answered during the stage (sandbox/prelude.ts): toolCalls
   * counts what the design asked, not which of its calls happened to reach the host.
   */
  #withMemoHits(meter: ToolMeter): ToolMeter {
    if (this.#isolate.isDisposed) return meter;
    try {
      const hits = MemoHitsSchema.parse(JSON.parse(this.#call.applySync(undefined, ['hits', ''], { timeout: 1000 }).slice(1)));
      for (const [name, n] of Object.entries(hits)) meter.toolCalls[name] = (meter.toolCalls[name] ?? 0) + n;
    } catch {
      // An isolate that cannot answer this has failed its stage already; the stage's own failure is reported.
    }
    return meter;
  }

  get alive(): boolean {
    return this.#deadReason === null && !this.#isolate.isDisposed;
  }

  store(records: SourceRecord[]): Promise<StageResult<StoreSummary>> {
    this.#units = null;
    return this.#run('store', 'store', 'store', JSON.stringify(records), StoreSchema);
  }

  async add(records: SourceRecord[]): Promise<StageResult<StoreSummary>> {
    const known = this.#units;
    this.#units = null;
    const r = await this.#run('add', 'store', 'add', JSON.stringify({ records, full: !known }), AddSchema);
    if (!r.ok) return r;
    const texts = await this.#readTexts(r.value.delta);
    if (!texts.ok) return { ...texts, ms: r.ms + texts.ms };
    const applied = this.#applyDelta(r.value.delta, known, texts.value);
    // An unchecked add has not compared the units it found: memoryUnits() asks, and learns what it changed in place.
    this.#unitsFresh = r.value.unchecked !== true;
    const value: StoreSummary = { units: r.value.units, textChars: r.value.textChars };
    if (applied.appended) value.appended = applied.appended;
    if (r.value.unchecked) value.unchecked = true;
    return { ...r, ms: r.ms + texts.ms, value };
  }

  /** Only units new or changed since the last call cross the boundary; the host keeps the rest. */
  async memoryUnits(): Promise<StageResult<UnitProvenance[]>> {
    if (this.#unitsFresh && this.#units) {
      return { ok: true, value: this.#list.slice(), ...EMPTY_METER, toolCalls: {}, log: [], ms: 0 };
    }
    const known = this.#units;
    // Forget what we had until this reply is applied: a failed call must not leave a half-merged picture.
    this.#units = null;
    const r = await this.#run('unitsDelta', 'store', 'units', known ? '' : 'full', UnitsDeltaSchema);
    if (!r.ok) return r;
    const texts = await this.#readTexts(r.value);
    if (!texts.ok) return { ...texts, ms: r.ms + texts.ms };
    this.#applyDelta(r.value, known, texts.value);
    return { ...r, ms: r.ms + texts.ms, value: this.#list.slice() };
  }

  /**
   * The texts of the units a delta reports as new or changed, read in pages that keep every crossing well under
   * maxResultChars even when JSON escaping inflates the text (a unit longer than a page arrives cut to one).
   */
  async #readTexts(delta: z.infer<typeof UnitsDeltaSchema>): Promise<StageResult<Map<string, string>>> {
    const ids = delta.units.filter((u) => u.text === undefined).map((u) => u.id);
    const maxChars = Math.max(1000, Math.floor(this.#limits.maxResultChars / 8));
    const texts = new Map<string, string>();
    let ms = 0;
    for (let from = 0; from < ids.length; ) {
      const page = await this.#run('texts', 'store', 'units', JSON.stringify({ ids, from, maxChars }), TextsPageSchema);
      ms += page.ms;
      if (!page.ok) return { ...page, ms };
      page.value.texts.forEach((t, i) => texts.set(ids[from + i]!, t));
      if (page.value.next === null) break;
      if (page.value.next <= from)
        return { ...page, ok: false, failure: { stage: 'store', kind: 'malformed', message: 'unit text pages did not advance' }, ms };
      from = page.value.next;
    }
    return { ok: true, value: texts, ...EMPTY_METER, toolCalls: {}, log: [], ms };
  }

  /**
   * Merges a provenance delta into what the host holds (`#list` is then the memory's provenance, in unit order).
   * `appended` is set when the delta only appended units to the ones held before.
   */
  #applyDelta(
    delta: z.infer<typeof UnitsDeltaSchema>,
    known: Map<string, UnitProvenance> | null,
    texts: ReadonlyMap<string, string>,
  ): { appended: UnitProvenance[] | null } {
    const fresh = delta.full || !known;
    const units = fresh ? new Map<string, UnitProvenance>() : known;
    let order = fresh ? [] : this.#order;
    // Only appended units (the common case of a memory grown by add): the list grows in step, no remapping.
    let appendOnly = !fresh && delta.order === null && delta.removed.length === 0;
    const appended: UnitProvenance[] = [];
    for (const id of delta.removed) units.delete(id);
    for (const u of delta.units) {
      const unit: UnitProvenance = { id: u.id, text: u.text ?? texts.get(u.id) ?? '', sources: u.sources, textLength: u.textLength };
      if (u.time !== undefined) unit.time = u.time;
      if (units.has(u.id)) appendOnly = false;
      else if (delta.order === null) order.push(u.id);
      units.set(u.id, unit);
      appended.push(unit);
    }
    if (delta.order !== null) order = delta.order;
    if (appendOnly) this.#list.push(...appended);
    else this.#list = order.map((id) => units.get(id)!);
    this.#units = units;
    this.#order = order;
    return { appended: appendOnly ? appended : null };
  }

  retrieve(question: Question): Promise<StageResult<Hit[]>> {
    return this.#run('retrieve', 'retrieve', `q:${question.id}`, JSON.stringify({ q: question }), HitsSchema);
  }

  async context(question: Question, hits: Hit[], budget: Budget): Promise<StageResult<ContextOutcome>> {
    const r = await this.#run('context', 'context', `q:${question.id}`, JSON.stringify({ q: question, hits, budget }), ContextSchema);
    if (!r.ok) return r;
    const fitted = fitToBudget(r.value.text, budget.tokens);
    const value: ContextOutcome = { text: fitted.text, units: r.value.units, tokens: fitted.tokens };
    if (fitted.truncatedFrom !== undefined) value.truncatedFrom = fitted.truncatedFrom;
    return { ...r, value };
  }

  heapUsed(): number | null {
    if (!this.alive) return null;
    try {
      return this.#isolate.getHeapStatisticsSync().used_heap_size;
    } catch {
      return null;
    }
  }

  dispose(): void {
    this.#deadReason ??= 'the sandbox was disposed';
    this.#call.release();
    this.#await.release();
    if (!this.#isolate.isDisposed) this.#isolate.dispose();
  }

  /**
   * One stage call. The sync path (a stage that returns a value) is a single applySync; only a stage that
   * returns a promise pays for the async round trip, under a host-side watchdog that disposes the isolate
   * when the awaited part overruns (isolated-vm's own timeout does not cover it).
   */
  async #run<T>(op: Op, stage: Stage, scope: string, arg: string, schema: z.ZodType<T>): Promise<StageResult<T>> {
    const started = performance.now();
    const fail = (kind: FailureKind, message: string, meter: ToolMeter = EMPTY_METER): StageResult<T> => ({
      ok: false,
      failure: { stage, kind, message },
      ...meter,
      ms: performance.now() - started,
    });
    if (!this.alive) return fail('crash', `${this.#deadReason ?? 'the isolate is gone'}; create a new sandbox`);
    if (this.#busy) return fail('crash', 'sandbox calls overlapped; await each call before the next');
    this.#busy = true;
    this.#unitsFresh = false;
    const clock = startStageClock(op === 'store' || op === 'add' ? this.#limits.storeTimeoutMs : this.#limits.callTimeoutMs);
    // isolated-vm's timeout is wall-clock: it stops the stage at the clock's cap; the limit itself is judged below.
    const timeout = wholeMs(clock.capMs);
    this.#tools.beginCall(scope, clock.over);
    let encoded: string;
    let watchdogFired = false;
    try {
      encoded = this.#call.applySync(undefined, [op, arg], { timeout });
      if (encoded === 'P') {
        const remaining = wholeMs(timeout - (performance.now() - started));
        let timer: NodeJS.Timeout | undefined;
        const watchdog = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            watchdogFired = true;
            if (!this.#isolate.isDisposed) this.#isolate.dispose();
            reject(new Error(`the stage did not settle within ${timeout} ms`));
          }, remaining);
        });
        const settled = this.#await.apply(undefined, [], { result: { promise: true }, timeout: remaining }) as Promise<string>;
        settled.catch(() => undefined); // after a watchdog dispose it rejects too; the race already has the answer
        try {
          encoded = await Promise.race([settled, watchdog]);
        } finally {
          clearTimeout(timer);
        }
      }
    } catch (error) {
      const meter = this.#withMemoHits(this.#tools.endCall());
      this.#busy = false;
      const { kind, message } = classify(error, this.#isolate, watchdogFired);
      if (kind === 'memory' || kind === 'crash' || this.#isolate.isDisposed) {
        this.#deadReason = `the isolate was disposed after a ${kind} failure in ${stage}`;
      }
      return fail(kind, message, meter);
    }
    const meter = this.#withMemoHits(this.#tools.endCall());
    this.#busy = false;
    const tag = encoded[0];
    const body = encoded.slice(1);
    // A stage that finished under the cap but used more than its limit (wall clock and CPU) is over it all the same:
    // an idle machine would have stopped it, and the outcome must not depend on the machine's load.
    if (clock.over()) {
      const { wallMs, cpuMs } = clock.used();
      const why = `the stage ran past its ${clock.limitMs} ms limit (${Math.round(wallMs)} ms, ${Math.round(cpuMs)} ms of CPU)`;
      // A tool refusing work past the limit surfaces as a throw; it is still the time limit's doing.
      return fail('timeout', tag === 'E' ? `${body} (${why})` : why, meter);
    }
    if (tag === 'E') {
      // The allocator refusing an ArrayBuffer, or V8 refusing a longer string, is the memory limit speaking.
      if (OUT_OF_MEMORY_THROWS.test(body)) return fail('memory', body, meter);
      return fail('throw', body, meter);
    }
    if (tag === 'M') return fail('malformed', body, meter);
    if (tag !== 'R') return fail('crash', `unexpected reply from the prelude: ${encoded.slice(0, 80)}`, meter);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return fail('malformed', 'the result is not valid JSON', meter);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) return fail('malformed', `result shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`, meter);
    return { ok: true, value: parsed.data, ...meter, ms: performance.now() - started };
  }
}

/** Maps what isolated-vm threw to a failure kind. */
function classify(error: unknown, isolate: ivm.Isolate, watchdogFired: boolean): { kind: FailureKind; message: string } {
  const message = messageOf(error);
  if (watchdogFired) return { kind: 'timeout', message: `${message} (the isolate was disposed by the watchdog)` };
  if (/memory limit/i.test(message) || /allocation failed|out of memory/i.test(message)) {
    return { kind: 'memory', message };
  }
  if (/Script execution timed out/i.test(message)) return { kind: 'timeout', message };
  if (isolate.isDisposed) return { kind: 'crash', message };
  return { kind: 'throw', message };
}

const OUT_OF_MEMORY_THROWS =
  /^RangeError: (Array buffer allocation failed|Invalid string length|Invalid array length|Invalid typed array length)/;

function wholeMs(ms: number): number {
  return Math.min(2 ** 31 - 1, Math.max(1, Math.ceil(ms)));
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
