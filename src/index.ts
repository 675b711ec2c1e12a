/**
 * memsteer's public entry (`import … from 'memsteer'`).
 *
 * Apps: `createMemory` runs an exported design behind a Mem0-like `add` / `search`.
 * Researchers: the pipeline's library functions, each the one the CLI calls: load histories → generate supervision →
 * compile designs → evaluate them in the sandbox pool → optimize → read the run's archive → export.
 * Designs themselves import their types from `memsteer/contract`.
 */

// ── apps: the runtime ──
export {
  createMemory,
  DEFAULT_CONTEXT_BUDGET,
  type AddResult,
  type CreateMemoryOptions,
  type EvidenceItem,
  type Memory,
  type MemoryInfo,
  type MemoryQuery,
  type SearchResult,
} from './runtime/create-memory.ts';
export { DesignError } from './runtime/design-error.ts';

// ── errors ──
export { MemsteerError, InputError, ConfigError } from './errors.ts';

// ── the design contract's types (`Memory` there is a design's stored memory) ──
export type {
  Bm25Index,
  Bm25Options,
  Budget,
  Context,
  EmbedTool,
  Hit,
  LlmMessage,
  LlmTool,
  Memory as DesignMemory,
  MemoryDesign,
  MemoryUnit,
  Question,
  SourceRecord,
  TextTool,
  Tools,
} from '../sandbox/contract.ts';

// ── histories ──
export {
  loadHistories,
  loadHistoriesSync,
  parseSource,
  summarizeHistories,
  DEFAULT_SOURCE,
  QAItemSchema,
  SourceRecordSchema,
  type History,
  type QAItem,
  type Evidence,
  type LoadHistoriesOptions,
} from './history/index.ts';

// ── supervision ──
export { generateSupervision, type GenerateOptions, type GenerateResult, type GenerateProgress } from './supervision/generate.ts';

// ── designs: compile and sandbox ──
export { compileDesign, programHash } from './design/compile.ts';
export { createSandbox } from './isolate/sandbox-runner.ts';
export { createHostTools } from './isolate/host-tools/host-tools.ts';
export {
  DEFAULT_SANDBOX_LIMITS,
  type CompiledProgram,
  type CompileDiagnostic,
  type CompileOptions,
  type CompileResult,
  type HostTools,
  type HostToolsOptions,
  type LlmCompleter,
  type RemoteEmbedder,
  type Sandbox,
  type SandboxLimits,
} from './isolate/sandbox-api.ts';

// ── evaluation ──
export {
  createEvalPool,
  evaluateProgram,
  type EvalAnswerer,
  type EvalPool,
  type EvalPoolOptions,
  type EvalProgress,
  type EvaluateOptions,
  type EvaluationResult,
  type EvaluationStats,
} from './evaluate/evaluate.ts';
export { evalAnswererFrom, evalScorerFrom, summarizeTraces } from './evaluate/eval-adapters.ts';
// ── evaluation on other machines: memsteer workers on a Redis queue (createEvalPool({ queue }) is the coordinator) ──
export { startQueueWorker, type QueueWorker, type QueueWorkerOptions } from './pool/queue-worker.ts';
export { QueueError } from './pool/queue-connection.ts';
export type { QueueStatus } from './pool/queue-pool.ts';
export { summarize, type EvalSummary } from './scoring/summary.ts';
export type { QuestionTrace, QuestionScores, StageFailure, FailureKind } from './scoring/trace.ts';

// ── optimization and its archive ──
export {
  runOptimize,
  OptimizeConfigSchema,
  type OptimizeConfig,
  type OptimizeConfigInput,
  type OptimizeOptions,
  type OptimizeReport,
} from './optimize/run-optimize.ts';
export { runCompare, type CompareReport } from './optimize/compare.ts';
export { runBench, BenchConfigSchema, type BenchReport, type BenchConfig } from './experiments/index.ts';
export {
  openArchive,
  createArchive,
  type Archive,
  type ProgramRecord,
  type Manifest,
  type Scores,
  type SearchState,
} from './archive/index.ts';
export { acquireRunLock, readRunLock, RunLockedError, type RunLock, type RunLockHolder } from './archive/run-lock.ts';
export { searchSplitsOnly, type SearchEvaluator } from './optimize/candidate-evaluator.ts';

// ── export of a winning design ──
export { exportDesign, type ExportOptions, type ExportResult } from './export/export-design.ts';
export { ExportManifestSchema, type ExportManifest } from './export/design-manifest.ts';
export { testScoresEvent, readTestScores, TEST_SCORES_NOTE, type TestScores } from './export/test-scores.ts';

// ── LLM client ──
export { createLlmClient, openLlmClient, type LlmClient, type MeteredLlmClient, type LlmConfig, type LlmConfigInput } from './llm/index.ts';
