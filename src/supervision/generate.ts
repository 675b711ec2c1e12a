import type { SourceRecord } from '../../sandbox/contract.ts';
import type { History, QAItem } from '../history/record.ts';
import type { LlmClient } from '../llm/types.ts';
import { MemsteerError } from '../errors.ts';
import { DEFAULT_GENERATE_ITEMS, DEFAULT_RNG_SEED, DEFAULT_VAL_SHARE } from '../config/run-options.ts';
import { sampleBundles, type Bundle } from './bundles.ts';
import { toQAItem, type BundleProcessor } from './candidate.ts';
import { Deduper } from './dedupe.ts';
import { holdGapToTarget, type GapTargetReport } from './gap-target.ts';
import { createLlmProcessor, isRetryableLlmFailure } from './llm-generator.ts';
import { createOfflineBlindReader } from './offline-reader.ts';
import { createOfflineProcessor } from './offline-generator.ts';
import { QUESTION_TYPES, type QuestionType } from './plan.ts';
import { ProgressStore, type BundleProgress } from './progress-store.ts';
import { buildRecordGraph, type RecordGraphOptions } from './record-graph.ts';
import { hashString, shortHash } from './rng.ts';
import { createRuleContext, factSeedWeight, RULE_BASED_TYPES } from './rule-based/generator.ts';
import { splitByBundle } from './split.ts';
import { holdGroupShares } from './set-shares.ts';
import { emptyStats, mergeStats, reject, stageRows, type GenerationSummary, type RunStats } from './summary.ts';

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
  /**
   * Offline only: the share of items whose question shares no content word with its evidence (0–1). Default: the
   * calibrated share for the kind of history (rule-based/lexical-gap.ts DEFAULT_GAP_TARGETS).
   */
  gapTarget?: number;
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
 * planner/questioner/auditor/reader roles. With `progressFile`, processed bundles are journaled and a re-run with
 * the same settings continues where the last one stopped (no paid call is repeated for a finished bundle).
 *
 * Resuming is exact: the bundle plan (each round's bundles) depends only on the settings, each bundle's random
 * choices come from its own stream, and a journaled bundle's result is replayed through the same type caps and
 * de-duplication at the same point of the plan. So a run killed any number of times and resumed keeps exactly the
 * items (and splits) of an uninterrupted one. A bundle whose LLM work failed for a transient reason (outage,
 * timeouts) is journaled as failed, not finished, and the next run processes it again.
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
  if (options.gapTarget !== undefined && !(options.gapTarget >= 0 && options.gapTarget <= 1))
    throw new MemsteerError('E_BAD_OPTION', `--gap-target must be in [0, 1], got ${options.gapTarget}`);
  if (options.gapTarget !== undefined && options.mode !== 'offline')
    throw new MemsteerError('E_BAD_OPTION', '--gap-target applies to the rule-based generator: add --offline, or leave it out');
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

  let processor: BundleProcessor;
  let seedWeight: ((r: SourceRecord, i: number) => number) | undefined;
  if (options.mode === 'offline') {
    const ctx = createRuleContext(graph);
    seedWeight = factSeedWeight(ctx);
    processor = createOfflineProcessor({
      graph,
      ctx,
      reader: createOfflineBlindReader(),
      seed: (seed ^ hashString(history.id)) >>> 0,
      perBundle: options.perBundle ?? 3,
      checks: options.checks ?? true,
      ...(options.gapTarget !== undefined ? { lexicalGap: { target: options.gapTarget } } : {}),
    });
  } else {
    if (!options.llm)
      throw new MemsteerError('E_NO_LLM', 'LLM mode needs a configured model: set OPENAI_API_KEY / OPENAI_BASE_URL, or pass --offline');
    processor = createLlmProcessor({ graph, llm: options.llm, history: history.id });
  }

  const run = shortHash(
    JSON.stringify({
      // journal format 2: results keyed by bundle, before caps and de-duplication
      v: 2,
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
  let typeCap = types.length === 1 ? n : Math.ceil(n * (options.maxTypeShare ?? DEFAULT_MAX_TYPE_SHARE));
  // Kept items per fill-cap group, counted from the start; the caps only apply once the type caps have lifted.
  const groupCounts = new Map<string, number>();
  let filling = false;
  // Journaled results by bundle. A failed attempt's work is redone, but its tokens were billed: they count.
  const journal = new Map<string, BundleProgress>();
  for (const line of store?.load() ?? []) {
    if (line.status === 'failed') addTokens(stats, line.stats);
    else if (!journal.has(line.bundle)) journal.set(line.bundle, line);
  }

  const perBundleGuess = options.mode === 'offline' ? 1.2 : 0.5;
  const bundleTokens = options.bundleTokens ?? (options.mode === 'offline' ? 1800 : 2500);
  // Fixed up front (not from what earlier rounds kept), so a resumed run plans exactly the same bundles.
  const perRound = Math.ceil(n / perBundleGuess) + 10;
  let budgetExhausted = false;
  let bundlesDone = 0;
  let resumedBundles = 0;
  let failedBundles = 0;
  const seenBundles = new Set<string>();
  let planned = 0;
  // Rounds of fresh bundles until the target is met or the history stops yielding.
  for (let round = 0; round < MAX_ROUNDS && kept.length < n && !budgetExhausted; round++) {
    const bundles: Bundle[] = sampleBundles(graph, {
      count: perRound,
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
      // Most-wanted types first: the one furthest below an even share. A type at its cap is not asked for, so a
      // history where one template always fires (counting, say) still gets a mix instead of one type.
      const open = (t: QuestionType) => typeCounts.get(t)! < typeCap;
      const order = [...types].filter(open).sort((a, b) => typeCounts.get(a)! - typeCounts.get(b)! || types.indexOf(a) - types.indexOf(b));
      if (order.length === 0) break;
      let candidates: QAItem[];
      let local: RunStats;
      const done = journal.get(bundle.id);
      if (done) {
        candidates = done.items;
        if (done.memo) processor.restoreMemo?.(done.memo);
        local = emptyStats();
        mergeStats(local, done.stats);
        resumedBundles++;
      } else {
        if (options.budgetTokens !== undefined && stats.tokens.prompt + stats.tokens.completion >= options.budgetTokens) {
          budgetExhausted = true;
          break;
        }
        local = emptyStats();
        let accepted;
        try {
          accepted = await processor.process(bundle, order, local);
        } catch (err) {
          const code = (err as MemsteerError).code;
          if (code === 'E_BUDGET') {
            // Unfinished for lack of budget: a run with more budget does it again (its spend so far still counts).
            store?.append({ bundle: bundle.id, status: 'failed', types: order, items: [], stats: local, error: code });
            mergeStats(stats, local);
            budgetExhausted = true;
            break;
          }
          if (!isRetryableLlmFailure(err)) throw err;
          // The endpoint failed, not the candidate: journal the bundle as failed so the next run retries it.
          store?.append({ bundle: bundle.id, status: 'failed', types: order, items: [], stats: local, error: code });
          addTokens(stats, local);
          reject(stats, `llm:failed-${code}`);
          failedBundles++;
          continue;
        }
        candidates = accepted.map((a) => toQAItem(history.id, processor.generator, bundle, a));
        const memo = processor.memoSince?.();
        store?.append({
          bundle: bundle.id,
          status: 'done',
          types: order,
          items: candidates,
          stats: local,
          ...(memo?.length ? { memo } : {}),
        });
      }
      // Type caps and de-duplication, at this bundle's place in the plan: the same for fresh and journaled results.
      mergeStats(stats, local);
      for (const item of candidates) {
        const t = item.category as QuestionType;
        if (!types.includes(t) || !open(t)) continue;
        const template = item.checks?.template;
        const cap = typeof template === 'string' ? processor.fillCap?.(template) : undefined;
        if (cap && (filling || cap.always) && (groupCounts.get(cap.group) ?? 0) >= Math.ceil(n * cap.share)) {
          reject(stats, filling ? 'cap:fill-template' : 'cap:template-group');
          continue;
        }
        stats.stages.dedupe.in++;
        if (!deduper.add(item)) {
          reject(stats, 'dedupe:near-duplicate');
          continue;
        }
        stats.stages.dedupe.out++;
        typeCounts.set(t, typeCounts.get(t)! + 1);
        if (cap) groupCounts.set(cap.group, (groupCounts.get(cap.group) ?? 0) + 1);
        kept.push({ item, bundle: bundle.id });
        yielded++;
      }
      bundlesDone++;
      options.onProgress?.({ kept: Math.min(kept.length, n), target: n, bundlesDone, bundlesPlanned: planned });
    }
    if (yielded === 0 && round > 0) {
      // The open types yield nothing more here: the capped ones fill the rest (a history with few statements yields
      // few aggregation items), each template group only up to its fill cap (rule-based/fill-caps.ts), so a history
      // spent of varied questions gives a shorter set rather than one padded with a single template. Decided from
      // the plan alone, so resume is exact.
      if (typeCap >= n || kept.length >= n) break;
      typeCap = n;
      filling = true;
    }
  }

  let chosen = kept.slice(0, n);
  if (chosen.length < n && processor.fillCap) {
    // Short of the target, the capped groups would hold more than their share of what was kept (set-shares.ts).
    const capOf = ({ item }: (typeof kept)[number]) => {
      const template = item.checks?.template;
      const cap = typeof template === 'string' ? processor.fillCap!(template) : undefined;
      return cap?.always ? cap : undefined;
    };
    const held = holdGroupShares(chosen, capOf);
    chosen = held.items;
    for (let k = 0; k < held.dropped; k++) reject(stats, 'cap:share-of-set');
  }
  const bundleOf = new Map(chosen.map((k) => [k.item.id, k.bundle]));
  let chosenItems = chosen.map((k) => k.item);
  let lexicalGap: GapTargetReport | undefined;
  if (processor.gapTarget !== undefined) {
    const text = new Map(graph.records.map((r) => [r.id, r.text]));
    ({ items: chosenItems, report: lexicalGap } = holdGapToTarget(chosenItems, processor.gapTarget, (id) => text.get(id), {
      seed: `${seed}:${history.id}:gap-target`,
      reader: processor.reader,
    }));
  }
  const items = splitByBundle(chosenItems, valShare, (it) => bundleOf.get(it.id)!);
  const summary = summarise(history.id, processor, options.mode, n, items, stats, graph.records.length, graph.edgeCounts, {
    bundles: bundlesDone,
    budgetExhausted,
    resumedBundles,
    failedBundles,
    durationMs: Date.now() - started,
  });
  return { items, summary: lexicalGap ? { ...summary, lexicalGap } : summary };
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
  extra: { bundles: number; budgetExhausted: boolean; resumedBundles: number; failedBundles: number; durationMs: number },
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
    failedBundles: extra.failedBundles,
    durationMs: extra.durationMs,
  };
}

/** Books the tokens (and calls) of work whose results are not kept: they were billed all the same. */
function addTokens(stats: RunStats, from: Pick<RunStats, 'tokens'>): void {
  stats.tokens.prompt += from.tokens.prompt;
  stats.tokens.completion += from.tokens.completion;
  stats.tokens.calls += from.tokens.calls;
  stats.tokens.cachedCalls += from.tokens.cachedCalls;
}
