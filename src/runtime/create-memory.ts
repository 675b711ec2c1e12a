import { z } from 'zod';
import type { Question, SourceRecord } from '../../sandbox/contract.ts';
import { compileDesign } from '../design/compile.ts';
import { InputError, MemsteerError, describeZodIssues } from '../errors.ts';
import { cutoffInstant, visibleRecords } from '../evaluate/date-filter.ts';
import { directSandboxFactory } from '../isolate/direct-sandbox.ts';
import { designCompleter } from '../evaluate/evaluate.ts';
import type { SandboxFactory } from '../evaluate/eval-group.ts';
import { createHostTools } from '../isolate/host-tools/host-tools.ts';
import {
  DEFAULT_SANDBOX_LIMITS,
  type CompiledProgram,
  type HostToolsOptions,
  type RemoteEmbedder,
  type SandboxLimits,
} from '../isolate/sandbox-api.ts';
import { createSandbox } from '../isolate/sandbox-runner.ts';
import type { ExportManifest } from '../export/design-manifest.ts';
import { SourceRecordSchema } from '../history/record.ts';
import type { LlmClient } from '../llm/types.ts';
import { DEFAULT_CONTEXT_BUDGET } from '../config/run-options.ts';
import { DesignError } from './design-error.ts';
import { readDesignInput } from './design-input.ts';
import { loadDesignInProcess } from './in-process-design.ts';
import { MemoryBuild, type BuildSetup } from './memory-build.ts';

/** Context budget when neither the option nor design.json gives one: evaluation's default. */
export { DEFAULT_CONTEXT_BUDGET } from '../config/run-options.ts';
/** Memories for dated questions kept alive at once (each is an isolate); older ones are rebuilt on demand. */
const MAX_DATED_MEMORIES = 4;

export interface CreateMemoryOptions {
  /** Path of a design module (e.g. an exported design.ts), or its source text. */
  design: string;
  /**
   * true (default): run the design in an isolated-vm sandbox with evaluation's host tools and limits.
   * false: run it in this process (a fresh node:vm context per memory): trusted code only, no memory or time limits.
   */
  sandbox?: boolean;
  /** Context budget in tokens; default the export's design.json budget, else {@link DEFAULT_CONTEXT_BUDGET}. */
  budget?: number;
  /** Offered to the design as `tools.llm` when it has a `design` role model; absent → `tools.llm.available` is false. */
  llm?: LlmClient;
  /** Remote embeddings for `tools.embed`; absent → memsteer's local deterministic embedding. */
  embedder?: RemoteEmbedder;
  /** Sandbox limits (default: evaluation's). */
  limits?: Partial<SandboxLimits>;
  /** Tool caps (default: evaluation's). */
  toolOptions?: Pick<HostToolsOptions, 'llmTokensPerQuestion' | 'llmTokensPerStore' | 'logMaxLines' | 'logMaxChars' | 'bm25MaxDocs'>;
}

/** A question for {@link Memory.search}. */
export interface MemoryQuery {
  text: string;
  /** ISO date (YYYY-MM-DD) or date-time: only records dated on or before it (and undated ones) are searched. */
  date?: string;
  /** Question id handed to the design (default `q-<n>`); it also keys the design's per-question LLM budget. */
  id?: string;
}

/** One record the context was built from. */
export interface EvidenceItem {
  record: string;
  text: string;
  time?: string;
}

export interface SearchResult {
  /** The text to put in the model's prompt, within the budget. */
  context: string;
  /** The records behind the delivered memory units, in context order, de-duplicated. */
  evidence: EvidenceItem[];
  /** Delivered memory unit ids, in context order. */
  units: string[];
  /** countTokens(context). */
  tokens: number;
  /** Set when the design went over the budget and the context was cut: its size before the cut. */
  truncatedFrom?: number;
}

export interface AddResult {
  /** Ids of the records added by this call (generated ones for strings). */
  ids: string[];
  /** Records in memory now. */
  records: number;
  /** Memory units the design built from them. */
  units: number;
}

export interface MemoryInfo {
  /** The design's file, or `design.ts` for source text. */
  design: string;
  /** sha256 of the design's source. */
  hash: string;
  sandboxed: boolean;
  budget: number;
  /** The export manifest (design.json) beside the design file, when there is one. */
  exported: ExportManifest | null;
}

/** A memory backed by an evolved design: Mem0-like `add` / `search`. Calls are queued, never overlapped. */
export interface Memory {
  readonly info: MemoryInfo;
  /** Records added so far. */
  readonly size: number;
  /**
   * Adds records (strings become `note` records with generated ids). A design with the optional `add` stage grows
   * its memory by the new records only (as evaluation's one-pass replay does); one without re-runs `store` over
   * every record so far, so add in batches. Atomic: when `add` or `store` fails the records are not added and a
   * {@link DesignError} (stage `store`) is thrown.
   */
  add(records: ReadonlyArray<SourceRecord | string>): Promise<AddResult>;
  /** Retrieve + context for one question; throws {@link DesignError} when the design fails. */
  search(question: string | MemoryQuery): Promise<SearchResult>;
  /** Disposes every sandbox. Later calls throw E_MEMORY_CLOSED. */
  close(): Promise<void>;
}

