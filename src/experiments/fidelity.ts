/**
 * Supervision fidelity of a finished run: every candidate that compiled and got a validation score is evaluated on
 * the histories' official questions after the search, and the generated validation's ranking of them is compared
 * with the official one (Kendall τ-b, Spearman ρ, the official regret of picking by validation). Researchers read it
 * to trust or distrust a generator. It never feeds back into the search: the archive's programs, events and traces
 * are only read; the results go to `<run>/fidelity.json` and the evaluations to the run's content-addressed
 * evaluation cache (keys cover program, history, questions, answerer and budget, so no search result can change).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { acquireRunLock, openArchive, type Archive, type ProgramRecord } from '../archive/index.ts';
import { compileDesign } from '../design/compile.ts';
import { InputError } from '../errors.ts';
import { evalAnswererFrom, evalScorerFrom } from '../evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram, type EvalAnswerer, type EvalPool } from '../evaluate/evaluate.ts';
import { loadHistories } from '../history/load.ts';
import { QAItemSchema, type History, type QAItem } from '../history/record.ts';
import { summarize } from '../scoring/summary.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import { readJsonl } from '../util/jsonl.ts';
import { NO_OFFICIAL_TEST } from './cells.ts';
import { historySplit } from './dev-subsets.ts';
import { officialQuestions } from './official-eval.ts';
import { agreementOf, groupAgreement, officialCeiling, splitHalfReliability, tauInterval, type Agreement } from './fidelity-stats.ts';
import { MetricsSchema, type Metrics } from './schemas.ts';
import { searchDecisions, type ValidationItems } from './fidelity-decisions.ts';
import { FIDELITY_FILE, FidelityReportSchema, type FidelityCandidate, type FidelityReport } from './fidelity-schema.ts';
import { partScoresFromSummary } from './scores.ts';

/** Progress while candidates are evaluated. */
export interface FidelityProgress {
  /** 1-based index of the candidate being evaluated, of `candidates` distinct sources. */
  candidate: number;
  candidates: number;
  program: string;
  /** Questions done of this candidate's evaluation. */
  done: number;
  total: number;
}

export interface FidelityOptions {
  /** History source (default: the run's `history`). */
  history?: string;
  /** Histories of `history` when the caller has loaded them already. */
  histories?: readonly History[];
  /** `official` (default) or a QA file (supervision.jsonl layout; every item, whatever its split). */
  questions?: string;
  /** Official categories (default: the run's test categories). */
  categories?: readonly string[];
  /** With official questions: at most this many per history, a fixed sample (see officialQuestions in official-eval.ts). */
  perHistory?: number;
  /** Leave out the development histories (src/experiments/dev-subsets.ts). */
  excludeDev?: boolean;
  /** Context budget (default: the run's). */
  contextBudget?: number;
  jobs?: number;
  /** A pool to evaluate in (the caller closes it); by default one is started and closed here. */
  pool?: EvalPool;
  /** Evaluation cache (default: the run's `eval-cache`). */
  cacheDir?: string;
  onProgress?: (p: FidelityProgress) => void;
  now?: () => Date;
}

/** The history source fidelity reads: `override`, else the run's own. */
export function fidelityHistorySource(run: Archive | string, override?: string): string {
  if (override) return override;
  const archive = typeof run === 'string' ? openArchive(resolve(run)) : run;
  const h = archive.manifest.config.history;
  if (typeof h !== 'string' || !h)
    throw new InputError('E_NO_HISTORY', `${archive.dir}: the run names no history; pass --history <source>`, { file: archive.dir });
  return h;
}

/** Programs that compiled and got a validation score, in search order. */
export function scoredCandidates(archive: Archive): ProgramRecord[] {
  return archive
    .list()
    .filter((p) => p.hasSource && p.scores !== undefined && ['evaluated', 'accepted', 'rejected'].includes(p.status))
    .sort((a, b) => a.iteration - b.iteration || a.attempt - b.attempt);
}

/** The question set fidelity evaluates on. */
export function fidelityQuestions(
  histories: readonly History[],
  questions: string,
  categories: readonly string[],
  perHistory?: number,
): QAItem[] {
  const keep = new Set(categories);
  const ids = new Set(histories.map((h) => h.id));
  const all =
    questions === 'official'
      ? histories.flatMap((h) => officialQuestions(h, { categories, perHistory }))
      : readJsonl(resolve(questions), QAItemSchema).filter((q) => ids.has(q.history));
  const items = all.filter((q) => keep.size === 0 || (q.category !== undefined && keep.has(q.category)));
  if (items.length === 0)
    throw new InputError(
      'E_NO_QUESTIONS',
      questions === 'official'
        ? `no official question${keep.size ? ` in categories ${[...keep].join(',')}` : ''} on ${[...ids].join(', ') || 'no history'}; ` +
            'fidelity needs official QA (or pass --questions <file>)'
        : `${questions}: no question about ${[...ids].join(', ')}${keep.size ? ` in categories ${[...keep].join(',')}` : ''}`,
      questions === 'official' ? {} : { file: questions },
    );
  return items;
}

