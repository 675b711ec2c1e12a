/**
 * Seeded pseudo-random numbers for the search. Every strategy that draws takes an {@link Rng}, so a run with the
 * same seed makes the same choices. Streams are derived by label (`fork`, {@link deriveSeed}) rather than shared:
 * adding a draw in one place (say, parent selection) must not shift the numbers another place (the bootstrap) sees,
 * and a resumed run can rebuild the stream of iteration k without replaying iterations 1…k-1.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). `n` must be a positive integer. */
  int(n: number): number;
  /** One element, uniformly. Throws on an empty array. */
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** An index drawn with probability proportional to `weights[i]` (non-negative, not all zero). */
  weighted(weights: readonly number[]): number;
  /** An independent stream for `label`, determined by this stream's seed and the label only. */
  fork(label: string | number): Rng;
  /** The 32-bit seed this stream started from. */
  readonly seed: number;
}

/** 32-bit FNV-1a hash of a string, mixed (murmur3 finaliser) so similar labels give unrelated seeds. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A 32-bit seed determined by a base seed and a path of labels, e.g. `deriveSeed(7, 'select', 12)`. */
export function deriveSeed(seed: number | string, ...labels: Array<string | number>): number {
  let s = typeof seed === 'number' ? mix32((seed >>> 0) ^ 0x9e3779b9) : hashString(seed);
  for (const label of labels) s = hashString(`${s}\u0000${label}`);
  return s;
}

/** A mulberry32 stream (fast, 32-bit state, good enough for sampling and bootstrap resampling). */
export function createRng(seed: number | string): Rng {
  const start = typeof seed === 'number' && Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff ? seed : deriveSeed(seed);
  let state = start;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => {
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`rng.int: n must be a positive integer, got ${n}`);
    return Math.floor(next() * n);
  };
  return {
    seed: start,
    next,
    int,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError('rng.pick: empty array');
      return items[int(items.length)]!;
    },
    shuffle<T>(items: readonly T[]): T[] {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(i + 1);
        const tmp = out[i]!;
        out[i] = out[j]!;
        out[j] = tmp;
      }
      return out;
    },
    weighted(weights: readonly number[]): number {
      let total = 0;
      for (const w of weights) {
        if (!(w >= 0) || !Number.isFinite(w)) throw new RangeError(`rng.weighted: weights must be finite and non-negative, got ${w}`);
        total += w;
      }
      if (total <= 0) throw new RangeError('rng.weighted: all weights are zero');
      let r = next() * total;
      for (let i = 0; i < weights.length; i++) {
        r -= weights[i]!;
        if (r < 0) return i;
      }
      // Floating-point leftovers land on the last positive weight.
      for (let i = weights.length - 1; i >= 0; i--) if (weights[i]! > 0) return i;
      return weights.length - 1;
    },
    fork(label: string | number): Rng {
      return createRng(deriveSeed(start, label));
    },
  };
}
