import type { Rng } from '../../util/rng.ts';

/** A program as the strategies see it: its id, its validation score and (for Pareto and bootstrap) per-question scores. */
export interface ScoredProgram {
  id: string;
  /** Validation fitness under the run's objective (higher is better). */
  score: number;
  /** Per-question scores keyed by question id, same objective. */
  perQuestion?: Readonly<Record<string, number>>;
  /** Iteration that produced it (0 for seeds); breaks ties towards the most recent. */
  iteration?: number;
}

/** Chooses the parent of the next proposal from a pool of programs (usually the accepted ones). */
export interface ParentSelector {
  /** Spec string that recreates it (`greedy`, `softmax:0.05`, `pareto`), for the manifest. */
  readonly name: string;
  /**
   * Which programs it chooses among: the accepted ones (default), or every evaluated one, rejected included (a
   * diversity strategy keeps the best of each niche even when it lost to the incumbent).
   */
  readonly pool?: 'accepted' | 'evaluated';
  /** Returns the chosen program's id. Throws on an empty pool. */
  select(pool: readonly ScoredProgram[], rng: Rng): string;
}

export interface AcceptanceDecision {
  accept: boolean;
  /** candidate.score − incumbent.score. */
  delta: number;
  /** One line for the log and the archive. */
  reason: string;
  /** Bootstrap confidence interval of the mean per-question difference, when computed. */
  ci?: { lower: number; upper: number; level: number };
}

/** Decides whether a candidate replaces the incumbent. */
export interface AcceptanceRule {
  readonly name: string;
  decide(candidate: ScoredProgram, incumbent: ScoredProgram, rng: Rng): AcceptanceDecision;
}

/** Counters the loop keeps; stopping conditions read only these (no clock inside, so they stay pure). */
export interface SearchProgress {
  /** Iterations finished. */
  iterations: number;
  /** Proposals made (including invalid ones and repair attempts). */
  proposals: number;
  /** LLM tokens spent so far (prompt + completion, all roles). */
  tokens: number;
  /** Dollars spent so far (0 when prices are unknown or offline). */
  dollars: number;
  /** Wall time since the run started (summed across resumes). */
  elapsedMs: number;
  /** Iterations finished since the last acceptance (or since the start). */
  iterationsSinceImprovement: number;
}

/** Returns a reason to stop, or null to go on. */
export interface StopCondition {
  readonly name: string;
  check(progress: SearchProgress): string | null;
}
