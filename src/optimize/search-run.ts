import type { Archive } from '../archive/archive.ts';
import type { ProgramRecord, Scores } from '../archive/schemas.ts';
import { MemsteerError } from '../errors.ts';
import type { CompiledProgram } from '../isolate/sandbox-api.ts';
import type { CandidateEvaluation, SearchEvaluator } from './candidate-evaluator.ts';
import type { SearchEvent, SearchLoopOptions } from './search-types.ts';

/** What every step of one search works with: its options, the archive, and what it keeps in memory. */
export interface SearchRun {
  readonly options: SearchLoopOptions;
  readonly archive: Archive;
  readonly evaluator: SearchEvaluator;
  readonly emit: (e: SearchEvent) => void;
  /** performance.now() when this session of the search started. */
  readonly started: number;
  readonly repairs: number;
  /** Compiled programs by source: a candidate compiled when its edits were checked is not compiled again. */
  readonly compiled: Map<string, CompiledProgram>;
  /** Training-set evaluations of accepted programs, by id (the evaluator's cache keeps them on disk too). */
  readonly trainEvaluations: Map<string, CandidateEvaluation>;
  /**
   * Training evaluations started beside a candidate's validation run (`SearchLoopOptions.prefetchTraining`), by id,
   * until its decision: null when it failed (the diagnosis that needs it evaluates again and meets the error there).
   */
  readonly prefetched: Map<string, Promise<CandidateEvaluation | null>>;
  /** Every prefetch still running, dropped ones included: the search waits for them before it returns. */
  readonly inFlight: Set<Promise<unknown>>;
}

export function createSearchRun(options: SearchLoopOptions): SearchRun {
  return {
    options,
    archive: options.archive,
    evaluator: options.evaluator,
    emit: options.onEvent ?? (() => {}),
    started: performance.now(),
    repairs: options.repairs ?? 2,
    compiled: new Map(),
    trainEvaluations: new Map(),
    prefetched: new Map(),
    inFlight: new Set(),
  };
}

/** The compiled program of an archived design (compiled once per session). */
export async function compileArchived(run: SearchRun, p: ProgramRecord): Promise<CompiledProgram> {
  const source = run.archive.source(p.id);
  const hit = run.compiled.get(source);
  if (hit) return hit;
  const c = await run.options.compile(source);
  if (!c.ok)
    throw new MemsteerError(
      'E_ARCHIVED_COMPILE',
      `an archived program no longer compiles: ${c.diagnostics[0]?.message ?? 'unknown'} (${run.archive.paths(p.id).source})`,
    );
  run.compiled.set(source, c.program);
  return c.program;
}

/** The scores a program's record keeps from one evaluation. */
export function scoresOf(run: SearchRun, e: CandidateEvaluation): Scores {
  return {
    objective: run.options.objective,
    value: e.fitness,
    n: Object.keys(e.perQuestion).length,
    perQuestion: e.perQuestion,
    metrics: flatMetrics(e),
    evaluationKey: e.key,
  };
}

function flatMetrics(e: CandidateEvaluation): Record<string, number> {
  const s = e.summary;
  const out: Record<string, number> = { accuracy: s.accuracy, f1: s.f1, meanContextTokens: s.meanContextTokens };
  for (const [k, v] of Object.entries(s.recallAt)) out[`recall@${k}`] = v;
  if (s.contextRecall !== null) out.contextRecall = s.contextRecall;
  if (s.locomoF1 !== null) out.locomoF1 = s.locomoF1;
  out.errors = Object.values(s.errors).reduce((a, b) => a + b, 0);
  return out;
}
