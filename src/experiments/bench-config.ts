/** The bench's configuration (validated) and what it knows about each dataset. */
import { z } from 'zod';
import { BenchDataset, ExperimentName, EXPERIMENTS } from './schemas.ts';
import { ContextBudget, Iterations, Jobs, QueueUrl, RngSeed } from '../config/run-options.ts';

export const BenchConfigSchema = z.object({
  /** Results directory (work under `<out>/work`). */
  out: z.string().min(1),
  /** Datasets to run, each with its history source string (`locomo:<file>`, `rhelm:<folder>`). */
  datasets: z.array(z.object({ id: BenchDataset, source: z.string().min(1) })).min(1),
  experiments: z
    .array(ExperimentName)
    .min(1)
    .default([...EXPERIMENTS]),
  /** Search iterations of every optimization run. */
  iterations: Iterations.default(10),
  rngSeed: RngSeed,
  /** Generated items per history for the main and transfer runs (and the LoCoMo ablations). */
  perHistory: z.number().int().positive().default(100),
  valShare: z.number().gt(0).lt(1).default(0.4),
  /** Training-item budgets of the supervision ablation. */
  budgets: z.array(z.number().int().positive()).min(1).default([100, 200, 400]),
  /** RHELM personas the transfer design is optimized on (the first ones in name order); the rest are targets. */
  transferSources: z.number().int().positive().default(4),
  /** RHELM personas the ablations run on (the first ones in name order); LoCoMo ablations use every conversation. */
  ablationPersonas: z.number().int().positive().default(2),
  /** Generated items per RHELM ablation persona (enough training items for the largest budget). */
  ablationPerHistory: z.number().int().positive().default(300),
  /** Validation share of the RHELM ablation supervision (kept small: validation is what every iteration pays for). */
  ablationValShare: z.number().gt(0).lt(1).default(0.25),
  /**
   * RHELM official questions tested per persona (a fixed sample: first in hash order of the id); null = all.
   * RHELM's test builds memory once per question date, which makes it the bench's most expensive step.
   */
  rhelmTestPerPersona: z.number().int().positive().nullable().default(null),
  /** Context budget of the fixed answerer (tokens). */
  contextBudget: ContextBudget,
  /** Sandbox processes per pool (default: one per core). */
  jobs: Jobs,
  /** Evaluate on `memsteer worker`s through this Redis queue instead of local processes. */
  queue: QueueUrl.optional(),
  /**
   * Leave the development histories (src/experiments/dev-subsets.ts) out of every experiment: supervision, searches
   * and tests run on the held-out histories only.
   */
  excludeDev: z.boolean().default(false),
  /**
   * After each optimized row's search, evaluate every candidate of its run on the row's official questions and report
   * how well validation ranked them (Kendall τ-b, Spearman, regret; written to the run's fidelity.json too).
   */
  fidelity: z.boolean().default(false),
  /** Throw away earlier work (generated supervision, runs, evaluation cache) instead of reusing it. */
  fresh: z.boolean().default(false),
});
export type BenchConfig = z.infer<typeof BenchConfigSchema>;
export type BenchConfigInput = z.input<typeof BenchConfigSchema>;

/** How each dataset is tested. */
export interface DatasetInfo {
  label: string;
  /** Official categories in the test (empty: all). */
  testCategories: string[];
  /** Readable names of the categories (table headers). */
  categoryNames: Record<string, string>;
  /** Per-category metric of the main table: LoCoMo's official F1, or token F1. */
  categoryMetric: 'locomoF1' | 'f1';
  /** Official-QA supervision drops question dates (see officialSupervision). */
  dropOfficialDates: boolean;
}

export const DATASETS: Record<BenchDataset, DatasetInfo> = {
  locomo: {
    label: 'LoCoMo',
    testCategories: ['1', '2', '3', '4'],
    categoryNames: { '1': '1 multi-hop', '2': '2 temporal', '3': '3 open-domain', '4': '4 single-hop' },
    categoryMetric: 'locomoF1',
    dropOfficialDates: false,
  },
  rhelm: {
    label: 'RHELM',
    testCategories: [],
    categoryNames: {},
    categoryMetric: 'f1',
    dropOfficialDates: true,
  },
};
