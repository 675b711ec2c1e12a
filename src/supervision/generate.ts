import type { SourceRecord } from '../../sandbox/contract.ts';
import type { History, QAItem } from '../history/record.ts';
import type { LlmClient } from '../llm/types.ts';
import { MemsteerError } from '../errors.ts';
import { DEFAULT_GENERATE_ITEMS, DEFAULT_RNG_SEED, DEFAULT_VAL_SHARE } from '../config/run-options.ts';
import { sampleBundles, type Bundle } from './bundles.ts';
import { toQAItem, type BundleProcessor } from './candidate.ts';
import { Deduper } from './dedupe.ts';
import { createLlmProcessor } from './llm-generator.ts';
import { createOfflineBlindReader } from './offline-reader.ts';
import { createOfflineProcessor } from './offline-generator.ts';
import { QUESTION_TYPES, type QuestionType } from './plan.ts';
import { ProgressStore } from './progress-store.ts';
import { buildRecordGraph, type RecordGraphOptions } from './record-graph.ts';
import { createRng, hashString, shortHash } from './rng.ts';
import { createRuleContext, factSeedWeight, RULE_BASED_TYPES } from './rule-based/generator.ts';
import { splitByBundle } from './split.ts';
import { emptyStats, mergeStats, stageRows, type GenerationSummary, type RunStats } from './summary.ts';

/** Progress of a run, for a progress bar. */
export interface GenerateProgress {
  kept: number;
  target: number;
  bundlesDone: number;
  bundlesPlanned: number;
}

/** Options of {@link generateSupervision}. */
export interface GenerateOptions {
  /** Target number of kept items. Default 400. */
  n?: number;
  /** Share of items in the validation split. Default 0.4. */
  val?: number;
  /** Largest share of the target one question type may take (default 0.35; ignored with a single type). */
  maxTypeShare?: number;
  /** Question types to mix (default: all the mode supports). */
  types?: QuestionType[];
  /** `llm` needs `llm`; `offline` is the rule-based generator. */
  mode: 'offline' | 'llm';
  llm?: LlmClient;
  /** Stop starting bundles once this many tokens (prompt + completion) were spent. */
  budgetTokens?: number;
  seed?: number;
  /** Token budget of one bundle. Default 2500 (LLM) / 1800 (offline). */
  bundleTokens?: number;
  graph?: RecordGraphOptions;
  /** Items per bundle offline. Default 3. */
  perBundle?: number;
  /**
   * Offline only. `false` skips the generator's checks (plan checks, question checks, offline blind reader) and
   * keeps every templated candidate whose quotes locate in their records (spans are still recorded): the
   * "without checks" arm of the supervision ablation. Default true.
   */
  checks?: boolean;
  /** The journal that makes the run resumable (usually `<out>.progress.jsonl`); none when absent. */
  progressFile?: string;
  onProgress?: (p: GenerateProgress) => void;
  logger?: (message: string) => void;
}

export interface GenerateResult {
  items: QAItem[];
  summary: GenerationSummary;
}

/**
 * Turns one history into checked question–answer–evidence supervision: record graph → bundles spread over the
 * history → per bundle, plan → checks → question → checks → (audit) → blind recovery → de-duplication; then a
 * train/val split by bundle and a summary. Offline it runs the rule-based generator; with an LLM client the
 * planner/questioner/auditor/reader roles. With `progressFile`, finished bundles are journaled and a re-run with
 * the same settings continues where the last one stopped (no paid call is repeated for a finished bundle).
 */
/** Rounds of fresh bundles before a history counts as exhausted (later rounds mostly revisit covered ground). */
const MAX_ROUNDS = 10;

/** Default cap on one question type's share of the items. */
export const DEFAULT_MAX_TYPE_SHARE = 0.35;

