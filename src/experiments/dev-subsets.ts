/**
 * The development subset of each benchmark: the only histories whose official questions and answers calibration
 * (bench/ scripts, reading examples, heuristics) may look at. Everything else is held out: it is only ever scored,
 * and results report it apart from the development histories, so a held-out number was never tuned on.
 */

/** Development histories per benchmark, by history id (the loaders' ids). */
export const DEV_SUBSETS = {
  /** LoCoMo conversations (`locomo10.json` sample ids). */
  locomo: ['conv-26', 'conv-30'],
  /** RHELM personas; not the embedded default persona Elena_Morales, which `npm start` tests on. */
  rhelm: ['Jonas_Richter', 'Justice_Arvind_Prakash_Mehra'],
  /** LongMemEval sample histories (one per question). */
  longmemeval: ['6a1eabeb', 'single-sessi-21436231', 'multi-sessio-157a136e'],
} as const satisfies Record<string, readonly string[]>;

/** A benchmark that has a development subset. */
export type DevBenchmark = keyof typeof DEV_SUBSETS;

/** Whether a history is in the development or the held-out part of its benchmark. */
export type HistorySplit = 'dev' | 'heldout';

const DEV_IDS: ReadonlySet<string> = new Set(Object.values(DEV_SUBSETS).flat());

/** 'dev' for a history of a development subset (ids are distinct across the benchmarks), else 'heldout'. */
export function historySplit(historyId: string): HistorySplit {
  return DEV_IDS.has(historyId) ? 'dev' : 'heldout';
}

/** Keeps the development histories of `benchmark` (calibration scripts read only these). */
export function devOnly<T extends { id: string }>(benchmark: DevBenchmark, histories: readonly T[]): T[] {
  const keep = new Set<string>(DEV_SUBSETS[benchmark]);
  return histories.filter((h) => keep.has(h.id));
}

/** "conv-26, conv-30": the development histories of a benchmark, for table titles and notes. */
export function devLabel(benchmark: DevBenchmark): string {
  return DEV_SUBSETS[benchmark].join(', ');
}