/** Context recall per question (history + question id); a question whose run failed delivered nothing: 0. */
function recallByQuestion(traces: ReadonlyArray<{ history: string; question: string; scores?: { contextRecall: number } | null }>) {
  return new Map<string, number>(traces.map((t) => [`${t.history}\u0000${t.question}`, t.scores?.contextRecall ?? 0]));
}

/**
 * Context recall per question that has gold evidence and was scored, the questions the official metric averages
 * (summary.ts): differences of these means are differences of the reported official context recall.
 */
function scoredRecallByQuestion(
  traces: ReadonlyArray<{ history: string; question: string; scores?: { contextRecall: number; recallAt: object } | null }>,
) {
  return recallByQuestion(traces.filter((t) => t.scores && Object.keys(t.scores.recallAt).length > 0));
}

/** A candidate's per-item context recall on the validation split, from the traces the search recorded. */
function validationScores(archive: Archive, id: string): Map<string, number> | undefined {
  const traces = archive.traces(id);
  return traces ? recallByQuestion(traces) : undefined;
}

/**
 * The generator template of each of the run's validation items (history + id; an item's `checks.template`, else its
 * question type), or null when the run's supervision file is no longer there.
 */
function validationTemplates(archive: Archive): Map<string, string> | null {
  const supervision = archive.manifest.config.supervision;
  if (typeof supervision !== 'string' || !existsSync(supervision)) return null;
  return new Map<string, string>(
    readJsonl(supervision, QAItemSchema).map((q) => {
      const t = q.checks?.template;
      return [`${q.history}\u0000${q.id}`, typeof t === 'string' ? t : (q.category ?? 'unknown')];
    }),
  );
}

/**
 * Per template of the run's validation items, how the candidates' scores on them rank the candidates against the
 * official context recall. `validation[i]` is distinct candidate i's per-item validation scores (read once by the
 * caller, only under the evidence objective); every candidate needs them.
 */
function templateAgreement(
  templateOf: ReadonlyMap<string, string>,
  distinct: readonly FidelityCandidate[],
  validation: ReadonlyArray<Map<string, number> | undefined>,
): ReturnType<typeof groupAgreement> | null {
  const rows = distinct.map((c, i) => ({ official: c.official?.contextRecall, perItem: validation[i] }));
  if (rows.some((r) => r.perItem === undefined || r.official === null || r.official === undefined)) return null;
  return groupAgreement(
    rows.map((r) => ({ official: r.official!, perItem: r.perItem! })),
    (k) => templateOf.get(k),
  );
}

/**
 * `rows[c]`'s scores on the questions every row has, in one order; null when a row is missing (a candidate without
 * per-question scores leaves the statistics over it undefined rather than being left out).
 */
function sharedMatrix(rows: ReadonlyArray<Map<string, number> | undefined>): number[][] | null {
  if (rows.some((r) => r === undefined)) return null;
  const maps = rows as Map<string, number>[];
  const keys = [...(maps[0]?.keys() ?? [])].filter((k) => maps.every((m) => m.has(k)));
  return maps.map((m) => keys.map((k) => m.get(k)!));
}

/** One candidate's evaluation on the fidelity questions. */
export interface CandidateEvaluation {
  /** Its official metrics, or null when it did not compile (`error` says why). */
  metrics: Metrics | null;
  error: string | null;
  /** Context recall per question (history + NUL + question id); a question whose run failed counts 0. */
  perQuestion: Map<string, number>;
  /** The same over the questions with gold evidence that were scored: those the official metric averages. */
  scoredPerQuestion: Map<string, number>;
}

/** Where and how {@link evaluateCandidates} evaluates. */
export interface CandidateEvaluationOptions {
  histories: readonly History[];
  questions: readonly QAItem[];
  contextBudget: number;
  /** The answerer (default: the offline evaluation answerer); the fidelity report records the id of the one it used. */
  answerer?: EvalAnswerer;
  /** A pool to evaluate in (the caller closes it); by default one is started and closed here. */
  pool?: EvalPool;
  jobs?: number;
  cacheDir: string;
  onProgress?: (p: FidelityProgress) => void;
}

