import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { Archive } from '../archive/archive.ts';
import { OFFICIAL_TRACES_DIR, type ProgramRecord, type TestScores } from '../archive/schemas.ts';
import { diffSources } from '../design/diff.ts';
import { FAILURE_CATEGORIES } from '../diagnose/diagnosis.ts';
import { summarize, type MetricBlock } from '../scoring/summary.ts';
import { QuestionTraceSchema } from '../scoring/trace-schema.ts';
import type { QuestionTrace } from '../scoring/trace.ts';
import { readJsonl } from '../util/jsonl.ts';
import { readFidelity } from '../experiments/fidelity-schema.ts';
import {
  ReportDataSchema,
  type CostRow,
  type Metrics,
  type ProgramNode,
  type ReportData,
  type Revision,
  type SplitScoresEntry,
} from './report-schema.ts';

/**
 * Where a run may keep a program's traces on the histories' official QA (`official/<id>.jsonl`, QuestionTrace lines):
 * the only source of official scores per category. Without them the report shows the aggregate official-test scores
 * the optimizer records as a note event. The optimizer's validation traces are `traces/<id>.jsonl`.
 */
export { OFFICIAL_TRACES_DIR };

/** Stacking order of the failure chart: upstream failures at the bottom, passes on top. */
export const REPORT_CATEGORIES = [...FAILURE_CATEGORIES, 'pass'] as const;

export interface ReportDataOptions {
  /** Clock for the "generated at" stamp (tests pass a fixed one). */
  now?: () => Date;
}

/** Reads everything the report shows out of an open archive. Reads only; never writes. */
export function buildReportData(archive: Archive, options: ReportDataOptions = {}): ReportData {
  const state = archive.loadState();
  const programs = state.programs;
  const seed = state.seeds[0] ?? null;
  const best = state.best;
  const objective = String(archive.manifest.config.objective ?? programs.find((p) => p.scores)?.scores?.objective ?? 'evidence');

  const nodes: ProgramNode[] = programs.map((p) => ({
    id: p.id,
    kind: p.kind,
    iteration: p.iteration,
    attempt: p.attempt,
    parent: p.parent,
    status: p.status,
    score: p.scores?.value ?? null,
    delta: p.decision?.delta ?? null,
    proposer: p.proposer ?? null,
    rationale: p.rationale ?? null,
    targets: p.targets ?? null,
    failure: p.failure ? `${p.failure.stage}: ${p.failure.message}` : null,
    decision: p.decision?.reason ?? null,
    best: best?.id === p.id,
  }));

  const count = (s: ProgramRecord['status']) => programs.filter((p) => p.status === s).length;
  const data: ReportData = {
    generatedAt: (options.now ?? (() => new Date()))().toISOString(),
    run: {
      name: archive.manifest.run,
      dir: archive.dir,
      createdAt: archive.manifest.createdAt,
      objective,
      models: archive.manifest.models,
      rngSeed: archive.manifest.rngSeed,
      memsteer: archive.manifest.versions.memsteer,
      gitCommit: archive.manifest.gitCommit,
      stopped: state.stopped,
    },
    summary: {
      seed: seed ? { id: seed.id, score: seed.scores?.value ?? null } : null,
      best: best ? { id: best.id, score: best.scores?.value ?? null } : null,
      programs: programs.length,
      proposals: state.proposals,
      accepted: state.accepted.filter((p) => p.kind !== 'seed').length,
      rejected: count('rejected'),
      invalid: count('invalid'),
      failed: count('failed'),
      lastIteration: state.lastIteration,
    },
    programs: nodes,
    bestSoFar: bestSoFar(state.accepted, state.lastIteration),
    failures: failureBars(archive, state.accepted, state.lastIteration),
    revisions: state.accepted.filter((p) => p.parent !== null).map((p) => revision(archive, p)),
    scores: { metric: metricOf(objective), entries: scoreEntries(archive, seed, best) },
    cost: costOf(archive, programs),
    warnings: state.warnings,
    fidelity: readFidelity(archive.dir),
  };
  return ReportDataSchema.parse(data);
}

