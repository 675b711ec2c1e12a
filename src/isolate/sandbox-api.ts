/**
 * The public API of the design sandbox: compile a design's TypeScript source, run it in an isolated-vm
 * isolate with metered host capabilities, and get typed results back. The pool and the evaluation loop
 * build on these types only; the implementations live in src/design/compile.ts,
 * src/isolate/sandbox-runner.ts and src/isolate/host-tools/.
 *
 * Lifecycle, per design and history:
 *   compileDesign(source)                       → CompiledProgram (or located diagnostics)
 *   createHostTools(options)                    → HostTools (one per sandbox; bm25 indexes are shared process-wide)
 *   createSandbox(program, hostTools, limits)   → Sandbox (a fresh isolate; memory lives inside it)
 *   sandbox.store(records)                      → replaces the memory with store(records)
 *   sandbox.add(newRecords)                     → grows it with the design's optional add stage (`sandbox.incremental`)
 *   sandbox.memoryUnits()                       → every unit's text and claimed provenance ({id, text, sources, time}),
 *                                                 only new or changed units crossing the boundary after a store
 *   for each question: sandbox.retrieve(q) then sandbox.context(q, hits, budget)
 *   sandbox.dispose()
 *
 * No call throws for anything a design does: every design failure comes back as `{ok: false, failure}`.
 * Check `sandbox.alive` after a failure: the isolate is gone after the heap limit ('memory', "Isolate was
 * disposed during execution due to memory limit") and after the watchdog ends an async stage ('timeout');
 * every later call then fails with kind 'crash'. After 'throw', 'malformed', a synchronous 'timeout'
 * (isolated-vm terminates the script cleanly) or an ArrayBuffer/string allocation refused ('memory' from
 * a RangeError) the sandbox keeps its memory and stays usable.
 *
 * Not containable in-process: growing a Map, a Set or an object's keys, or doubling a flattened string,
 * can abort the whole Node process with V8's fatal OOM despite `memoryLimit` (see test/sandbox-hostile.test.ts).
 * Run sandboxes in a child process that may die.
 *
 * Failure kinds by cause: design throws (any value) → 'throw'; result shape or size wrong → 'malformed';
 * stage over its time limit → 'timeout'; heap limit, refused ArrayBuffer, string/array length limit →
 * 'memory'; isolate gone, overlapping calls, call after dispose → 'crash'; design fails to load →
 * stage 'compile'. `add` fails as `store` does, with stage 'store' (both build memory; the trace's stage names
 * stay the contract's three); after a failed `add` the sandbox holds no memory until the next `store`.
 * 'budget' is never produced: an over-budget context is truncated (ContextOutcome.truncatedFrom).
 */
import type { Bm25Options, Budget, DateMention, Hit, LlmMessage, Question, SourceRecord } from '../../sandbox/contract.ts';

/** Why a stage failed. `crash` means the sandbox process died (its reason recorded by the pool). */
export type FailureKind = 'throw' | 'timeout' | 'memory' | 'malformed' | 'crash' | 'compile' | 'budget';

/** A stage's failure as the host saw it: which stage, of what kind, and the design's or host's message. */
export interface StageFailure {
  stage: 'compile' | 'store' | 'retrieve' | 'context' | 'answer';
  kind: FailureKind;
  message: string;
}

/** The sandbox functions an evaluation needs; injected so tests and benchmarks can swap implementations. */
export interface SandboxFactory {
  createHostTools(options: HostToolsOptions): HostTools;
  createSandbox(program: CompiledProgram, tools: HostTools, limits: Partial<SandboxLimits>): Promise<CreateSandboxResult>;
}

// ───────────────────────────── compile ─────────────────────────────

/** A design compiled to a plain script for the isolate. `hash` is the sha256 (hex) of `source`. */
export interface CompiledProgram {
  hash: string;
  /** esbuild output: a script that assigns the design's default export to the global the prelude reads. */
  js: string;
  source: string;
  fileName: string;
}

/** One problem in a design's source, 1-based line and column. `code` is `TS<number>` or a memsteer code. */
export interface CompileDiagnostic {
  line: number;
  column: number;
  message: string;
  /**
   * `TS2322`-style for type errors; memsteer codes for the rules the type checker does not enforce:
   * `forbidden-import`, `forbidden-require`, `forbidden-dynamic-import`, `forbidden-export-star`,
   * `no-default-export`, `syntax`, `esbuild`.
   */
  code: string;
}

export type CompileResult =
  | { ok: true; program: CompiledProgram /** Milliseconds this call took (0-ish on a cache hit). */; ms: number; cached: boolean }
  | { ok: false; diagnostics: CompileDiagnostic[]; ms: number };

export interface CompileOptions {
  /** Name used in diagnostics and kept on the program (default `design.ts`). */
  fileName?: string;
  /** When set, compiled programs are also cached on disk here (`<hash>.json`), besides the in-memory cache. */
  cacheDir?: string;
}

// ───────────────────────────── host tools ─────────────────────────────