const QuerySchema = z.object({ text: z.string().min(1), date: z.string().min(1).optional(), id: z.string().min(1).optional() });

/**
 * Opens a memory over a design (typically one `memsteer export` wrote). The design is compiled and loaded once
 * here, so a design that does not compile or load fails now (InputError E_COMPILE / DesignError stage `compile`).
 *
 * Results equal evaluation's for the same records and questions: the same compile, sandbox, host tools, limits
 * and budget; and the same question-date rule (src/evaluate/date-filter.ts) enforced the same way, by storing
 * only the records visible at the question's date in a memory of their own.
 */
export async function createMemory(options: CreateMemoryOptions): Promise<Memory> {
  const input = readDesignInput(options.design);
  const compiled = await compileDesign(input.source, { fileName: input.fileName });
  if (!compiled.ok) {
    const d = compiled.diagnostics[0];
    throw new InputError(
      'E_COMPILE',
      `${input.path ?? input.fileName}:${d?.line ?? 1}:${d?.column ?? 1}: ${d ? `${d.code}: ${d.message}` : 'does not compile'}` +
        (compiled.diagnostics.length > 1 ? ` (and ${compiled.diagnostics.length - 1} more)` : ''),
      { ...(input.path ? { file: input.path } : {}), ...(d ? { line: d.line } : {}) },
    );
  }
  const budget = options.budget ?? input.exported?.budget.tokens ?? DEFAULT_CONTEXT_BUDGET;
  if (!Number.isInteger(budget) || budget <= 0)
    throw new InputError('E_BAD_OPTION', `budget ${budget}: expected a positive whole number of tokens`);

  const limits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
  const sandboxed = options.sandbox ?? true;
  const llm = options.llm ? designCompleter(options.llm) : undefined;
  const setup: BuildSetup = {
    program: compiled.program,
    factory: sandboxed ? { createHostTools, createSandbox } : inProcessFactory(limits),
    limits,
    toolOptions: { ...options.toolOptions, ...(llm ? { llm } : {}), ...(options.embedder ? { embedder: options.embedder } : {}) },
  };
  const designName = input.path ?? input.fileName;
  await checkLoads(setup, designName);
  return new DesignMemory(setup, designName, {
    design: designName,
    hash: compiled.program.hash,
    sandboxed,
    budget,
    exported: input.exported,
  });
}

class DesignMemory implements Memory {
  readonly info: MemoryInfo;
  #setup: BuildSetup;
  #designName: string;
  #records: SourceRecord[] = [];
  #ids = new Set<string>();
  /** The memory over every record (null until first needed). */
  #all: MemoryBuild | null = null;
  /** Memories of dated questions, by how many records they see (visible sets are nested), least recently used first. */
  #dated = new Map<number, MemoryBuild>();
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  #notes = 0;
  #questions = 0;

  constructor(setup: BuildSetup, designName: string, info: MemoryInfo) {
    this.#setup = setup;
    this.#designName = designName;
    this.info = info;
  }

  get size(): number {
    return this.#records.length;
  }

