import type { Budget, Hit, Question, SourceRecord } from '../../sandbox/contract.ts';
import type { SandboxFactory } from '../evaluate/eval-group.ts';
import { VerifiedMemory } from '../evaluate/verified-memory.ts';
import { fitToBudget } from '../isolate/host-tools/text-budget.ts';
import type { CompiledProgram, HostTools, HostToolsOptions, Sandbox, SandboxLimits, StageFailure } from '../isolate/sandbox-api.ts';

/** What one question got from a built memory: the delivered context and the records behind it. */
export interface BuildAnswer {
  text: string;
  tokens: number;
  /** Token count before the host cut the context to the budget, when the design went over. */
  truncatedFrom?: number;
  /** Declared units that delivered a record, in context order (evaluation's `delivered`). */
  units: string[];
  /**
   * The records the delivered text verifiably carries among the declared units' sources, in context order
   * (evaluation's `deliveredRecords`; the rule is `MemoryUnit.sources` in sandbox/contract.ts).
   */
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
 * verified against the stored records, then retrieve → context per question with the context cut to the budget, and a
 * rebuild when a question killed the isolate. Calls must not overlap (the caller serialises them).
 */
export class MemoryBuild {
  /** The records this memory holds (grown by {@link grow}; a copy of the caller's array). */
  readonly records: SourceRecord[];
  #setup: BuildSetup;
  #tools: HostTools;
  #sandbox: Sandbox | null = null;
  #memory = new VerifiedMemory([], []);
  #rebuilds = 0;
  /** True after an unchecked add (StoreSummary.unchecked): the older units' provenance is read before answering. */
  #unsettled = false;
  units = 0;

  private constructor(records: readonly SourceRecord[], setup: BuildSetup) {
    this.records = [...records];
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
    const appended = stored.value.appended;
    if (appended) {
      this.#memory.append(appended, added);
      // Settled at the next answer: a memory grown by many adds in a row pays for reading its whole provenance once.
      if (stored.value.unchecked) this.#unsettled = true;
    } else {
      const units = await sandbox.memoryUnits();
      if (!units.ok) return fail(units.failure);
      this.#memory.grow(units.value, added);
    }
    for (const r of added) this.records.push(r);
    this.units = stored.value.units;
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
    if (this.#unsettled) {
      const units = await sandbox.memoryUnits();
      if (!units.ok) {
        // The memory an add left is in doubt: the next answer stores the records again in a fresh sandbox.
        sandbox.dispose();
        this.#unsettled = false;
        return { ok: false, failure: units.failure };
      }
      this.#memory.grow(units.value, []);
      this.#unsettled = false;
    }
    const retrieved = await sandbox.retrieve({ ...q });
    if (!retrieved.ok) return retrieved;
    // Only {unit, score} crosses the isolate boundary; the in-process path gets the same plain hits.
    const hits: Hit[] = retrieved.value.map((h) => ({ unit: h.unit, score: h.score }));
    const ctx = await sandbox.context({ ...q }, hits, { tokens: budget.tokens });
    if (!ctx.ok) return ctx;
    // The sandbox already fits the context to the budget; the in-process path does not, so fit here for both.
    const fitted = fitToBudget(ctx.value.text, budget.tokens);
    const truncatedFrom = ctx.value.truncatedFrom ?? fitted.truncatedFrom;
    const delivered = this.#memory.delivered(fitted.text, ctx.value.units);
    return {
      ok: true,
      value: {
        text: fitted.text,
        tokens: fitted.tokens,
        ...(truncatedFrom !== undefined ? { truncatedFrom } : {}),
        units: delivered.units,
        records: delivered.records,
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
    this.#unsettled = false;
    const created = await factory.createSandbox(program, this.#tools, limits);
    if (!created.ok) return created.failure;
    this.#sandbox = created.sandbox;
    // A JSON copy, as the isolate boundary makes: an in-process design cannot change the caller's records.
    const stored = await created.sandbox.store(JSON.parse(JSON.stringify(this.records)) as SourceRecord[]);
    if (!stored.ok) return stored.failure;
    this.units = stored.value.units;
    const units = await created.sandbox.memoryUnits();
    if (!units.ok) return { ...units.failure, stage: 'store' };
    this.#memory = new VerifiedMemory(units.value, this.records);
    return null;
  }
}
