import { z } from 'zod';
import { CalibrationPartSchema } from './calibration.ts';
import { GapTargetReportSchema } from './gap-target.ts';

/** Pipeline stages in order; kept-% is reported for each. */
export const STAGES = ['plan', 'plan-checks', 'question', 'question-checks', 'audit', 'blind', 'dedupe'] as const;
export type Stage = (typeof STAGES)[number];

const Count = z.number().int().nonnegative();

/** The summary a generation run writes next to its supervision file (and the CLI prints). */
export const GenerationSummarySchema = z.object({
  history: z.string(),
  /** `rule-based@1` or `llm:<planner model>…` */
  generator: z.string(),
  mode: z.enum(['offline', 'llm']),
  /** The blind reader that gated the items. */
  reader: z.string(),
  /** Prompt file versions used (LLM mode), and the lexical-gap rules' version and share (both modes). */
  prompts: z.record(z.string(), z.string()),
  target: Count,
  kept: Count,
  bundles: Count,
  split: z.object({ train: Count, val: Count }),
  byType: z.record(z.string(), z.object({ train: Count, val: Count })),
  stages: z.array(z.object({ stage: z.enum(STAGES), in: Count, out: Count, keptPct: z.number() })),
  rejections: z.record(z.string(), Count),
  tokens: z.object({ prompt: Count, completion: Count, calls: Count, cachedCalls: Count, promptPerKept: z.number() }),
  graph: z.object({ records: Count, edges: z.record(z.string(), Count) }),
  /** True when the run stopped at its token budget before reaching the target. */
  budgetExhausted: z.boolean(),
  resumedBundles: Count,
  /**
   * Bundles whose LLM work failed in a way another attempt may fix (an outage, timeouts): journaled as failed, they
   * are processed again by the next run with the same settings.
   */
  failedBundles: Count.default(0),
  durationMs: z.number().nonnegative(),
  /**
   * This history's calibration against its official questions (src/supervision/calibration.ts); the seed's
   * difficulty only when the run was asked for `--report`.
   */
  calibration: CalibrationPartSchema.optional(),
  /** Offline: the no-overlap target the set was brought to, and how many rephrased items kept their first wording. */
  lexicalGap: GapTargetReportSchema.optional(),
});
export type GenerationSummary = z.infer<typeof GenerationSummarySchema>;

/** Counters a run accumulates; also what one bundle's progress line carries. */
export interface RunStats {
  stages: Record<Stage, { in: number; out: number }>;
  rejections: Record<string, number>;
  tokens: { prompt: number; completion: number; calls: number; cachedCalls: number };
}

export const RunStatsSchema = z.object({
  stages: z.record(z.string(), z.object({ in: Count, out: Count })),
  rejections: z.record(z.string(), Count),
  tokens: z.object({ prompt: Count, completion: Count, calls: Count, cachedCalls: Count }),
});

export function emptyStats(): RunStats {
  return {
    stages: Object.fromEntries(STAGES.map((s) => [s, { in: 0, out: 0 }])) as RunStats['stages'],
    rejections: {},
    tokens: { prompt: 0, completion: 0, calls: 0, cachedCalls: 0 },
  };
}

export function reject(stats: RunStats, reason: string): void {
  stats.rejections[reason] = (stats.rejections[reason] ?? 0) + 1;
}

/** Adds `b` into `a`. */
export function mergeStats(a: RunStats, b: z.infer<typeof RunStatsSchema>): void {
  for (const [s, v] of Object.entries(b.stages)) {
    const t = a.stages[s as Stage];
    if (!t) continue;
    t.in += v.in;
    t.out += v.out;
  }
  for (const [r, n] of Object.entries(b.rejections)) a.rejections[r] = (a.rejections[r] ?? 0) + n;
  a.tokens.prompt += b.tokens.prompt;
  a.tokens.completion += b.tokens.completion;
  a.tokens.calls += b.tokens.calls;
  a.tokens.cachedCalls += b.tokens.cachedCalls;
}

export function stageRows(stats: RunStats): GenerationSummary['stages'] {
  return STAGES.map((stage) => {
    const { in: i, out } = stats.stages[stage];
    return { stage, in: i, out, keptPct: i ? Math.round((1000 * out) / i) / 10 : 0 };
  });
}