  add(records: ReadonlyArray<SourceRecord | string>): Promise<AddResult> {
    return this.#serial(async () => {
      const added = this.#validate(records);
      const current = this.#all;
      let built: Awaited<ReturnType<typeof MemoryBuild.create>>;
      if (current?.incremental && current.records.length === this.#records.length) {
        built = await current.grow(added);
        // A failed add left that memory in doubt (grow disposed it): the next search rebuilds it from the old records.
        if (!built.ok) this.#all = null;
      } else {
        built = await MemoryBuild.create([...this.#records, ...added], this.#setup);
        if (built.ok) current?.dispose();
      }
      if (!built.ok) throw new DesignError(built.failure, this.#designName);
      this.#all = built.value;
      for (const b of this.#dated.values()) b.dispose();
      this.#dated.clear();
      // Appended in place only now, so a failed add leaves the records as they were (MemoryBuild keeps its own copy).
      for (const r of added) {
        this.#records.push(r);
        this.#ids.add(r.id);
      }
      return { ids: added.map((r) => r.id), records: this.#records.length, units: built.value.units };
    });
  }

  search(question: string | MemoryQuery): Promise<SearchResult> {
    return this.#serial(async () => {
      const parsed = QuerySchema.safeParse(typeof question === 'string' ? { text: question } : question);
      if (!parsed.success) throw new InputError('E_BAD_QUESTION', `search: ${describeZodIssues(parsed.error.issues)}`);
      const { text, date, id } = parsed.data;
      let cutoff: number | null = null;
      if (date !== undefined) {
        cutoff = cutoffInstant(date);
        if (cutoff === null)
          throw new InputError('E_BAD_DATE', `search: date ${JSON.stringify(date)} is not an ISO date (YYYY-MM-DD) or date-time`);
      }
      const build = await this.#buildFor(visibleRecords(this.#records, cutoff));
      const q: Question = { id: id ?? `q-${++this.#questions}`, text, ...(date !== undefined ? { date } : {}) };
      const answered = await build.answer(q, { tokens: this.info.budget });
      if (!answered.ok) throw new DesignError(answered.failure, this.#designName);
      const byId = new Map(build.records.map((r) => [r.id, r]));
      const evidence = answered.value.records.map((rid): EvidenceItem => {
        const r = byId.get(rid)!;
        return r.time !== undefined ? { record: rid, text: r.text, time: r.time } : { record: rid, text: r.text };
      });
      const a = answered.value;
      return {
        context: a.text,
        evidence,
        units: a.units,
        tokens: a.tokens,
        ...(a.truncatedFrom !== undefined ? { truncatedFrom: a.truncatedFrom } : {}),
      };
    });
  }

  close(): Promise<void> {
    return this.#serial(async () => {
      this.#all?.dispose();
      this.#all = null;
      for (const b of this.#dated.values()) b.dispose();
      this.#dated.clear();
      this.#closed = true;
    }, true);
  }

  /** The memory of exactly these records (every record, or a dated prefix set). */
  async #buildFor(visible: SourceRecord[]): Promise<MemoryBuild> {
    if (visible.length === this.#records.length) {
      if (!this.#all) this.#all = await this.#create(visible);
      return this.#all;
    }
    const key = visible.length;
    let build = this.#dated.get(key);
    if (build) {
      this.#dated.delete(key);
    } else {
      build = await this.#create(visible);
      if (this.#dated.size >= MAX_DATED_MEMORIES) {
        const [oldestKey, oldest] = this.#dated.entries().next().value!;
        oldest.dispose();
        this.#dated.delete(oldestKey);
      }
    }
    this.#dated.set(key, build);
    return build;
  }

  async #create(records: SourceRecord[]): Promise<MemoryBuild> {
    const built = await MemoryBuild.create(records, this.#setup);
    if (!built.ok) throw new DesignError(built.failure, this.#designName);
    return built.value;
  }

  #validate(records: ReadonlyArray<SourceRecord | string>): SourceRecord[] {
    if (!Array.isArray(records)) throw new InputError('E_BAD_RECORD', 'add: expected an array of records or strings');
    const out: SourceRecord[] = [];
    const ids = new Set<string>();
    records.forEach((item, i) => {
      let record: SourceRecord;
      if (typeof item === 'string') {
        let id: string;
        do id = `note-${++this.#notes}`;
        while (this.#ids.has(id) || ids.has(id));
        record = { id, kind: 'note', text: item };
      } else {
        const parsed = SourceRecordSchema.safeParse(item);
        if (!parsed.success) throw new InputError('E_BAD_RECORD', `add: records[${i}]: ${describeZodIssues(parsed.error.issues)}`);
        // Keep the caller's field order (a design sees records as evaluation gave them), minus unknown fields.
        const known = parsed.data as Record<string, unknown>;
        record = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(item).filter(([k]) => k in known)))) as SourceRecord;
      }
      if (this.#ids.has(record.id) || ids.has(record.id)) {
        throw new InputError(
          'E_DUPLICATE_RECORD',
          `add: records[${i}]: id ${JSON.stringify(record.id)} is already in memory; record ids must be unique`,
        );
      }
      ids.add(record.id);
      out.push(record);
    });
    return out;
  }

  /** Runs calls one at a time: a sandbox serves one call at a time, and add swaps memories under search. */
  #serial<T>(fn: () => Promise<T>, whenClosed = false): Promise<T> {
    const run = this.#queue.then(() => {
      if (this.#closed && !whenClosed)
        throw new MemsteerError('E_MEMORY_CLOSED', 'this memory was closed; create a new one with createMemory');
      return fn();
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/** Loads the design once and drops it, so a design that cannot load fails at createMemory. */
async function checkLoads(setup: BuildSetup, designName: string): Promise<void> {
  const tools = setup.factory.createHostTools(setup.toolOptions);
  try {
    const created = await setup.factory.createSandbox(setup.program, tools, setup.limits);
    if (!created.ok) throw new DesignError(created.failure, designName);
    created.sandbox.dispose();
  } finally {
    tools.dispose();
  }
}

/** Sandboxes that run the design in this process, each in a fresh vm context (see in-process-design.ts). */
function inProcessFactory(limits: SandboxLimits): SandboxFactory {
  return {
    createHostTools,
    async createSandbox(program: CompiledProgram, tools, l) {
      const started = performance.now();
      let design;
      try {
        design = loadDesignInProcess(program, { seed: l.seed ?? limits.seed, now: l.now ?? limits.now });
      } catch (err) {
        // The design's errors come from the vm context's realm, where `instanceof Error` does not hold.
        const e = err as { name?: unknown; message?: unknown } | null;
        const message =
          e && typeof e === 'object' && typeof e.message === 'string' ? `${String(e.name ?? 'Error')}: ${e.message}` : String(err);
        return { ok: false, failure: { stage: 'compile', kind: 'throw', message }, ms: performance.now() - started };
      }
      return directSandboxFactory(design, createHostTools).createSandbox(program, tools, l);
    },
  };
}
