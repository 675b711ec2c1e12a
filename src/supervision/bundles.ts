import type { SourceRecord } from '../../sandbox/contract.ts';
import { countTokens } from '../text/text.ts';
import type { EdgeKind, RecordGraph } from './record-graph.ts';
import { createRng, shortHash, type Rng } from './rng.ts';

/** A connected sample of the history: the material one question is planned from. */
export interface Bundle {
  /** Stable id (from the seed and the records), so a resumed run recognises a finished bundle. */
  id: string;
  /** The seed record id. */
  seed: string;
  /** Record ids in chronological (source) order. */
  records: string[];
  /** Tokens of the rendered bundle. */
  tokens: number;
  /** The path that built it: each step's edge kind (`thread` for a same-thread hop). */
  path: Array<{ from: string; to: string; kind: EdgeKind | 'thread' }>;
}

/** Options of {@link sampleBundles}. */
export interface BundleOptions {
  /** How many bundles to sample. */
  count: number;
  /** Token budget of one rendered bundle. Default 2500. */
  tokenBudget?: number;
  /** At most this many records per bundle. Default 24. */
  maxRecords?: number;
  /** A rendered record is clipped to this many characters (quotes must come from the visible part). Default 3000. */
  maxRecordChars?: number;
  seed?: number;
  /** Preference of each edge kind when a walk picks its next hop (default favours explicit structure). */
  edgeWeights?: Partial<Record<EdgeKind | 'thread', number>>;
  /** Optional weight of a record as a seed (e.g. how many checkable facts it holds); 0 never seeds. */
  seedWeight?: (record: SourceRecord, index: number) => number;
}

const DEFAULT_EDGE_WEIGHTS: Record<EdgeKind | 'thread', number> = {
  adjacent: 3,
  thread: 1,
  ref: 4,
  upload: 4,
  subject: 3,
  lexical: 2,
};

/** The ISO date (YYYY-MM-DD) of a record, when it has a time. */
export function recordDate(r: SourceRecord): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(r.time ?? '');
  return m ? m[1] : undefined;
}

/** One record as a model (or the offline reader) sees it: its id first so facts can be cited by it. */
export function renderRecord(r: SourceRecord, maxChars = 3000): string {
  const head = [recordDate(r), r.kind, r.thread, r.title ? `"${r.title}"` : undefined, r.speaker].filter(Boolean).join(' · ');
  const text = r.text.length > maxChars ? `${r.text.slice(0, maxChars)} […]` : r.text;
  return `[${r.id}] (${head})\n${text}`;
}

/** The bundle as one text block, records in order. */
export function renderBundle(graph: RecordGraph, bundle: Bundle, maxChars = 3000): string {
  return bundle.records.map((id) => renderRecord(graph.records[graph.index.get(id)!]!, maxChars)).join('\n\n');
}

/**
 * Seed records spread over the history: kinds take turns (in proportion to their size, each at least a share),
 * threads of a kind are visited in time order with a stride that spreads consecutive picks across the year,
 * and a record of the thread is drawn by `seedWeight`.
 */
export function spreadSeeds(graph: RecordGraph, count: number, rng: Rng, seedWeight?: (r: SourceRecord, i: number) => number): number[] {
  const byKind = new Map<string, string[]>();
  for (const [thread, list] of graph.threads) {
    const kind = graph.records[list[0]!]!.kind;
    let l = byKind.get(kind);
    if (!l) byKind.set(kind, (l = []));
    l.push(thread);
  }
  const firstTime = (t: string): string => graph.records[graph.threads.get(t)![0]!]!.time ?? '';
  const kinds = [...byKind.keys()].sort();
  for (const k of kinds) byKind.get(k)!.sort((a, b) => firstTime(a).localeCompare(firstTime(b)) || a.localeCompare(b));
  const total = graph.records.length;
  const share = kinds.map((k) => {
    const size = byKind.get(k)!.reduce((s, t) => s + graph.threads.get(t)!.length, 0);
    return Math.max(0.15, size / total);
  });
  const cursor = kinds.map(() => 0);
  const credit = kinds.map(() => 0);
  const seeds: number[] = [];
  const used = new Set<number>();
  let stalls = 0;
  while (seeds.length < count && stalls < count * 4 + 50) {
    kinds.forEach((_, k) => (credit[k]! += share[k]!));
    let best = 0;
    for (let k = 1; k < kinds.length; k++) if (credit[k]! > credit[best]!) best = k;
    credit[best]! -= 1;
    const threads = byKind.get(kinds[best]!)!;
    const stride = Math.max(1, Math.round(threads.length * 0.618)) | 1;
    const step = cursor[best]!++;
    const thread = threads[(step * stride) % threads.length]!;
    const pick = weightedPick(
      graph.threads.get(thread)!.filter((i) => !used.has(i)),
      rng,
      (i) => (seedWeight ? seedWeight(graph.records[i]!, i) : 1),
    );
    if (pick === undefined) {
      stalls++;
      continue;
    }
    used.add(pick);
    seeds.push(pick);
  }
  return seeds;
}

