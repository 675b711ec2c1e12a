// The history layer's public API: sources, loaders, summaries and the embedded default.
export * from './record.ts';
export { parseSource, detectFormat, formatSource, FORMATS, type HistoryFormat, type SourceSpec } from './source.ts';
export { loadHistories, loadHistoriesSync, loadHistoriesFromSpec, type LoadHistoriesOptions } from './load.ts';
export { writeRecordsJsonl, loadRecordsJsonl } from './loaders/jsonl.ts';
export { loadLocomo, LOCOMO_UNANSWERABLE } from './loaders/locomo.ts';
export { loadRhelm, loadRhelmPersona, rhelmPersonas } from './loaders/rhelm.ts';
export { loadLongMemEval } from './loaders/longmemeval.ts';
export { loadMemoryBank } from './loaders/memorybank.ts';
export {
  summarizeHistory,
  summarizeHistories,
  HistorySummarySchema,
  HistoriesSummarySchema,
  type HistorySummary,
  type HistoriesSummary,
} from './summary.ts';
export { DEFAULT_SOURCE, DEFAULT_DATA_DIR } from './default-source.ts';
export { inferAnswerType } from './answer-type.ts';
export { historyWarning, replacementChars, unknownEvidenceWarnings } from './warnings.ts';
export { splitDocument, splitMarkdown, splitHtml, type DocSection } from './document-sections.ts';