/** An embedding endpoint injected by the caller (the LLM layer builds the HTTP client). */
export interface RemoteEmbedder {
  readonly model: string;
  readonly dim: number;
  /** One vector per text; the host L2-normalises them before they reach the design. */
  embed(texts: string[]): Promise<number[][]>;
}

/** One completion for a design's `tools.llm.complete`; usage is metered against the caps below. */
export type LlmCompleter = (
  messages: LlmMessage[],
  options: { maxTokens?: number; temperature?: number },
) => Promise<{ text: string; promptTokens: number; completionTokens: number }>;

export interface HostToolsOptions {
  /** Remote embeddings; absent → the local deterministic hashed n-gram embedding (`local-hash-ngram-256`). */
  embedder?: RemoteEmbedder;
  /** Absent → `tools.llm.available` is false and `complete` rejects. */
  llm?: LlmCompleter;
  /** LLM tokens (prompt + completion) a design may spend per question, retrieve + context together (default 4000). */
  llmTokensPerQuestion?: number;
  /** LLM tokens a design may spend in one `store` or `add` call (default 200 000). */
  llmTokensPerStore?: number;
  /** `tools.log` cap per stage call: lines kept and characters per line (defaults 200 and 500). */
  logMaxLines?: number;
  logMaxChars?: number;
  /** Largest document set one `bm25.index` call may index (default 200 000). */
  bm25MaxDocs?: number;
}

/** What one stage call used, reported with its result. */
export interface ToolMeter {
  /** Calls by tool name: `bm25.index`, `bm25.add`, `bm25.search`, `text.tokenize`, `text.stem`, `text.isStopword`,
   *  `text.terms`, `text.dates`, `embed`, `llm`, `countTokens`, `log`. Calls the isolate's text-tool memo answered
   *  (sandbox/prelude.ts) count as well: the design made them. */
  toolCalls: Record<string, number>;
  /** Lines the design logged (capped) and how many were dropped past the cap. */
  log: string[];
  logDropped: number;
  llmTokens: { prompt: number; completion: number };
  /** bm25.index calls served from the process-wide index cache. */
  bm25CacheHits: number;
}

/**
 * Host-side capabilities behind the design's `tools`. One instance serves one sandbox (its meters are per
 * stage call); the bm25 index cache behind it is process-wide. The runner exposes these to the isolate:
 * the sync ones as callbacks, `embed` and `llm` as async references.
 */
export interface HostTools {
  readonly embedModel: string;
  readonly embedDim: number;
  readonly llmAvailable: boolean;
  /** Builds (or takes from the cache) an index and returns a handle valid for this HostTools. */
  bm25Index(docs: ReadonlyArray<{ id: string; text: string }>, options?: Bm25Options): { handle: number; size: number };
  /**
   * A new handle for the index behind `handle` grown by `docs` (the old handle keeps answering as before); costs
   * the new documents only, and shares the cache entry of an index built over the whole list at once.
   */
  bm25Add(handle: number, docs: ReadonlyArray<{ id: string; text: string }>): { handle: number; size: number };
  bm25Search(handle: number, query: string, k?: number): Hit[];
  tokenize(text: string): string[];
  stem(word: string): string;
  isStopword(word: string): boolean;
  terms(text: string): string[];
  /** Date mentions in `text`, relative ones resolved against `reference` (an ISO date) when given. */
  dates(text: string, reference?: string): DateMention[];
  countTokens(text: string): number;
  log(message: string): void;
  embed(texts: string[]): Promise<number[][]>;
  llm(messages: string | LlmMessage[], options?: { maxTokens?: number; temperature?: number }): Promise<string>;
  /**
   * Opens a metering window for one stage call. `scope` keys the LLM budget: `store` or `add` (a budget per
   * call), or `q:<question id>`
   * (retrieve and context of one question share a budget). Once `pastLimit()` is true, tools refuse work
   * (isolated-vm's timeout does not interrupt a host callback); without it they never do.
   */
  beginCall(scope: string, pastLimit?: () => boolean): void;
  /** Closes the window and returns what was used in it. */
  endCall(): ToolMeter;
  /** Drops index handles held by this instance. */
  dispose(): void;
}

/** Process-wide bm25 index cache counters (for reports and benchmarks). */
export interface Bm25CacheStats {
  hits: number;
  misses: number;
  size: number;
  /** Total milliseconds spent building indexes on misses. */
  buildMs: number;
}

// ───────────────────────────── sandbox ─────────────────────────────

/** Resource limits of one sandbox. Every field has a default (see DEFAULT_SANDBOX_LIMITS). */
export interface SandboxLimits {
  /** isolated-vm `memoryLimit` in MB (default 128). */
  memoryMb: number;
  /**
   * Per-call time limit for `store` and `add` (default 60 000 ms): a call is over it when it has run this long on the
   * wall clock and used this much CPU time, or LOAD_SLACK times this long on the wall clock (see stage-clock.ts).
   */
  storeTimeoutMs: number;
  /** Per-call time limit for `retrieve`, `context` and `memoryUnits` (default 5 000 ms), measured like storeTimeoutMs. */
  callTimeoutMs: number;
  /** Largest JSON a stage may return, in characters (default 8 000 000); beyond → 'malformed'. */
  maxResultChars: number;
  /** Seed of the isolate's Math.random (mulberry32). */
  seed: number;
  /** The isolate's fixed clock, epoch milliseconds (Date.now() and `new Date()` return it). */
  now: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  memoryMb: 128,
  storeTimeoutMs: 60_000,
  callTimeoutMs: 5_000,
  maxResultChars: 8_000_000,
  seed: 1,
  now: Date.UTC(2030, 0, 1),
};

