/**
 * The supervision sets the experiments train on: offline-generated items (cached per history, so every
 * experiment that asks for the same history and settings reads the same file), official QA split into
 * train/val by a hash of the id (the Official-QA reference), and training budgets cut from a larger set.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { historyContentHash } from '../evaluate/eval-cache.ts';
import { QAItemSchema, type History, type QAItem } from '../history/record.ts';
import { generateSupervision } from '../supervision/generate.ts';
import { OFFLINE_READER } from '../supervision/offline-reader.ts';
import { RULE_BASED_GENERATOR } from '../supervision/rule-based/generator.ts';
import { readJsonl, writeJsonl } from '../util/jsonl.ts';

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A deterministic split of an id: the same id always lands on the same side, whatever else is in the set. */
export function hashSplit(id: string, valShare: number): 'train' | 'val' {
  const u = parseInt(sha(id).slice(0, 8), 16) / 0x1_0000_0000;
  return u < valShare ? 'val' : 'train';
}

/** Options of {@link officialSupervision}. */
export interface OfficialSupervisionOptions {
  /** Official categories to keep (empty: all). */
  categories: readonly string[];
  valShare: number;
  /**
   * Drop question dates. Training items are only guidance for the search; without dates a history's memory is
   * built once per evaluation instead of once per question date (RHELM), which is what makes the reference affordable.
   */
  dropDates: boolean;
}

/**
 * Official QA as supervision (the Official-QA reference): every official item of the kept categories, split into
 * train/val by a hash of `<history>/<id>`. It trains on the very items it is tested on, so its test scores are a
 * reference, not a fair comparison.
 */
export function officialSupervision(histories: readonly History[], o: OfficialSupervisionOptions): QAItem[] {
  const keep = new Set(o.categories);
  return histories.flatMap((h) =>
    h.qa
      .filter((q) => keep.size === 0 || (q.category !== undefined && keep.has(q.category)))
      .map((q) => {
        const item: QAItem = { ...q, split: hashSplit(`${q.history}/${q.id}`, o.valShare) };
        if (o.dropDates) delete item.date;
        return item;
      }),
  );
}

/**
 * A training budget: the first `budget` training items in hash order (spread over histories the way the whole
 * set is) and every validation item unchanged, so all budgets are judged on the same validation set.
 */
export function budgetSubset(items: readonly QAItem[], budget: number): QAItem[] {
  const train = items
    .filter((q) => q.split === 'train')
    .map((q) => ({ q, key: sha(`${q.history}/${q.id}`) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, budget)
    .map((x) => x.q);
  const chosen = new Set(train);
  return items.filter((q) => q.split === 'val' || chosen.has(q));
}

/** Settings of generated supervision (one history). */
export interface GeneratedSpec {
  perHistory: number;
  valShare: number;
  /** False: the generator without its checks (supervision ablation). */
  checks: boolean;
  seed: number;
}

/** Where one history's generated items are cached: the name carries everything that changes them. */
export function generatedFile(dir: string, history: History, spec: GeneratedSpec): string {
  const key = sha(JSON.stringify({ g: RULE_BASED_GENERATOR, r: OFFLINE_READER, h: historyContentHash(history), ...spec })).slice(0, 12);
  return join(dir, `${history.id.replace(/[^\w.-]+/g, '_')}-${spec.checks ? 'checked' : 'unchecked'}-${spec.perHistory}-${key}.jsonl`);
}

/**
 * Offline-generated supervision for each history, generated once per settings and read back afterwards.
 * `onHistory` is told when a history is generated (not when it is read from the cache).
 */
export async function generatedSupervision(
  dir: string,
  histories: readonly History[],
  spec: GeneratedSpec,
  onHistory?: (history: string) => void,
): Promise<QAItem[]> {
  const out: QAItem[] = [];
  for (const h of histories) {
    const file = generatedFile(dir, h, spec);
    if (existsSync(file)) {
      out.push(...readJsonl(file, QAItemSchema));
      continue;
    }
    onHistory?.(h.id);
    const { items } = await generateSupervision(h, {
      mode: 'offline',
      n: spec.perHistory,
      val: spec.valShare,
      seed: spec.seed,
      checks: spec.checks,
    });
    writeJsonl(file, items, QAItemSchema);
    out.push(...readJsonl(file, QAItemSchema));
  }
  return out;
}

/** Train and val counts of a set. */
export function splitCounts(items: readonly QAItem[]): { train: number; val: number } {
  return { train: items.filter((q) => q.split === 'train').length, val: items.filter((q) => q.split === 'val').length };
}