function bestSoFar(accepted: readonly ProgramRecord[], lastIteration: number): ReportData['bestSoFar'] {
  const out: ReportData['bestSoFar'] = [];
  let best: ProgramRecord | null = null;
  for (let i = 0; i <= lastIteration; i++) {
    for (const p of accepted) if (p.iteration === i && p.scores && (!best || p.scores.value > best.scores!.value)) best = p;
    if (best) out.push({ iteration: i, score: best.scores!.value, program: best.id });
  }
  return out;
}

/**
 * After iteration i the search stands on the most recently accepted program; its training-set diagnosis is what
 * the next proposal is conditioned on, so that is the bar shown for i.
 */
function failureBars(archive: Archive, accepted: readonly ProgramRecord[], lastIteration: number): ReportData['failures'] {
  const bars: ReportData['failures']['bars'] = [];
  for (let i = 0; i <= lastIteration; i++) {
    const current = accepted.filter((p) => p.iteration <= i).at(-1) ?? null;
    const d = current ? archive.diagnosis(current.id) : null;
    bars.push({ iteration: i, program: current?.id ?? null, counts: d ? { ...d.counts } : null });
  }
  return { categories: [...REPORT_CATEGORIES], bars };
}

function revision(archive: Archive, p: ProgramRecord): Revision {
  const parent = archive.get(p.parent!);
  let diff: string | null = null;
  if (p.hasSource && parent.hasSource) diff = diffSources(archive.source(parent.id), archive.source(p.id), { from: parent.id, to: p.id });
  return {
    id: p.id,
    parent: parent.id,
    iteration: p.iteration,
    proposer: p.proposer ?? null,
    rationale: p.rationale ?? null,
    targets: p.targets ?? null,
    decision: p.decision?.reason ?? null,
    scoreBefore: parent.scores?.value ?? null,
    scoreAfter: p.scores?.value ?? null,
    applied: (p.applied ?? []).map((a) => ({ op: a.op, summary: a.summary })),
    diff,
  };
}

function metricOf(objective: string): ReportData['scores']['metric'] {
  switch (objective) {
    case 'accuracy':
      return 'accuracy';
    case 'f1':
      return 'f1';
    case 'marginal':
      return 'marginalUtility';
    case 'ranking':
      return 'recallAt10';
    default:
      return 'contextRecall';
  }
}

function metrics(b: MetricBlock): Metrics {
  return {
    n: b.n,
    accuracy: b.accuracy,
    f1: b.f1,
    recallAt10: b.withEvidence > 0 ? (b.recallAt['10'] ?? null) : null,
    contextRecall: b.contextRecall,
    locomoF1: b.locomoF1,
    marginalUtility: b.marginalUtility,
  };
}

function officialTraces(archive: Archive, id: string): QuestionTrace[] | null {
  const path = join(archive.dir, OFFICIAL_TRACES_DIR, `${id}.jsonl`);
  return existsSync(path) ? readJsonl(path, QuestionTraceSchema as z.ZodType<QuestionTrace>) : null;
}

/**
 * Seed and best on the validation split (their archived traces) and on the official test: per category from
 * `official/<id>.jsonl` traces when the run holds them, else overall only from the recorded `test-scores` event.
 */
function scoreEntries(archive: Archive, seed: ProgramRecord | null, best: ProgramRecord | null): SplitScoresEntry[] {
  const out: SplitScoresEntry[] = [];
  const roles: Array<['seed' | 'best', ProgramRecord | null]> = [
    ['seed', seed],
    ['best', best],
  ];
  for (const split of ['val', 'test'] as const) {
    for (const [role, p] of roles) {
      if (!p) continue;
      const traces = split === 'val' ? archive.traces(p.id) : officialTraces(archive, p.id);
      if (traces && traces.length > 0) {
        const s = summarize(traces);
        const perCategory = Object.fromEntries(Object.entries(s.perCategory).map(([c, b]) => [c, metrics(b)]));
        out.push({ split, role, program: p.id, source: 'traces', overall: metrics(s), perCategory });
        continue;
      }
      const recorded = split === 'test' ? (archive.testScores().get(p.id) ?? null) : null;
      if (recorded) out.push({ split, role, program: p.id, source: 'summary', overall: fromRecorded(recorded), perCategory: {} });
    }
  }
  return out;
}