export async function generateSupervision(history: History, options: GenerateOptions): Promise<GenerateResult> {
  const started = Date.now();
  const n = options.n ?? DEFAULT_GENERATE_ITEMS;
  const valShare = options.val ?? DEFAULT_VAL_SHARE;
  if (!(valShare >= 0 && valShare < 1)) throw new MemsteerError('E_BAD_OPTION', `--val must be in [0, 1), got ${valShare}`);
  const supported = options.mode === 'offline' ? RULE_BASED_TYPES : QUESTION_TYPES;
  const types = (options.types?.length ? options.types : supported).filter((t) => supported.includes(t));
  if (!types.length) {
    throw new MemsteerError(
      'E_BAD_OPTION',
      `none of the requested types can be generated ${options.mode === 'offline' ? 'offline' : 'by the LLM'}; use ${supported.join(', ')}`,
    );
  }
  const seed = options.seed ?? DEFAULT_RNG_SEED;
  const graph = buildRecordGraph(history.records, options.graph);
  const rng = createRng(seed ^ hashString(history.id));

  let processor: BundleProcessor;
  let seedWeight: ((r: SourceRecord, i: number) => number) | undefined;
  if (options.mode === 'offline') {
    const ctx = createRuleContext(graph);
    seedWeight = factSeedWeight(ctx);
    processor = createOfflineProcessor({
      graph,
      ctx,
      reader: createOfflineBlindReader(),
      rng,
      perBundle: options.perBundle ?? 3,
      checks: options.checks ?? true,
    });
  } else {
    if (!options.llm)
      throw new MemsteerError('E_NO_LLM', 'LLM mode needs a configured model: set OPENAI_API_KEY / OPENAI_BASE_URL, or pass --offline');
    processor = createLlmProcessor({ graph, llm: options.llm, history: history.id });
  }

  const run = shortHash(
    JSON.stringify({
      h: history.id,
      r: history.records.length,
      mode: options.mode,
      gen: processor.generator,
      prompts: processor.prompts,
      types,
      seed,
      bt: options.bundleTokens,
      g: options.graph ?? {},
      ...(options.checks === false ? { checks: false } : {}),
    }),
  );
  const store = options.progressFile ? new ProgressStore(options.progressFile, run) : undefined;
  const stats = emptyStats();
  const deduper = new Deduper();
  const kept: Array<{ item: QAItem; bundle: string }> = [];
  const typeCounts = new Map<QuestionType, number>(types.map((t) => [t, 0]));
  const typeCap = types.length === 1 ? n : Math.ceil(n * (options.maxTypeShare ?? DEFAULT_MAX_TYPE_SHARE));
  const finished = new Set<string>();
  let resumedBundles = 0;
  for (const line of store?.load() ?? []) {
    if (finished.has(line.bundle)) continue;
    finished.add(line.bundle);
    resumedBundles++;
    mergeStats(stats, line.stats);
    for (const item of line.items) {
      deduper.add(item);
      kept.push({ item, bundle: line.bundle });
      const t = item.category as QuestionType;
      typeCounts.set(t, (typeCounts.get(t) ?? 0) + 1);
    }
  }

  const perBundleGuess = options.mode === 'offline' ? 1.2 : 0.5;
  const bundleTokens = options.bundleTokens ?? (options.mode === 'offline' ? 1800 : 2500);
  let budgetExhausted = false;
  let bundlesDone = finished.size;
  const seenBundles = new Set<string>();
  let planned = 0;
  // Rounds of fresh bundles until the target is met or the history stops yielding.
  for (let round = 0; round < MAX_ROUNDS && kept.length < n && !budgetExhausted; round++) {
    const want = Math.ceil((n - kept.length) / perBundleGuess) + 10;
    const bundles: Bundle[] = sampleBundles(graph, {
      count: want,
      tokenBudget: bundleTokens,
      seed: seed + round * 7919 + hashString(history.id),
      ...(seedWeight ? { seedWeight } : {}),
    });
    const fresh = bundles.filter((b) => !seenBundles.has(b.id));
    if (!fresh.length) break;
    planned += fresh.length;
    let yielded = 0;
    for (const bundle of fresh) {
      if (kept.length >= n) break;
      seenBundles.add(bundle.id);
      if (finished.has(bundle.id)) continue;
      if (options.budgetTokens !== undefined && stats.tokens.prompt + stats.tokens.completion >= options.budgetTokens) {
        budgetExhausted = true;
        break;
      }
      // Most-wanted types first: the one furthest below an even share. A type at its cap is not asked for, so a
      // history where one template always fires (counting, say) still gets a mix instead of one type.
      const open = (t: QuestionType) => typeCounts.get(t)! < typeCap;
      const order = [...types].filter(open).sort((a, b) => typeCounts.get(a)! - typeCounts.get(b)! || types.indexOf(a) - types.indexOf(b));
      if (order.length === 0) break;
      const local = emptyStats();
      let accepted;
      try {
        accepted = await processor.process(bundle, order, local);
      } catch (err) {
        if ((err as MemsteerError).code === 'E_BUDGET') {
          mergeStats(stats, local);
          budgetExhausted = true;
          break;
        }
        throw err;
      }
      const items: QAItem[] = [];
      for (const a of accepted) {
        if (!open(a.type)) continue;
        local.stages.dedupe.in++;
        const item = toQAItem(history.id, processor.generator, bundle, a);
        if (!deduper.add(item)) {
          local.rejections['dedupe:near-duplicate'] = (local.rejections['dedupe:near-duplicate'] ?? 0) + 1;
          continue;
        }
        local.stages.dedupe.out++;
        items.push(item);
        typeCounts.set(a.type, typeCounts.get(a.type)! + 1);
      }
      mergeStats(stats, local);
      store?.append(bundle.id, items, local);
      finished.add(bundle.id);
      bundlesDone++;
      yielded += items.length;
      for (const item of items) kept.push({ item, bundle: bundle.id });
      options.onProgress?.({ kept: Math.min(kept.length, n), target: n, bundlesDone, bundlesPlanned: planned + resumedBundles });
    }
    if (yielded === 0 && round > 0) break;
  }

  const chosen = kept.slice(0, n);
  const bundleOf = new Map(chosen.map((k) => [k.item.id, k.bundle]));
  const items = splitByBundle(
    chosen.map((k) => k.item),
    valShare,
    (it) => bundleOf.get(it.id)!,
  );
  const summary = summarise(history.id, processor, options.mode, n, items, stats, graph.records.length, graph.edgeCounts, {
    bundles: bundlesDone,
    budgetExhausted,
    resumedBundles,
    durationMs: Date.now() - started,
  });
  return { items, summary };
}

