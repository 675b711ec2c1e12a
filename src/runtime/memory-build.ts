import type { Budget, Hit, Question, SourceRecord } from '../../sandbox/contract.ts';
import { expand, provenanceMap, type SandboxFactory } from '../evaluate/eval-group.ts';
import { fitToBudget } from '../isolate/host-tools/text-budget.ts';
import type {
  CompiledProgram,
  HostTools,
  HostToolsOptions,
  Sandbox,
  SandboxLimits,
  StageFailure,
  UnitProvenance,
} from '../isolate/sandbox-api.ts';

/** What one question got from a built memory: the delivered context and the records behind it. */
export interface BuildAnswer {
  text: string;
  tokens: number;
  /** Token count before the host cut the context to the budget, when the design went over. */
  truncatedFrom?: number;
  /** Delivered unit ids, in context order. */
  units: string[];
  /** The delivered units' source records, in order, de-duplicated (evaluation's `deliveredRecords`). */
  records: string[];
}

export type BuildOutcome<T> = { ok: true; value: T } | { ok: false; failure: StageFailure };

/** Everything a build needs besides its records. */
export interface BuildSetup {
  program: CompiledProgram;
  factory: SandboxFactory;
  limits: Partial<SandboxLimits>;
  toolOptions: HostToolsOptions;
}

/** Isolate rebuilds per build after a question killed one, as evaluation allows per group. */
const MAX_REBUILDS = 2;

/**
 * One memory: a sandbox that has `store`d one fixed record set, answering questions against it. It follows
 * evaluation's group runner (src/evaluate/eval-group.ts) step for step: fresh sandbox, store, unit provenance
 * limited to the stored records, then retrieve → context per question with the context cut to the budget, and a
 * rebuild when a question killed the isolate. Calls must not overlap (the caller serialises them).
 */
export class MemoryBuild {
  /** The records this memory holds (grown by {@link grow}). */
  records: readonly SourceRecord[];
  #setup: BuildSetup;
  #tools: HostTools;
  #sandbox: Sandbox | null = null;
  #provenance = new Map<string, string[]>();
  /** The unit provenance {@link #provenance} was computed from (to map only new units after a grow). */
  #provenanceOf: readonly UnitProvenance[] = [];
  #recordIds = new Set<string>();
  #rebuilds = 0;
  units = 0;

  private constructor(records: readonly SourceRecord[], setup: BuildSetup) {
    this.records = records;
    this.#setup = setup;
    this.#tools = setup.factory.createHostTools(setup.toolOptions);
  }

  /** Builds the memory of `records`; a load or store failure comes back as `{ok: false}` with nothing left open. */
  static async create(records: readonly SourceRecord[], setup: BuildSetup): Promise<BuildOutcome<MemoryBuild>> {
    const build = new MemoryBuild(records, setup);
    const failure = await build.#load();
    if (failure) {
      build.dispose();
      return { ok: false, failure };
    }
    return { ok: true, value: build };
  }

  /** Whether {@link grow} can add records without a rebuild (the design has an `add` stage and the sandbox lives). */
  get incremental(): boolean {
    return this.#sandbox?.alive === true && this.#sandbox.incremental;
  }

  /**
   * Grows this memory by records it does not hold yet, with the design's `add` (evaluation's one-pass path). On a
   * failure the build is disposed (its memory is in doubt) and the failure comes back, its message naming `add`.
   */
  async grow(added: readonly SourceRecord[]): Promise<BuildOutcome<MemoryBuild>> {
    const sandbox = this.#sandbox;
    if (!sandbox || !this.incremental) {
      return { ok: false, failure: { stage: 'store', kind: 'malformed', message: 'add: the design has no add stage' } };
    }
    const fail = (failure: StageFailure): BuildOutcome<MemoryBuild> => {
      this.dispose();
      return { ok: false, failure: { ...failure, stage: 'store', message: `add: ${failure.message}` } };
    };
    const stored = await sandbox.add(JSON.parse(JSON.stringify(added)) as SourceRecord[]);
    if (!stored.ok) return fail(stored.failure);
    const units = await sandbox.memoryUnits();
    if (!units.ok) return fail(units.failure);
    for (const r of added) this.#recordIds.add(r.id);
    this.records = [...this.records, ...added];
    this.units = stored.value.units;
    // The sandbox hands back the same provenance object for a unit that did not change. When the earlier units are all
    // still there, first and in order, only the new ones are mapped; otherwise everything is.
    const list = units.value;
    const previous = this.#provenanceOf;
    let grownOnly = list.length >= previous.length;
    for (let i = 0; grownOnly && i < previous.length; i++) grownOnly = list[i] === previous[i];
    if (grownOnly) {
      for (const [id, sources] of provenanceMap(list.slice(previous.length), this.#recordIds)) this.#provenance.set(id, sources);
    } else {
      this.#provenance = provenanceMap(list, this.#recordIds);
    }
    this.#provenanceOf = list;
    return { ok: true, value: this };
  }

  async answer(q: Question, budget: Budget): Promise<BuildOutcome<BuildAnswer>> {
    if (!this.#sandbox?.alive) {
      if (this.#rebuilds >= MAX_REBUILDS) {
        return {
          ok: false,
          failure: {
            stage: 'retrieve',
            kind: 'crash',
            message: `the design's isolate was lost ${this.#rebuilds + 1} times; add records again to rebuild the memory`,
          },
        };
      }
      this.#rebuilds++;
      this.#sandbox?.dispose();
      const failure = await this.#load();
      if (failure) return { ok: false, failure };
    }
    const sandbox = this.#sandbox!;
    const retrieved = await sandbox.retrieve({ ...q });
    if (!retrieved.ok) return retrieved;
    // Only {unit, score} crosses the isolate boundary; the in-process path gets the same plain hits.
    const hits: Hit[] = retrieved.value.map((h) => ({ unit: h.unit, score: h.score }));
    const ctx = await sandbox.context({ ...q }, hits, { tokens: budget.tokens });
    if (!ctx.ok) return ctx;
    // The sandbox already fits the context to the budget; the in-process path does not, so fit here for both.
    const fitted = fitToBudget(ctx.value.text, budget.tokens);
    const truncatedFrom = ctx.value.truncatedFrom ?? fitted.truncatedFrom;
    return {
      ok: true,
      value: {
        text: fitted.text,
        tokens: fitted.tokens,
        ...(truncatedFrom !== undefined ? { truncatedFrom } : {}),
        units: [...ctx.value.units],
        records: expand(ctx.value.units, this.#provenance),
      },
    };
  }

  dispose(): void {
    this.#sandbox?.dispose();
    this.#sandbox = null;
    this.#tools.dispose();
  }

  async #load(): Promise<StageFailure | null> {
    const { factory, program, limits } = this.#setup;
    const created = await factory.createSandbox(program, this.#tools, limits);
    if (!created.ok) return created.failure;
    this.#sandbox = created.sandbox;
    // A JSON copy, as the isolate boundary makes: an in-process design cannot change the caller's records.
    const stored = await created.sandbox.store(JSON.parse(JSON.stringify(this.records)) as SourceRecord[]);
    if (!stored.ok) return stored.failure;
    this.units = stored.value.units;
    const units = await created.sandbox.memoryUnits();
    if (!units.ok) return { ...units.failure, stage: 'store' };
    this.#recordIds = new Set(this.records.map((r) => r.id));
    this.#provenance = provenanceMap(units.value, this.#recordIds);
    this.#provenanceOf = units.value;
    return null;
  }
}