function weightedPick(items: number[], rng: Rng, weight: (i: number) => number): number | undefined {
  let sum = 0;
  const ws = items.map((i) => {
    const w = Math.max(0, weight(i));
    sum += w;
    return w;
  });
  if (sum <= 0) return undefined;
  let r = rng.next() * sum;
  for (let k = 0; k < items.length; k++) {
    r -= ws[k]!;
    if (r < 0) return items[k];
  }
  return items[items.length - 1];
}

/** Rendered token cost per record, per graph and clip length: bundles of every round reuse them (BPE is slow). */
const costCache = new WeakMap<RecordGraph, Map<number, Array<number | undefined>>>();

function recordCost(graph: RecordGraph, i: number, maxChars: number): number {
  let byClip = costCache.get(graph);
  if (!byClip) costCache.set(graph, (byClip = new Map()));
  let costs = byClip.get(maxChars);
  if (!costs) byClip.set(maxChars, (costs = []));
  costs[i] ??= countTokens(renderRecord(graph.records[i]!, maxChars)) + 2;
  return costs[i]!;
}

/**
 * Grows a bundle from `seed` by a random walk with restarts over the graph's edges (and same-thread hops),
 * adding each reached record while the rendered bundle stays within the token budget.
 */
export function expandBundle(
  graph: RecordGraph,
  seed: number,
  rng: Rng,
  options: Omit<BundleOptions, 'count' | 'seedWeight'> = {},
): Bundle {
  const budget = options.tokenBudget ?? 2500;
  const maxRecords = options.maxRecords ?? 24;
  const maxChars = options.maxRecordChars ?? 3000;
  const weights = { ...DEFAULT_EDGE_WEIGHTS, ...options.edgeWeights };
  const cost = (i: number): number => recordCost(graph, i, maxChars);
  const members = [seed];
  const inBundle = new Set(members);
  let tokens = cost(seed);
  const path: Bundle['path'] = [];
  let current = seed;
  for (let step = 0; step < maxRecords * 6 && members.length < maxRecords; step++) {
    if (rng.next() < 0.25) current = members[rng.int(members.length)]!;
    const options2: Array<{ to: number; kind: EdgeKind | 'thread'; w: number }> = [];
    for (const e of graph.edges[current]!)
      if (!inBundle.has(e.to)) options2.push({ to: e.to, kind: e.kind, w: weights[e.kind] * e.weight });
    const mates = graph.threads.get(graph.threadOf[current]!)!;
    if (mates.length > 1) {
      const mate = mates[rng.int(mates.length)]!;
      if (!inBundle.has(mate)) options2.push({ to: mate, kind: 'thread', w: weights.thread });
    }
    if (!options2.length) {
      current = members[rng.int(members.length)]!;
      continue;
    }
    const k = weightedPick(
      options2.map((_, i) => i),
      rng,
      (i) => options2[i]!.w,
    )!;
    const hop = options2[k]!;
    const c = cost(hop.to);
    if (tokens + c > budget) continue;
    tokens += c;
    members.push(hop.to);
    inBundle.add(hop.to);
    path.push({ from: graph.records[current]!.id, to: graph.records[hop.to]!.id, kind: hop.kind });
    current = hop.to;
  }
  members.sort((a, b) => a - b);
  const records = members.map((i) => graph.records[i]!.id);
  return {
    id: `b${shortHash(`${graph.records[seed]!.id}\u0000${records.join('\u0000')}`)}`,
    seed: graph.records[seed]!.id,
    records,
    tokens,
    path,
  };
}

/** Seeds spread over the history, each grown into a bundle. Deterministic for a given seed. */
export function sampleBundles(graph: RecordGraph, options: BundleOptions): Bundle[] {
  const rng = createRng(options.seed ?? 1);
  return spreadSeeds(graph, options.count, rng, options.seedWeight).map((s) => expandBundle(graph, s, rng, options));
}