/** Metering that comes with every stage result, success or failure. */
export interface StageStats extends ToolMeter {
  /** Wall-clock milliseconds of the call, host side. */
  ms: number;
}

/** The outcome of one stage call. Failures never throw. */
export type StageResult<T> = ({ ok: true; value: T } | { ok: false; failure: StageFailure }) & StageStats;

/** What `store` reports: the memory itself stays in the isolate. */
export interface StoreSummary {
  units: number;
  /** Sum of the units' text lengths. */
  textChars: number;
  /**
   * Set by `add` when the memory is the units it had before, unchanged, followed by these new ones: the host can then
   * grow its view by them alone instead of reading every unit (a memory grown one record at a time stays O(new)).
   */
  appended?: UnitProvenance[];
  /**
   * Set by `add` when the units the memory had before were not compared to what was last reported (that costs the
   * whole memory): `appended` is then what the add reported, and `memoryUnits()` also reports any unit the add changed
   * in place. Read `memoryUnits()` before relying on the older units' provenance.
   */
  unchecked?: true;
}

/**
 * One memory unit as the host reads it: its text and the sources it claims. The host verifies the claims against
 * the records (src/scoring/provenance.ts) before crediting any of them.
 */
export interface UnitProvenance {
  id: string;
  /** The unit's text; a unit longer than one transfer page (maxResultChars / 8) arrives cut to that length. */
  text: string;
  sources: string[];
  time?: string;
  /** Length of the unit's whole text in the isolate (`text` may be cut); set where the sandbox reports it. */
  textLength?: number;
}

/**
 * The context as delivered. Past the budget the host truncates the text to `budget.tokens` (countTokens)
 * and records the original size in `truncatedFrom`; `units` is kept as the design declared it: a claim that
 * evaluation checks against the delivered text (src/evaluate/verified-memory.ts), never a credit by itself.
 */
export interface ContextOutcome {
  text: string;
  units: string[];
  tokens: number;
  /** Token count before truncation, when the design went over budget. */
  truncatedFrom?: number;
}

/** A design loaded in its own isolate. Calls are serialised (do not overlap them). */
export interface Sandbox {
  /** False once the isolate is disposed (by `dispose`, the watchdog, or a memory/crash failure). */
  readonly alive: boolean;
  /** Runs `store(records)`; the resulting Memory replaces any previous one, inside the isolate. */
  store(records: SourceRecord[]): Promise<StageResult<StoreSummary>>;
  /** Whether the design has the optional `add` stage (known once loaded). */
  readonly incremental: boolean;
  /**
   * Runs the design's `add(memory, records)` over records not stored before; its result becomes the memory. Same
   * limits, validation and failure kinds as `store` (stage 'store'); 'malformed' when the design has no `add`, no
   * memory yet, or a record id was stored already. After any failure there is no memory until the next `store`.
   */
  add(records: SourceRecord[]): Promise<StageResult<StoreSummary>>;
  /**
   * Text and claimed provenance of the current memory's units, re-validated (the design may have grown memory
   * since store), read in pages. Fails with stage 'store', kind 'malformed' before any successful store.
   */
  memoryUnits(): Promise<StageResult<UnitProvenance[]>>;
  /**
   * Ranked hits; every hit's unit exists in the memory and scores are finite (else 'malformed').
   * Retrieve and context of one question share its LLM budget (keyed by `question.id`).
   */
  retrieve(question: Question): Promise<StageResult<Hit[]>>;
  /** The design's context, token-counted on the host and truncated to `budget.tokens` when over. */
  context(question: Question, hits: Hit[], budget: Budget): Promise<StageResult<ContextOutcome>>;
  /** Heap statistics of the isolate (bytes), or null once disposed. */
  heapUsed(): number | null;
  dispose(): void;
}

export type CreateSandboxResult =
  | { ok: true; sandbox: Sandbox /** Milliseconds to create the isolate and load prelude + design. */; ms: number }
  | { ok: false; failure: StageFailure; ms: number };

// ───────────────────────────── functions ─────────────────────────────

/*
 * Signatures (implemented in the modules above):
 *   compileDesign(source: string, options?: CompileOptions): Promise<CompileResult>
 *   createHostTools(options?: HostToolsOptions): HostTools
 *   bm25CacheStats(): Bm25CacheStats
 *   clearBm25Cache(): void
 *   createSandbox(program: CompiledProgram, hostTools: HostTools, limits?: Partial<SandboxLimits>): Promise<CreateSandboxResult>
 */
