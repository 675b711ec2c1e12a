import type { Archive } from '../archive/archive.ts';
import { DEFAULT_FEEDBACK, type FeedbackMode } from '../config/run-options.ts';
import type { ProgramRecord, Scores } from '../archive/schemas.ts';
import type { SearchState } from '../archive/state.ts';
import { sha256 } from '../archive/program-id.ts';
import { applyAndCheck, describeEditFailure } from '../design/apply-edits.ts';
import type { CompileResult, CompiledProgram } from '../isolate/sandbox-api.ts';
import { diagnose, type Diagnosis } from '../diagnose/diagnosis.ts';
import { sampleFailures, sampleRandomFailures, type FailureCase, type RecordLookup } from '../diagnose/sample.ts';
import type { QAItem } from '../history/record.ts';
import { BudgetExceededError } from '../llm/errors.ts';
import { createRng, deriveSeed } from '../util/rng.ts';
import type { CandidateEvaluation, CandidateEvaluator, Objective } from './candidate-evaluator.ts';
import type { Proposal, Proposer, RevisionNote } from './proposers/types.ts';
import type { AcceptanceRule, ParentSelector, ScoredProgram, SearchProgress, StopCondition } from './strategies/types.ts';

/** How failure cases reach the proposer (the feedback ablation compares these). */
export type { FeedbackMode } from '../config/run-options.ts';

