import { ConfigError } from '../../errors.ts';
import type { Rng } from '../../util/rng.ts';
import { mapElitesSelector } from './map-elites.ts';
import type { ParentSelector, ScoredProgram } from './types.ts';

function requirePool(pool: readonly ScoredProgram[]): void {
  if (pool.length === 0) throw new RangeError('parent selection: the pool is empty (evaluate a seed first)');
}

/** Best score first; among equals the most recent, then the smallest id, so the order is total and stable. */
function byScoreThenRecency(a: ScoredProgram, b: ScoredProgram): number {
  return b.score - a.score || (b.iteration ?? 0) - (a.iteration ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** MemSteer: always extend the current best. */
export function greedySelector(): ParentSelector {
  return {
    name: 'greedy',
    select(pool) {
      requirePool(pool);
      return pool.slice().sort(byScoreThenRecency)[0]!.id;
    },
  };
}

/**
 * M*: sample with probability ∝ exp(score / temperature). Scores are fitness values in [0, 1], so temperatures
 * around 0.01–0.1 trade exploitation against exploration; temperature ≤ 0 degenerates to greedy.
 */
export function softmaxSelector(temperature: number): ParentSelector {
  if (!Number.isFinite(temperature)) throw new ConfigError('E_BAD_SELECT', `softmax temperature must be a number, got ${temperature}`);
  const greedy = greedySelector();
  return {
    name: `softmax:${temperature}`,
    select(pool, rng) {
      requirePool(pool);
      if (temperature <= 0) return greedy.select(pool, rng);
      const sorted = pool.slice().sort(byScoreThenRecency);
      const max = sorted[0]!.score;
      // Subtracting the max keeps exp() in range however small the temperature.
      const weights = sorted.map((p) => Math.exp((p.score - max) / temperature));
      return sorted[rng.weighted(weights)]!.id;
    },
  };
}

/** Programs on the per-question Pareto front and how many questions each is best on (GEPA's candidate pool). */
export function paretoFront(pool: readonly ScoredProgram[]): Array<{ id: string; wins: number }> {
  const questions = new Set<string>();
  for (const p of pool) for (const q of Object.keys(p.perQuestion ?? {})) questions.add(q);
  const score = (p: ScoredProgram, q: string): number => p.perQuestion?.[q] ?? 0;
  // For each question, the programs that reach its best score.
  const wins = new Map<string, number>();
  for (const q of questions) {
    let best = -Infinity;
    for (const p of pool) best = Math.max(best, score(p, q));
    for (const p of pool) if (score(p, q) === best) wins.set(p.id, (wins.get(p.id) ?? 0) + 1);
  }
  const winners = pool.filter((p) => wins.has(p.id));
  const qs = [...questions];
  const dominates = (a: ScoredProgram, b: ScoredProgram): boolean => {
    let strictly = false;
    for (const q of qs) {
      const d = score(a, q) - score(b, q);
      if (d < 0) return false;
      if (d > 0) strictly = true;
    }
    return strictly;
  };
  const front = winners.filter((p) => !winners.some((o) => o !== p && dominates(o, p)));
  return front.sort(byScoreThenRecency).map((p) => ({ id: p.id, wins: wins.get(p.id)! }));
}

/**
 * GEPA: keep the programs that are best on at least one question and not dominated on per-question scores, then
 * sample among them ∝ the number of questions each is best on (`uniform` ignores the counts). Programs without
 * per-question scores only compete on their aggregate score.
 */
export function paretoSelector(options: { weighting?: 'frequency' | 'uniform' } = {}): ParentSelector {
  const weighting = options.weighting ?? 'frequency';
  const greedy = greedySelector();
  return {
    name: weighting === 'frequency' ? 'pareto' : 'pareto:uniform',
    select(pool, rng: Rng) {
      requirePool(pool);
      if (pool.every((p) => !p.perQuestion || Object.keys(p.perQuestion).length === 0)) return greedy.select(pool, rng);
      const front = paretoFront(pool);
      if (front.length === 0) return greedy.select(pool, rng);
      const i = rng.weighted(front.map((f) => (weighting === 'frequency' ? f.wins : 1)));
      return front[i]!.id;
    },
  };
}

/** What a selector may know about the run beyond the pool: the behaviour group (question type) of a question key. */
export interface SelectorContext {
  groupOf?: (questionKey: string) => string | undefined;
}

/**
 * Builds a selector from a CLI spec: `greedy`, `softmax[:temperature]` (default 0.05), `pareto[:uniform]`,
 * `map-elites[:bins[:temperature]]` (default 3 bins, 0.05).
 */
export function parentSelectorFromSpec(spec: string, context: SelectorContext = {}): ParentSelector {
  const [kind, arg] = spec.split(':', 2) as [string, string | undefined];
  switch (kind) {
    case 'greedy':
      if (arg !== undefined) break;
      return greedySelector();
    case 'softmax': {
      const t = arg === undefined ? 0.05 : Number(arg);
      if (arg !== undefined && (arg.trim() === '' || !Number.isFinite(t))) break;
      return softmaxSelector(t);
    }
    case 'pareto':
      if (arg === undefined) return paretoSelector();
      if (arg === 'uniform') return paretoSelector({ weighting: 'uniform' });
      break;
    case 'map-elites': {
      // split(':', 2) above keeps only two parts; the temperature is the third.
      const [, binsText, tText, extra] = spec.split(':');
      const bins = binsText === undefined ? undefined : Number(binsText);
      const t = tText === undefined ? undefined : Number(tText);
      if (extra !== undefined || binsText?.trim() === '' || tText?.trim() === '') break;
      if ((bins !== undefined && !Number.isInteger(bins)) || (t !== undefined && !Number.isFinite(t))) break;
      return mapElitesSelector({
        ...(bins !== undefined ? { bins } : {}),
        ...(t !== undefined ? { temperature: t } : {}),
        ...(context.groupOf ? { groupOf: context.groupOf } : {}),
      });
    }
  }
  throw new ConfigError(
    'E_BAD_SELECT',
    `--select ${spec}: expected greedy, softmax[:temperature], pareto[:uniform] or map-elites[:bins[:temperature]]`,
  );
}
