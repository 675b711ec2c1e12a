export { runBench, type BenchReport } from './run-bench.ts';
export { BenchConfigSchema, DATASETS, type BenchConfig, type BenchConfigInput, type DatasetInfo } from './bench-config.ts';
export type { BenchEvent } from './context.ts';
export * from './schemas.ts';
export { markdownTable, experimentMarkdown, readmeMarkdown } from './markdown.ts';
export { officialSupervision, budgetSubset, hashSplit, generatedSupervision } from './supervision-sets.ts';
export { DEV_SUBSETS, devLabel, devOnly, historySplit, type DevBenchmark, type HistorySplit } from './dev-subsets.ts';
export {
  ARTEFACTS_DIR,
  ArtefactIndexSchema,
  RunArtefactSchema,
  artefactsMarkdown,
  writeArtefacts,
  type ArtefactIndex,
  type RunArtefact,
  type UsedCell,
} from './artefacts.ts';
export { computeFidelity, fidelityQuestions, scoredCandidates, type FidelityOptions, type FidelityProgress } from './fidelity.ts';
export {
  FIDELITY_FILE,
  FidelityCandidateSchema,
  FidelityReportSchema,
  readFidelity,
  type FidelityCandidate,
  type FidelityReport,
} from './fidelity-schema.ts';
export { agreementOf, averageRanks, kendallTauB, pairCounts, regretOf, spearman, type Agreement, type Regret } from './fidelity-stats.ts';