/** Everything the loop is made of; each part is a small interface with several implementations. */
export interface SearchLoopOptions {
  archive: Archive;
  evaluator: CandidateEvaluator;
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

/**
 * The search (MemSteer-Opt): select a parent, propose edits, apply + compile (with bounded repair), evaluate on
 * the validation split, accept or reject, and refresh the training-set diagnosis after each acceptance. Every step
 * is written to the archive before the next begins, so a run killed at any moment resumes from disk: pending
 * programs are evaluated, undecided ones decided, and iteration k draws from the RNG stream of k alone, so a
 * resumed run makes the same choices as an uninterrupted one.
 */
export async function runSearch(options: SearchLoopOptions): Promise<SearchResult> {
  const { archive, evaluator, objective } = options;
  const emit = options.onEvent ?? (() => {});
  const started = performance.now();
  const compiledBySource = new Map<string, CompiledProgram>();
  const trainEval = new Map<string, CandidateEvaluation>();

  const compileOrThrow = async (source: string): Promise<CompiledProgram> => {
    const hit = compiledBySource.get(source);
    if (hit) return hit;
    const c = await options.compile(source);
    if (!c.ok) throw new Error(`an archived program no longer compiles: ${c.diagnostics[0]?.message ?? 'unknown'}`);
    compiledBySource.set(source, c.program);
    return c.program;
  };

  const scoresOf = (e: CandidateEvaluation): Scores => ({
    objective,
    value: e.fitness,
    n: Object.keys(e.perQuestion).length,
    perQuestion: e.perQuestion,
    metrics: flatMetrics(e),
    evaluationKey: e.key,
  });

  const evaluateVal = async (p: ProgramRecord): Promise<ProgramRecord> => {
    emit({ type: 'evaluating', program: p.id, split: 'val', iteration: p.iteration });
    const program = await compileOrThrow(archive.source(p.id));
    const e = await evaluator.evaluate(program, 'val');
    const allFailed = e.traces.length > 0 && e.traces.every((t) => t.error);
    if (allFailed) {
      const first = e.traces[0]!.error!;
      return archive.recordFailure(
        p.id,
        { stage: 'evaluate', code: `E_SANDBOX_${first.kind.toUpperCase()}`, message: `${first.stage}: ${first.message}` },
        { promptTokens: e.tokens.prompt, completionTokens: e.tokens.completion, evaluateMs: e.ms },
      );
    }
    return archive.recordEvaluation(p.id, {
      scores: scoresOf(e),
      traces: e.traces,
      cost: { promptTokens: e.tokens.prompt, completionTokens: e.tokens.completion, evaluateMs: e.ms },
    });
  };

  /** Training-set evaluation and diagnosis of an accepted program (cached in memory and, via the evaluator, on disk). */
  const diagnosisOf = async (p: ProgramRecord): Promise<{ diagnosis: Diagnosis; evaluation: CandidateEvaluation }> => {
    let e = trainEval.get(p.id);
    if (!e) {
      emit({ type: 'evaluating', program: p.id, split: 'train', iteration: p.iteration });
      e = await evaluator.evaluate(await compileOrThrow(archive.source(p.id)), 'train');
      trainEval.set(p.id, e);
    }
    let d = archive.diagnosis(p.id);
    if (!d) {
      d = diagnose(evaluator.questions.train, e.traces, e.provenance, {
        objective: objective === 'evidence' ? 'evidence' : objective === 'f1' ? 'f1' : 'accuracy',
      });
      archive.recordDiagnosis(p.id, d);
    }
    return { diagnosis: d, evaluation: e };
  };

  const decide = async (p: ProgramRecord, against: ProgramRecord, rngSeed: number): Promise<ProgramRecord> => {
    const rng = createRng(rngSeed);
    const d = options.accept.decide(scored(p), scored(against), rng);
    const record = archive.recordDecision(p.id, {
      accepted: d.accept,
      reason: d.reason,
      against: against.id,
      delta: d.delta,
      ...(d.ci ? { ci: d.ci } : {}),
    });
    emit({
      type: 'decided',
      iteration: p.iteration,
      program: p.id,
      accepted: d.accept,
      score: p.scores?.value ?? 0,
      delta: d.delta,
      reason: d.reason,
    });
    if (d.accept && !options.control) await diagnosisOf(record);
    return record;
  };

  // ── seeds and resume ──
  let state = archive.loadState();
  if (state.programs.length === 0) {
    for (const s of options.seeds) {
      const c = await options.compile(s.source);
      if (!c.ok) throw new Error(`seed ${s.label} does not compile: line ${c.diagnostics[0]?.line}: ${c.diagnostics[0]?.message}`);
      archive.addProgram({
        kind: 'seed',
        iteration: 0,
        parent: null,
        source: s.source,
        proposer: `seed:${s.label}`,
        rationale: `seed ${s.label}`,
      });
    }
    state = archive.loadState();
  } else {
    archive.appendEvent({ type: 'run-resumed', pending: state.pending.map((p) => p.id), lastIteration: state.lastIteration });
  }
  for (const p of state.pending) {
    const evaluated = await evaluateVal(p);
    if (evaluated.status === 'failed')
      emit({ type: 'invalid', iteration: p.iteration, program: p.id, stage: 'evaluate', message: evaluated.failure?.message ?? '' });
  }
  state = archive.loadState();
  for (const p of state.undecided) {
    if (p.kind === 'seed') {
      const record = archive.recordDecision(p.id, { accepted: true, reason: 'seed: the baseline', against: null });
      await diagnosisOf(record);
    } else {
      const current = archive.loadState().current;
      if (!current) throw new Error('no accepted program to compare with: the seed failed its evaluation');
      await decide(p, current, deriveSeed(options.rngSeed, 'accept', p.iteration));
    }
  }
  state = archive.loadState();
  const seed = state.seeds.find((s) => s.status === 'accepted');
  if (!seed)
    throw new Error(
      `no seed design evaluated successfully: ${state.seeds.map((s) => `${s.id}: ${s.failure?.message ?? s.status}`).join('; ')}`,
    );

  // ── iterations ──
  let stopReason = '';
  // A run killed between an edit that did not apply (or compile) and its repair continues with that repair.
  let carry = unfinishedRepair(state, options.repairs ?? 2);
  for (let iteration = carry ? carry.iteration : Math.max(1, state.lastIteration + 1); ; iteration++) {
    state = archive.loadState();
    const carried = carry?.iteration === iteration ? carry : null;
    carry = null;
    // An iteration whose programs are all decided is finished; continue after the highest one.
    if (!carried && iteration <= state.lastIteration) iteration = state.lastIteration + 1;
    const progress = progressOf(state, performance.now() - started + (options.elapsedBeforeMs ?? 0));
    if (carried) {
      // Its invalid attempts look settled on disk, but the iteration is not over: stop as if at its start.
      const partial = state.programs.filter((p) => p.kind !== 'seed' && p.iteration === iteration);
      progress.iterations -= 1;
      progress.iterationsSinceImprovement = Math.max(0, progress.iterationsSinceImprovement - 1);
      progress.proposals -= partial.length;
      progress.tokens -= partial.reduce((n, p) => n + p.cost.promptTokens + p.cost.completionTokens, 0);
      progress.dollars -= partial.reduce((n, p) => n + p.cost.dollars, 0);
    }
    const reason = options.stop.check(progress);
    if (reason) {
      stopReason = reason;
      break;
    }
    const rng = createRng(deriveSeed(options.rngSeed, 'iteration', iteration));
    const pool = options.control ? [seed] : state.accepted;
    const parentId = carried ? carried.parent : options.select.select(pool.map(scored), rng.fork('select'));
    const parent = archive.get(parentId);
    const parentSource = archive.source(parentId);

    let diagnosis: Diagnosis | null = null;
    let failures: FailureCase[] = [];
    if (!options.control) {
      const { diagnosis: d, evaluation } = await diagnosisOf(parent);
      // 'random' is the feedback ablation's diagnosis-free arm: the proposer gets only randomly sampled failures,
      // no category counts. Without this it would differ from 'diagnosis' only in cases the offline proposer never reads.
      diagnosis = options.feedback === 'random' ? null : d;
      failures = feedbackCases(options.feedback ?? DEFAULT_FEEDBACK, d, evaluator.questions.train, evaluation, options.records, {
        seed: deriveSeed(options.rngSeed, 'failures', iteration),
        perCategory: options.perCategory ?? 10,
      });
    }
    const revisions = options.control ? [] : revisionNotes(state, iteration);
    const knownHashes = new Set(state.programs.filter((p) => p.hasSource).map((p) => p.contentHash));

    let repair: { edits: unknown[]; feedback: string; attempt: number } | undefined = carried?.repair;
    for (let attempt = carried ? carried.repair.attempt : 0; attempt <= (options.repairs ?? 2); attempt++) {
      const t0 = performance.now();
      /** A proposal that never got to edits (the proposer failed, or sent none): recorded, and the loop goes on. */
      const invalidProposal = (rationale: string, code: string, message: string): void => {
        const record = archive.addProgram({
          iteration,
          attempt,
          parent: parent.id,
          edits: [],
          proposer: options.proposer.name,
          rationale,
          failure: { stage: 'propose', code, message },
        });
        emit({ type: 'invalid', iteration, program: record.id, stage: 'propose', message });
      };
      let proposal: Proposal | null;
      try {
        proposal = await options.proposer.propose({
          parent: { id: parent.id, source: parentSource, score: parent.scores?.value ?? 0, scores: parent.scores?.metrics ?? {} },
          diagnosis,
          failures,
          revisions,
          objective,
          rng: rng.fork(`propose:${attempt}`),
          isKnownSource: (src) => knownHashes.has(sha256(src)),
          ...(repair ? { repair } : {}),
        });
      } catch (err) {
        // Over budget is a clean stop; any other proposer failure (a malformed reply after the client's own
        // repairs, an HTTP error after retries) is recorded as an invalid proposal and the loop goes on.
        if (err instanceof BudgetExceededError) {
          stopReason = `budget: ${err.message}`;
          break;
        }
        invalidProposal(
          'the proposer failed',
          (err as { code?: string }).code ?? 'E_PROPOSER',
          err instanceof Error ? err.message : String(err),
        );
        break;
      }
      if (proposal && (!Array.isArray(proposal.edits) || proposal.edits.length === 0)) {
        invalidProposal(proposal.rationale, 'E_NO_EDITS', 'the proposal has no edits');
        repair = { edits: [], feedback: NO_EDITS_FEEDBACK, attempt: attempt + 1 };
        continue;
      }
      if (!proposal) {
        if (attempt === 0)
          archive.appendEvent({ type: 'note', message: `iteration ${iteration}: the proposer has nothing left to try on ${parent.id}` });
        // Nothing new for this parent: record the iteration as spent so stopping conditions still advance.
        archive.addProgram({
          iteration,
          attempt,
          parent: parent.id,
          edits: [],
          proposer: options.proposer.name,
          rationale: 'no proposal',
          failure: { stage: 'propose', code: 'E_PROPOSER_EXHAUSTED', message: `the proposer had nothing left to try on ${parent.id}` },
        });
        break;
      }
      emit({ type: 'proposed', iteration, parent: parent.id, proposal });
      const cost = { promptTokens: proposal.tokens?.prompt ?? 0, completionTokens: proposal.tokens?.completion ?? 0 };
      const checked = await applyAndCheck(parentSource, proposal.edits, options.compile);
      const proposer = proposal.operator ? `${options.proposer.name}:${proposal.operator}` : options.proposer.name;
      const targets = proposal.target === 'general' ? undefined : proposal.target;
      if (!checked.ok) {
        const feedback = describeEditFailure(checked);
        const record = archive.addProgram({
          iteration,
          attempt,
          parent: parent.id,
          edits: proposal.edits,
          applied: checked.applied,
          rationale: proposal.rationale,
          ...(targets ? { targets } : {}),
          proposer,
          cost: { ...cost, proposeMs: performance.now() - t0 },
          failure: {
            stage: checked.stage,
            code: checked.stage === 'apply' ? (checked.errors[0]?.code ?? 'E_EDIT') : 'E_COMPILE',
            message: feedback,
            details: checked.stage === 'apply' ? checked.errors : checked.diagnostics,
          },
        });
        emit({ type: 'invalid', iteration, program: record.id, stage: checked.stage, message: feedback });
        repair = { edits: proposal.edits, feedback, attempt: attempt + 1 };
        continue;
      }
      compiledBySource.set(checked.source, checked.program as CompiledProgram);
      const record = archive.addProgram({
        iteration,
        attempt,
        parent: parent.id,
        source: checked.source,
        edits: proposal.edits,
        applied: checked.applied,
        rationale: proposal.rationale,
        ...(targets ? { targets } : {}),
        proposer,
        cost: { ...cost, proposeMs: performance.now() - t0 },
      });
      const evaluated = await evaluateVal(record);
      if (evaluated.status === 'failed') {
        emit({ type: 'invalid', iteration, program: record.id, stage: 'evaluate', message: evaluated.failure?.message ?? '' });
        break;
      }
      const current = archive.loadState().current ?? seed;
      await decide(evaluated, options.control ? seed : current, deriveSeed(options.rngSeed, 'accept', iteration));
      break;
    }
    if (stopReason) break;
    state = archive.loadState();
    const best = state.best ?? seed;
    archive.appendEvent({ type: 'iteration-finished', iteration, best: best.id, bestScore: best.scores?.value ?? null });
    emit({
      type: 'iteration',
      iteration,
      best: best.id,
      bestScore: best.scores?.value ?? 0,
      accepted: state.accepted.length - state.seeds.length,
      tokens: state.cost.promptTokens + state.cost.completionTokens,
    });
  }
  archive.appendEvent({ type: 'run-stopped', reason: stopReason });
  emit({ type: 'stopped', reason: stopReason });
  state = archive.loadState();
  return { state, best: state.best ?? seed, seed, stopReason };
}

function scored(p: ProgramRecord): ScoredProgram {
  return { id: p.id, score: p.scores?.value ?? 0, iteration: p.iteration, ...(p.scores ? { perQuestion: p.scores.perQuestion } : {}) };
}

const NO_EDITS_FEEDBACK = 'The reply had no edits: return at least one edit operation.';

/**
 * The last iteration when it ends in an edit that did not apply or compile (or a reply with no edits) with repair
 * attempts left: the loop never leaves an iteration like that, so the run was killed before the repair.
 */
function unfinishedRepair(
  state: SearchState,
  repairs: number,
): { iteration: number; parent: string; repair: { edits: unknown[]; feedback: string; attempt: number } } | null {
  const tail = state.programs.filter((p) => p.kind !== 'seed' && p.iteration === state.lastIteration).at(-1);
  if (!tail?.parent || tail.status !== 'invalid' || !tail.failure || tail.attempt >= repairs) return null;
  const { stage, code, message } = tail.failure;
  const feedback = stage === 'apply' || stage === 'compile' ? message : code === 'E_NO_EDITS' ? NO_EDITS_FEEDBACK : null;
  if (feedback === null) return null;
  return { iteration: tail.iteration, parent: tail.parent, repair: { edits: tail.edits, feedback, attempt: tail.attempt + 1 } };
}

function progressOf(state: SearchState, elapsedMs: number): SearchProgress {
  return {
    iterations: state.iterationsDone,
    proposals: state.proposals,
    tokens: state.cost.promptTokens + state.cost.completionTokens,
    dollars: state.cost.dollars,
    elapsedMs,
    iterationsSinceImprovement: state.iterationsSinceImprovement,
  };
}

/** The revision history as the proposer sees it: what was tried from which parent and how it went. */
function revisionNotes(state: SearchState, before: number): RevisionNote[] {
  return state.programs
    .filter((p) => p.kind === 'proposal' && p.parent && p.iteration < before)
    .map((p) => ({
      id: p.id,
      parent: p.parent!,
      ...(p.proposer?.includes(':') ? { operator: p.proposer.slice(p.proposer.indexOf(':') + 1) } : {}),
      rationale: p.rationale ?? '',
      edits: (p.applied ?? []).map((a) => a.summary),
      accepted: p.status === 'accepted',
      delta: p.decision?.delta ?? null,
      ...(p.failure ? { failure: p.failure.message.slice(0, 600) } : {}),
    }));
}

function feedbackCases(
  mode: FeedbackMode,
  diagnosis: Diagnosis,
  items: readonly QAItem[],
  evaluation: CandidateEvaluation,
  records: RecordLookup,
  options: { seed: number; perCategory: number },
): FailureCase[] {
  if (mode === 'random')
    return sampleRandomFailures(diagnosis, items, evaluation.traces, records, { seed: options.seed, count: options.perCategory * 3 });
  // 'diagnosis' shows the categories but samples failures in proportion to their frequency (no stratification).
  if (mode === 'diagnosis')
    return sampleRandomFailures(diagnosis, items, evaluation.traces, records, { seed: options.seed, count: options.perCategory * 3 });
  return sampleFailures(diagnosis, items, evaluation.traces, records, { seed: options.seed, perCategory: options.perCategory });
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