/**
 * Evaluates each program `ids` names (its source from `archive`) on `questions` with the evaluation answerer and
 * scorer, as the fidelity report does: the report and the fixed-pool scripts of bench/results share this loop so that
 * their figures are computed alike.
 */
export async function evaluateCandidates(
  archive: Archive,
  ids: readonly string[],
  options: CandidateEvaluationOptions,
): Promise<Map<string, CandidateEvaluation>> {
  const { histories, questions } = options;
  const answerer = options.answerer ?? evalAnswererFrom(null);
  const scorer = evalScorerFrom(null);
  const pool = options.pool ?? createEvalPool(options.jobs ? { size: options.jobs } : {});
  const out = new Map<string, CandidateEvaluation>();
  try {
    for (const [i, id] of ids.entries()) {
      const compiled = await compileDesign(archive.source(id));
      if (!compiled.ok) {
        const error = `does not compile: ${compiled.diagnostics[0]?.message ?? 'unknown error'}`;
        out.set(id, { metrics: null, error, perQuestion: new Map(), scoredPerQuestion: new Map() });
        continue;
      }
      let last = -1;
      // The evaluation reports group progress too; a candidate's progress moves only when its question count does.
      const progress = (done: number) => {
        if (done === last) return;
        last = done;
        options.onProgress?.({ candidate: i + 1, candidates: ids.length, program: id, done, total: questions.length });
      };
      progress(0);
      const result = await evaluateProgram({
        program: compiled.program,
        histories,
        questions,
        budget: { tokens: options.contextBudget },
        answerer,
        score: scorer.score,
        judgeId: scorer.judgeId,
        summarize,
        pool,
        cacheDir: options.cacheDir,
        onProgress: (p) => progress(p.done),
      });
      progress(questions.length);
      const { perCategory: _c, ...metrics } = partScoresFromSummary(result.summary);
      out.set(id, {
        metrics: MetricsSchema.parse(metrics),
        error: null,
        perQuestion: recallByQuestion(result.traces),
        scoredPerQuestion: scoredRecallByQuestion(result.traces),
      });
    }
  } finally {
    if (!options.pool) await pool.close();
  }
  return out;
}

/** The scored per-question recall of each candidate that was evaluated. */
function scoredPerQuestionOf(evaluations: ReadonlyMap<string, CandidateEvaluation>): Map<string, Map<string, number>> {
  return new Map([...evaluations].flatMap(([id, e]) => (e.metrics ? [[id, e.scoredPerQuestion] as const] : [])));
}

/**
 * Evaluates every scored candidate of the run on official questions and writes `<run>/fidelity.json`. It holds the
 * run's lock meanwhile (a search writing the run refuses it, and it refuses a running search).
 */
export async function computeFidelity(runDir: string, options: FidelityOptions = {}): Promise<FidelityReport> {
  const dir = resolve(runDir);
  if (!existsSync(join(dir, 'manifest.json'))) throw new InputError('E_NO_RUN', `${runDir}: not a run (no manifest.json)`, { file: dir });
  // A search still writing the run would add candidates under the evaluation; a resume must wait for it too.
  const lock = acquireRunLock(dir, { command: 'report --fidelity' });
  try {
    return await fidelityOf(dir, runDir, options);
  } finally {
    lock.release();
  }
}

