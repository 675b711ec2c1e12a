/**
 * What every experiment works with: the configuration, the workspace, the loaded histories, the Base-BM25
 * seed, generated supervision, optimization cells and official evaluation, with progress reported as events.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadHistories } from '../history/load.ts';
import type { History, QAItem } from '../history/record.ts';
import type { FeedbackMode } from '../optimize/search-loop.ts';
import { DEFAULT_FEEDBACK } from '../config/run-options.ts';
import type { UsedCell } from './artefacts.ts';
import { DATASETS, type BenchConfig } from './bench-config.ts';
import { runCell, type CellResult } from './cells.ts';
import { createOfficialEvaluator, type OfficialEvaluation, type OfficialEvaluator } from './official-eval.ts';
import type { QueueStatus } from '../pool/queue-pool.ts';
import { queueRunId } from '../pool/queue-wire.ts';
import type { BenchDataset, BenchFidelity, DesignRef, ExperimentName } from './schemas.ts';
import { sha256 } from '../archive/index.ts';
import { createEvalPool, type EvalPool } from '../evaluate/evaluate.ts';
import { historySplit } from './dev-subsets.ts';
import { computeFidelity } from './fidelity.ts';
import { generatedSupervision, type GeneratedSpec } from './supervision-sets.ts';
import type { Workspace } from './workspace.ts';

/** Progress of a bench run (the library never prints; the CLI shows these). */
export type BenchEvent =
  | { type: 'experiment'; experiment: ExperimentName; phase: 'start' | 'done'; seconds?: number }
  | { type: 'step'; experiment: ExperimentName; message: string }
  | { type: 'search'; cell: string; iteration: number; iterations: number; bestScore: number; accepted: number }
  | { type: 'evaluate'; label: string; done: number; total: number }
  /** With `--queue`: workers connected and groups waiting for one (every second while groups are out). */
  | { type: 'queue'; workers: number; waiting: number };

export const BASE_BM25_PATH = fileURLToPath(new URL('../../seeds/base-bm25.ts', import.meta.url));

/** What a cell needs beyond the context's defaults. */
export interface CellRequest {
  name: string;
  dataset: BenchDataset;
  supervision: readonly QAItem[];
  seedSource?: string;
  feedback?: FeedbackMode;
}

const sortedById = (hs: readonly History[]): History[] => [...hs].sort((a, b) => a.id.localeCompare(b.id));

export class BenchContext {
  readonly baseSource: string;
  readonly official: OfficialEvaluator;
  private readonly loaded = new Map<BenchDataset, Promise<History[]>>();
  private readonly used: UsedCell[] = [];
  private experiment: ExperimentName = 'main';
  private fidelityPool: EvalPool | null = null;

  constructor(
    readonly config: BenchConfig,
    readonly ws: Workspace,
    private readonly onEvent: (e: BenchEvent) => void = () => {},
    preloaded: ReadonlyMap<BenchDataset, readonly History[]> = new Map(),
  ) {
    for (const [dataset, hs] of preloaded) this.loaded.set(dataset, Promise.resolve(this.kept(hs)));
    this.baseSource = readFileSync(BASE_BM25_PATH, 'utf8');
    this.official = createOfficialEvaluator({
      cacheDir: ws.cacheDir,
      contextBudget: config.contextBudget,
      ...(config.jobs ? { jobs: config.jobs } : {}),
      ...(config.queue
        ? {
            queue: {
              url: config.queue,
              runId: queueRunId(ws.cacheDir),
              onStatus: (s: QueueStatus) => this.emit({ type: 'queue', workers: s.workers, waiting: s.waiting }),
            },
          }
        : {}),
    });
  }

  emit(e: BenchEvent): void {
    if (e.type === 'experiment' && e.phase === 'start') this.experiment = e.experiment;
    this.onEvent(e);
  }

  step(message: string): void {
    this.emit({ type: 'step', experiment: this.experiment, message });
  }

  source(dataset: BenchDataset): string {
    const d = this.config.datasets.find((x) => x.id === dataset);
    if (!d) throw new Error(`dataset ${dataset} is not configured`);
    return d.source;
  }

  /** The histories the bench works on, in name order: without the development ones under `excludeDev`. */
  private kept(hs: readonly History[]): History[] {
    return sortedById(this.config.excludeDev ? hs.filter((h) => historySplit(h.id) === 'heldout') : hs);
  }

  /** The dataset's histories (loaded once), in name order (held-out ones only under `excludeDev`). */
  histories(dataset: BenchDataset): Promise<History[]> {
    let h = this.loaded.get(dataset);
    if (!h) {
      h = loadHistories(this.source(dataset)).then((hs) => this.kept(hs));
      this.loaded.set(dataset, h);
    }
    return h;
  }

  /** Generated supervision for `histories` (defaults: the main settings). */
  generated(histories: readonly History[], spec: Partial<GeneratedSpec> = {}): Promise<QAItem[]> {
    const full: GeneratedSpec = {
      perHistory: this.config.perHistory,
      valShare: this.config.valShare,
      checks: true,
      seed: this.config.rngSeed,
      ...spec,
    };
    return generatedSupervision(this.ws.generatedDir, histories, full, (h) =>
      this.step(`generating ${full.perHistory} items for ${h}${full.checks ? '' : ' (without checks)'}`),
    );
  }

