import type { Archive } from '../archive/archive.ts';
import type { ProgramRecord } from '../archive/schemas.ts';
import type { SearchState } from '../archive/state.ts';
import type { RecordLookup } from '../diagnose/sample.ts';
import type { CompileResult } from '../isolate/sandbox-api.ts';
import type { Objective, SearchEvaluator } from './candidate-evaluator.ts';
import type { Proposal, Proposer } from './proposers/types.ts';
import type { AcceptanceRule, ParentSelector, StopCondition } from './strategies/types.ts';

/** How failure cases reach the proposer (the feedback ablation compares these). */
export type { FeedbackMode } from '../config/run-options.ts';
import type { FeedbackMode } from '../config/run-options.ts';

/** Everything the loop is made of; each part is a small interface with several implementations. */
export interface SearchLoopOptions {
  archive: Archive;
  /** Train and val only: the official test split is evaluated after the search, never inside it. */
  evaluator: SearchEvaluator;
  proposer: Proposer;
  select: ParentSelector;
  accept: AcceptanceRule;
  stop: StopCondition;
  compile: (source: string) => Promise<CompileResult>;
  objective: Objective;
  /** Seed design sources, keyed by a label (`seeds/base-bm25.ts`). Only used when the archive is empty. */
  seeds: ReadonlyArray<{ label: string; source: string }>;
  /** Record text for failure excerpts. */
  records: RecordLookup;
  rngSeed: number;
  /** Failure cases per category shown to the proposer (default 10). */
  perCategory?: number;
  feedback?: FeedbackMode;
  /** Repair attempts after an edit list does not apply or compile (default 2). */
  repairs?: number;
  /**
   * Best-of-N control (same budget, no conditioning on the archive): every proposal starts from the seed and the
   * proposer sees no diagnosis and no history, so any gain is sampling, not evolution.
   */
  control?: boolean;
  onEvent?: (e: SearchEvent) => void;
  /**
   * Start each candidate's training evaluation beside its validation run, so an acceptance finds the evaluation its
   * diagnosis needs done. Worth it when one evaluation leaves pool processes idle (a history's dates replay in one
   * process: a run on fewer histories than processes); a rejected candidate's evaluation is wasted. Scores do not
   * change: the same evaluation only starts earlier. Default off.
   */
  prefetchTraining?: boolean;
  /** Wall time already spent by earlier sessions of this run (resume). */
  elapsedBeforeMs?: number;
}

/** Progress the CLI shows. The library never prints; it reports these. */
export type SearchEvent =
  | { type: 'evaluating'; program: string; split: 'train' | 'val'; iteration: number }
  | { type: 'proposed'; iteration: number; parent: string; proposal: Proposal }
  | { type: 'invalid'; iteration: number; program: string; stage: string; message: string }
  | { type: 'decided'; iteration: number; program: string; accepted: boolean; score: number; delta: number; reason: string }
  | { type: 'iteration'; iteration: number; best: string; bestScore: number; accepted: number; tokens: number }
  | { type: 'stopped'; reason: string };

export interface SearchResult {
  state: SearchState;
  /** The accepted program with the highest validation score. */
  best: ProgramRecord;
  seed: ProgramRecord;
  stopReason: string;
}

/** A repair request: the edits that did not apply or compile (or an empty reply) and what to tell the proposer. */
export interface Repair {
  edits: unknown[];
  feedback: string;
  attempt: number;
}
