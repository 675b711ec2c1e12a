import { ConfigError } from '../../errors.ts';
import type { Rng } from '../../util/rng.ts';
import type { ParentSelector, ScoredProgram } from './types.ts';

/** Options of {@link mapElitesSelector}. */
export interface MapElitesOptions {
  /** Bins per descriptor dimension (default 3). */
  bins?: number;
  /** Softmax temperature over the elites' scores (default 0.05; ≤ 0: uniform over the elites). */
  temperature?: number;
  /**
   * The behaviour group of a per-question key (`<history>/<question id>`), e.g. the question's category or generated
   * type: one descriptor dimension per group. Without it (or for keys it does not know) every question is in one group.
   */
  groupOf?: (questionKey: string) => string | undefined;
}

/** A program's place in the grid: its cell key and its mean score per behaviour group. */
export interface Niche {
  id: string;
  cell: string;
  descriptor: Record<string, number>;
}

/** Mean per-question score of each behaviour group (groups sorted by name). */
export function behaviour(p: ScoredProgram, groupOf?: (key: string) => string | undefined): Record<string, number> {
  const sums = new Map<string, { s: number; n: number }>();
  for (const [key, v] of Object.entries(p.perQuestion ?? {})) {
    const g = groupOf?.(key) ?? 'all';
    const acc = sums.get(g) ?? { s: 0, n: 0 };
    acc.s += v;
    acc.n += 1;
    sums.set(g, acc);
  }
  if (sums.size === 0) return { all: p.score };
  return Object.fromEntries([...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([g, { s, n }]) => [g, s / n]));
}

/**
 * The MAP-Elites grid of a pool: each program's behaviour descriptor (mean score per question group) binned per
 * dimension relative to the pool's range on it — absolute bins would put a whole run in one cell, since designs of
 * one lineage differ by a few points — and the best program of each cell (ties: the most recent, then the smaller id).
 */
export function eliteGrid(pool: readonly ScoredProgram[], options: Pick<MapElitesOptions, 'bins' | 'groupOf'> = {}): Niche[] {
  const bins = options.bins ?? 3;
  const described = pool.map((p) => ({ p, d: behaviour(p, options.groupOf) }));
  const dims = [...new Set(described.flatMap(({ d }) => Object.keys(d)))].sort();
  const range = new Map(
    dims.map((g) => {
      const vs = described.map(({ d }) => d[g] ?? 0);
      return [g, { lo: Math.min(...vs), hi: Math.max(...vs) }];
    }),
  );
  const bin = (g: string, v: number): number => {
    const { lo, hi } = range.get(g)!;
    if (hi - lo < 1e-9) return 0;
    return Math.min(bins - 1, Math.floor(((v - lo) / (hi - lo)) * bins));
  };
  const elites = new Map<string, { p: ScoredProgram; d: Record<string, number> }>();
  for (const x of described) {
    const cell = dims.map((g) => bin(g, x.d[g] ?? 0)).join('.');
    const cur = elites.get(cell);
    const better =
      !cur ||
      x.p.score > cur.p.score ||
      (x.p.score === cur.p.score &&
        ((x.p.iteration ?? 0) > (cur.p.iteration ?? 0) || ((x.p.iteration ?? 0) === (cur.p.iteration ?? 0) && x.p.id < cur.p.id)));
    if (better) elites.set(cell, x);
  }
  return [...elites].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([cell, { p, d }]) => ({ id: p.id, cell, descriptor: d }));
}

/**
 * MAP-Elites parent selection: the pool (every evaluated program, rejected ones included, so a candidate that lost
 * overall but is the best of its behaviour niche stays a parent) is binned by its per-group validation scores, and a
 * parent is drawn among the cell elites ∝ exp(score / temperature). One lineage that keeps winning fills one cell at
 * a time, so the search keeps branching from designs that are good at different kinds of question.
 */
export function mapElitesSelector(options: MapElitesOptions = {}): ParentSelector {
  const bins = options.bins ?? 3;
  const temperature = options.temperature ?? 0.05;
  if (!Number.isInteger(bins) || bins < 1 || bins > 20) throw new ConfigError('E_BAD_SELECT', `map-elites bins must be 1–20, got ${bins}`);
  if (!Number.isFinite(temperature)) throw new ConfigError('E_BAD_SELECT', `map-elites temperature must be a number, got ${temperature}`);
  return {
    name: `map-elites:${bins}:${temperature}`,
    pool: 'evaluated',
    select(pool: readonly ScoredProgram[], rng: Rng): string {
      if (pool.length === 0) throw new RangeError('parent selection: the pool is empty (evaluate a seed first)');
      const byId = new Map(pool.map((p) => [p.id, p]));
      const elites = eliteGrid(pool, { bins, ...(options.groupOf ? { groupOf: options.groupOf } : {}) }).map((n) => byId.get(n.id)!);
      if (temperature <= 0) return rng.pick(elites).id;
      const max = Math.max(...elites.map((e) => e.score));
      return elites[rng.weighted(elites.map((e) => Math.exp((e.score - max) / temperature)))]!.id;
    },
  };
}