  /** Runs (or reuses) one optimization. */
  async cell(r: CellRequest): Promise<CellResult> {
    this.step(`optimizing ${r.name}`);
    const iterations = this.config.iterations;
    const result = await runCell(
      this.ws,
      {
        name: r.name,
        history: this.source(r.dataset),
        supervision: r.supervision,
        seedSource: r.seedSource ?? this.baseSource,
        feedback: r.feedback ?? DEFAULT_FEEDBACK,
        iterations,
        rngSeed: this.config.rngSeed,
        contextBudget: this.config.contextBudget,
        ...(this.config.jobs ? { jobs: this.config.jobs } : {}),
        ...(this.config.queue ? { queue: this.config.queue } : {}),
      },
      (e) => {
        if (e.type === 'iteration')
          this.emit({ type: 'search', cell: r.name, iteration: e.iteration, iterations, bestScore: e.bestScore, accepted: e.accepted });
      },
      (s) => this.emit({ type: 'queue', workers: s.workers, waiting: s.waiting }),
    );
    if (result.reused) this.step(`reused ${r.name} (${result.run})`);
    this.used.push({ request: r.name, result });
    return result;
  }

  /** Every optimization the experiments asked for so far, in order (the runs behind the tables' rows). */
  usedCells(): readonly UsedCell[] {
    return this.used;
  }

  /** Official-QA scores of a design on `histories` (the dataset's test categories). */
  evaluate(label: string, dataset: BenchDataset, source: string, histories: readonly History[]): Promise<OfficialEvaluation> {
    const perHistory = dataset === 'rhelm' ? (this.config.rhelmTestPerPersona ?? undefined) : undefined;
    return this.official.evaluate(source, histories, { categories: DATASETS[dataset].testCategories, perHistory }, (done, total) =>
      this.emit({ type: 'evaluate', label, done, total }),
    );
  }

  /**
   * Supervision fidelity of an optimized cell's run on `histories`' official questions (the dataset's test
   * categories and RHELM sample): every scored candidate evaluated after the search, over the held-out histories
   * (the development ones only when there is no other). Also written to the run's fidelity.json.
   */
  async fidelity(cell: CellResult, dataset: BenchDataset, histories: readonly History[]): Promise<BenchFidelity> {
    const heldout = histories.filter((h) => historySplit(h.id) === 'heldout');
    const part = heldout.length ? 'heldout' : 'dev';
    const on = heldout.length ? heldout : histories;
    const which = `${on.length} ${part === 'dev' ? 'development' : 'held-out'} ${on.length === 1 ? 'history' : 'histories'}`;
    this.step(`fidelity of ${cell.name}: every candidate on the official QA of ${which}`);
    this.fidelityPool ??= createEvalPool(this.config.jobs ? { size: this.config.jobs } : {});
    const perHistory = dataset === 'rhelm' ? (this.config.rhelmTestPerPersona ?? undefined) : undefined;
    const f = await computeFidelity(join(this.ws.out, cell.run), {
      history: this.source(dataset),
      histories: on,
      categories: DATASETS[dataset].testCategories,
      ...(perHistory ? { perHistory } : {}),
      contextBudget: this.config.contextBudget,
      pool: this.fidelityPool,
      cacheDir: this.ws.cacheDir,
      onProgress: (p) =>
        this.emit({ type: 'evaluate', label: `${cell.name} candidate ${p.candidate}/${p.candidates}`, done: p.done, total: p.total }),
    });
    return {
      part,
      histories: on.length,
      questions: f.questionCount,
      candidates: f.candidates.length,
      distinct: f.distinct,
      contextRecall: f.contextRecall,
      recallAt10: f.recallAt10,
      ceiling: f.officialCeiling?.meanTauB ?? null,
      decisions: f.decisions ? { agree: f.decisions.agree, disagree: f.decisions.disagree, unclear: f.decisions.unclear } : null,
    };
  }

  /** What the official test of `dataset` is, for the notes. */
  testNote(dataset: BenchDataset): string {
    if (dataset === 'locomo') return 'LoCoMo: official categories 1–4 (multi-hop, temporal, open-domain, single-hop)';
    const k = this.config.rhelmTestPerPersona;
    const questions =
      k === null
        ? 'every official question'
        : `a fixed sample of at most ${k} official questions per persona (the first in hash order of the id; all question types)`;
    return `RHELM: ${questions}, answered from the history up to the question's date (memory built per question date)`;
  }

  async close(): Promise<void> {
    await this.official.close();
    await this.fidelityPool?.close();
    this.fidelityPool = null;
  }
}

/** The design reference of an optimized cell. */
export function cellRef(c: CellResult): DesignRef {
  return {
    program: c.best.id,
    run: c.run,
    valFitness: c.best.valFitness,
    accepted: c.accepted,
    proposals: c.proposals,
    contentHash: sha256(c.bestSource),
  };
}

/** The design reference of Base-BM25 (not optimized here). */
export const BASE_REF: DesignRef = { program: 'seeds/base-bm25.ts', run: null, valFitness: null, accepted: null, proposals: null };