function summarise(
  history: string,
  processor: BundleProcessor,
  mode: 'offline' | 'llm',
  target: number,
  items: readonly QAItem[],
  stats: RunStats,
  records: number,
  edges: Record<string, number>,
  extra: { bundles: number; budgetExhausted: boolean; resumedBundles: number; durationMs: number },
): GenerationSummary {
  const byType: Record<string, { train: number; val: number }> = {};
  let train = 0;
  let val = 0;
  for (const it of items) {
    const t = (byType[it.category ?? 'unknown'] ??= { train: 0, val: 0 });
    if (it.split === 'val') {
      t.val++;
      val++;
    } else {
      t.train++;
      train++;
    }
  }
  return {
    history,
    generator: processor.generator,
    mode,
    reader: processor.reader,
    prompts: processor.prompts,
    target,
    kept: items.length,
    bundles: extra.bundles,
    split: { train, val },
    byType,
    stages: stageRows(stats),
    rejections: stats.rejections,
    tokens: { ...stats.tokens, promptPerKept: items.length ? Math.round(stats.tokens.prompt / items.length) : 0 },
    graph: { records, edges },
    budgetExhausted: extra.budgetExhausted,
    resumedBundles: extra.resumedBundles,
    durationMs: extra.durationMs,
  };
}