function fromRecorded(t: TestScores): Metrics {
  const m = t.metrics;
  return {
    n: t.n,
    accuracy: m.accuracy ?? null,
    f1: m.f1 ?? null,
    recallAt10: m['recall@10'] ?? null,
    contextRecall: m.contextRecall ?? null,
    locomoF1: m.locomoF1 ?? null,
    marginalUtility: m.marginalUtility ?? null,
  };
}

/**
 * Tokens by role. A program's cost holds its proposal's tokens plus its validation run's; the validation share is
 * the sum of its traces' `llmTokens`, so the proposer's share is the rest. Traces are only read when tokens were spent.
 */
function costOf(archive: Archive, programs: readonly ProgramRecord[]): ReportData['cost'] {
  const propose = { prompt: 0, completion: 0, ms: 0 };
  const evaluate = { prompt: 0, completion: 0, ms: 0 };
  let dollars = 0;
  const perIteration = new Map<number, { iteration: number; proposeMs: number; evaluateMs: number; tokens: number }>();
  for (const p of programs) {
    let ep = 0;
    let ec = 0;
    if (p.cost.promptTokens + p.cost.completionTokens > 0) {
      for (const t of archive.traces(p.id) ?? []) {
        ep += t.llmTokens?.prompt ?? 0;
        ec += t.llmTokens?.completion ?? 0;
      }
    }
    ep = Math.min(ep, p.cost.promptTokens);
    ec = Math.min(ec, p.cost.completionTokens);
    evaluate.prompt += ep;
    evaluate.completion += ec;
    propose.prompt += p.cost.promptTokens - ep;
    propose.completion += p.cost.completionTokens - ec;
    propose.ms += p.cost.proposeMs ?? 0;
    evaluate.ms += p.cost.evaluateMs ?? 0;
    dollars += p.cost.dollars;
    const it = perIteration.get(p.iteration) ?? { iteration: p.iteration, proposeMs: 0, evaluateMs: 0, tokens: 0 };
    it.proposeMs += p.cost.proposeMs ?? 0;
    it.evaluateMs += p.cost.evaluateMs ?? 0;
    it.tokens += p.cost.promptTokens + p.cost.completionTokens;
    perIteration.set(p.iteration, it);
  }
  const models = archive.manifest.models;
  const tokens = (r: { prompt: number; completion: number }) => r.prompt + r.completion;
  const totalTokens = tokens(propose) + tokens(evaluate);
  // Dollars are recorded per program, not per role: a role's share is known only when the other role spent nothing.
  const dollarsFor = (mine: number, other: number): number | null => (mine === 0 ? 0 : dollars > 0 && other === 0 ? dollars : null);
  const row = (role: string, model: string, r: typeof propose, d: number | null): CostRow => ({
    role,
    model,
    promptTokens: r.prompt,
    completionTokens: r.completion,
    dollars: d,
    ms: r.ms,
  });
  const answerModel = [models.answerer, models.judge && models.judge !== models.answerer ? `judge ${models.judge}` : undefined]
    .filter(Boolean)
    .join(', ');
  const roles = [
    row('proposer', models.proposer ?? 'unknown', propose, dollarsFor(tokens(propose), tokens(evaluate))),
    row('answerer (validation runs)', answerModel || 'unknown', evaluate, dollarsFor(tokens(evaluate), tokens(propose))),
  ];
  const total = row(
    'total',
    '',
    { prompt: propose.prompt + evaluate.prompt, completion: propose.completion + evaluate.completion, ms: propose.ms + evaluate.ms },
    totalTokens === 0 ? 0 : dollars > 0 ? dollars : null,
  );
  const notes = ['Training-split evaluations behind each diagnosis and the final official-test evaluation are not metered in the archive.'];
  if (totalTokens > 0 && dollars === 0) notes.push('Tokens were spent but no prices were recorded: dollars are unknown.');
  return { roles, total, perIteration: [...perIteration.values()].sort((a, b) => a.iteration - b.iteration), notes };
}
