import type { EditOp } from '../../design/edit-ops.ts';
import type { Diagnosis } from '../../diagnose/diagnosis.ts';
import type { FailureCase } from '../../diagnose/sample.ts';
import type { Rng } from '../../util/rng.ts';
import type { QAItem } from '../../history/record.ts';
import type { SourceRecord } from '../../../sandbox/contract.ts';
import type { Objective, ProposalTarget } from '../../config/run-options.ts';

/** A revision tried earlier in the run, as the proposer is told about it. */
export interface RevisionNote {
  /** Program id of the candidate. */
  id: string;
  parent: string;
  /** Operator name (offline) or the failure category the rationale named (LLM). */
  operator?: string;
  rationale: string;
  /** Summaries of the applied edits. */
  edits: string[];
  accepted: boolean;
  /** Validation score change against its parent (null when it never got a score). */
  delta: number | null;
  /** Why it failed, when it did (edit error, compile diagnostics, sandbox failure). */
  failure?: string;
}

/**
 * The training split as a proposer that fits a program to it sees it (read-only). Only TRAINING items: the
 * validation split judges what a proposer fits, and the official test split is never reachable from here.
 */
export interface TrainingView {
  readonly items: readonly QAItem[];
  /** The records of a history, in history order (empty for an unknown history). */
  records(history: string): readonly SourceRecord[];
  /** The parent's ranked record ids for a training question (its training evaluation), when known. */
  ranked(history: string, question: string): readonly string[] | undefined;
  /** How many of those ranked records fit the parent's context budget for that question, when known. */
  budgetDepth?(history: string, question: string): number | undefined;
}

/** What a proposer sees for one proposal. */
export interface ProposalContext {
  parent: { id: string; source: string; score: number; scores: Record<string, number> };
  /** The parent's diagnosis on the training set (null before the first one). */
  diagnosis: Diagnosis | null;
  /** Failure-stratified sample of the parent's training failures. */
  failures: FailureCase[];
  /** The training split, for proposers that mine or fit it (absent in the control and in tests that need none). */
  training?: TrainingView;
  /** Earlier revisions, oldest first. */
  revisions: RevisionNote[];
  /** The objective the search maximises (shown to an LLM proposer). */
  objective: Objective;
  rng: Rng;
  /** True when a design with exactly this source is already in the archive (so a proposer can avoid re-proposing it). */
  isKnownSource?: (source: string) => boolean;
  /**
   * Other archive programs worth borrowing from (top programs of other lineages, best first), as crossover and an
   * LLM proposer read them. Absent in the control and when the archive holds nothing outside the parent's lineage.
   */
  inspirations?: Inspiration[];
  /** Set on a repair attempt: the edits that did not apply or compile, and what went wrong. */
  repair?: { edits: unknown[]; feedback: string; attempt: number };
}

/** An archive program shown to a proposer as an inspiration: its id, source and validation scores. */
export interface Inspiration {
  id: string;
  source: string;
  /** Validation fitness under the run's objective. */
  score: number;
  /** Aggregate validation metrics (recall@10, contextRecall…). */
  scores: Record<string, number>;
}

/** One proposal: typed edits plus why. */
export interface Proposal {
  /** Raw edits (validated by the loop, so an LLM's malformed edits are recorded, not thrown). */
  edits: unknown[];
  rationale: string;
  /** The failure category the proposal targets. */
  target: ProposalTarget;
  /** Offline: the operator drawn; LLM: absent. */
  operator?: string;
  /** LLM tokens spent on it. */
  tokens?: { prompt: number; completion: number };
}

/**
 * Writes the next candidate. Returns null when it has nothing left to try for this parent (the loop then
 * counts the iteration as exhausted).
 */
export interface Proposer {
  readonly name: string;
  propose(ctx: ProposalContext): Promise<Proposal | null>;
}

export type { EditOp };