async function fidelityOf(dir: string, runDir: string, options: FidelityOptions): Promise<FidelityReport> {
  const archive = openArchive(dir);
  const config = archive.manifest.config;
  const history = fidelityHistorySource(archive, options.history);
  const excludeDev = options.excludeDev ?? false;
  const loaded = options.histories ?? (await loadHistories(history));
  const histories = excludeDev ? loaded.filter((h) => historySplit(h.id) === 'heldout') : [...loaded];
  if (histories.length === 0)
    throw new InputError(
      'E_NO_HISTORIES',
      `${history}: no history left${excludeDev ? ' once the development histories are excluded' : ''}`,
    );
  const runCategories = Array.isArray(config.testCategories) ? config.testCategories.map(String) : [];
  const categories = [...(options.categories ?? runCategories.filter((c) => c !== NO_OFFICIAL_TEST))];
  const questionsFrom = options.questions ?? 'official';
  const questions = fidelityQuestions(histories, questionsFrom, categories, options.perHistory);
  const contextBudget = options.contextBudget ?? (typeof config.contextBudget === 'number' ? config.contextBudget : undefined);
  if (!contextBudget) throw new InputError('E_NO_BUDGET', `${runDir}: the run records no context budget; pass one`, { file: dir });

  const programs = scoredCandidates(archive);
  if (programs.length === 0)
    throw new InputError('E_NO_CANDIDATES', `${runDir}: no program of this run has a validation score`, { file: dir });
  const firstByHash = new Map<string, string>();
  for (const p of programs) if (!firstByHash.has(p.contentHash)) firstByHash.set(p.contentHash, p.id);
  const distinctIds = [...firstByHash.values()];

  const answerer = evalAnswererFrom(null);
  const official = await evaluateCandidates(archive, distinctIds, {
    histories,
    questions,
    contextBudget,
    answerer,
    ...(options.pool ? { pool: options.pool } : {}),
    ...(options.jobs ? { jobs: options.jobs } : {}),
    cacheDir: options.cacheDir ?? join(dir, 'eval-cache'),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });

  const candidates: FidelityCandidate[] = programs.map((p) => {
    const first = firstByHash.get(p.contentHash)!;
    const o = official.get(first)!;
    return {
      id: p.id,
      iteration: p.iteration,
      kind: p.kind,
      status: p.status,
      contentHash: p.contentHash,
      parent: p.parent,
      proposer: p.proposer ?? null,
      valFitness: p.scores!.value,
      official: o.metrics,
      sameAs: first === p.id ? null : first,
      error: o.error,
    };
  });
  const distinct = candidates.filter((c) => c.sameAs === null && c.official !== null);
  const agreement = (metric: 'contextRecall' | 'recallAt10'): Agreement =>
    agreementOf(
      distinct.flatMap((c) => {
        const v = c.official?.[metric];
        return v === null || v === undefined ? [] : [{ id: c.id, val: c.valFitness, official: v }];
      }),
    );
  const contextRecall = agreement('contextRecall');
  const state = archive.loadState();
  const runBest = state.best?.id ?? null;
  const runBestCandidate = candidates.find((c) => c.id === runBest);
  const bestCtx = contextRecall.regret?.bestOfficialScore;
  const runBestCtx = runBestCandidate?.official?.contextRecall;
  const objective = String(config.objective ?? programs[0]!.scores!.objective);
  // Validation per item is the fitness only for the evidence objective (context recall of the generated evidence).
  const validation = objective === 'evidence' ? distinct.map((c) => validationScores(archive, c.id)) : null;
  // Per-question scores over the questions every candidate has, built once for the statistics that resample them.
  const officialMatrix = sharedMatrix(distinct.map((c) => official.get(c.id)?.perQuestion));
  const validationMatrix = validation ? sharedMatrix(validation) : null;
  const templateOf = validation ? validationTemplates(archive) : null;
  const categoryOf = new Map(questions.map((q) => [`${q.history}\u0000${q.id}`, q.category ?? 'unknown']));
  const validationItems: ValidationItems | undefined =
    validation && templateOf
      ? {
          perItem: new Map(distinct.flatMap((c, i) => (validation[i] ? [[c.id, validation[i]] as const] : []))),
          templateOf: (k) => templateOf.get(k),
        }
      : undefined;
  const report = FidelityReportSchema.parse({
    format: 1,
    run: archive.manifest.run,
    computedAt: (options.now ?? (() => new Date()))().toISOString(),
    history,
    questions: questionsFrom,
    categories,
    perHistory: options.perHistory ?? null,
    excludeDev,
    histories: histories.map((h) => h.id),
    devHistories: histories.filter((h) => historySplit(h.id) === 'dev').map((h) => h.id),
    questionCount: questions.length,
    objective,
    contextBudget,
    answerer: answerer.id,
    runBest,
    candidates,
    distinct: distinct.length,
    contextRecall,
    recallAt10: agreement('recallAt10'),
    runBestRegret: bestCtx !== undefined && runBestCtx !== null && runBestCtx !== undefined ? Math.max(0, bestCtx - runBestCtx) : null,
    reliability: {
      official: officialMatrix ? splitHalfReliability(officialMatrix) : null,
      validation: validationMatrix ? splitHalfReliability(validationMatrix) : null,
    },
    officialCeiling: officialMatrix ? officialCeiling(officialMatrix) : null,
    tauInterval: validationMatrix && officialMatrix ? tauInterval(validationMatrix, officialMatrix) : null,
    byTemplate: validation && templateOf ? templateAgreement(templateOf, distinct, validation) : null,
    decisions: officialMatrix
      ? searchDecisions(candidates, scoredPerQuestionOf(official), {
          ...(validationItems ? { validation: validationItems } : {}),
          officialCategoryOf: (k) => categoryOf.get(k),
        })
      : null,
  });
  writeFileAtomic(join(dir, FIDELITY_FILE), `${JSON.stringify(report, null, 2)}\n`);
  return report;
}
