import { ConfigError } from '../../errors.ts';
import { pairedBootstrap } from './bootstrap.ts';
import type { AcceptanceRule, ScoredProgram } from './types.ts';

/** MemSteer: accept when the candidate's validation score is strictly above the incumbent's (by more than `epsilon`). */
export function strictlyBetter(options: { epsilon?: number } = {}): AcceptanceRule {
  const epsilon = options.epsilon ?? 0;
  return {
    name: epsilon ? `better:${epsilon}` : 'better',
    decide(candidate, incumbent) {
      const delta = candidate.score - incumbent.score;
      const accept = delta > epsilon;
      return {
        accept,
        delta,
        reason: accept
          ? `validation ${fmt(candidate.score)} > ${fmt(incumbent.score)}`
          : `validation ${fmt(candidate.score)} not above ${fmt(incumbent.score)}${epsilon ? ` + ${epsilon}` : ''}`,
      };
    },
  };
}

/**
 * Accept when the lower bound of the paired-bootstrap confidence interval of the per-question difference is above
 * zero: guards against accepting noise on small validation sets. Only questions both programs were scored on count.
 */
export function bootstrapAcceptance(options: { level?: number; resamples?: number } = {}): AcceptanceRule {
  const level = options.level ?? 0.95;
  const resamples = options.resamples ?? 1000;
  return {
    name: `bootstrap:${level}`,
    decide(candidate, incumbent, rng) {
      const delta = candidate.score - incumbent.score;
      const [a, b] = paired(candidate, incumbent);
      if (a.length === 0) {
        return { accept: false, delta, reason: 'no questions scored for both programs; per-question scores are needed for the bootstrap' };
      }
      const r = pairedBootstrap(a, b, { rng, level, resamples });
      const ci = { lower: r.lower, upper: r.upper, level };
      const accept = r.lower > 0;
      return {
        accept,
        delta,
        ci,
        reason:
          `mean per-question gain ${fmt(r.mean)} over ${r.n} questions, ` +
          `${Math.round(level * 100)}% CI [${fmt(r.lower)}, ${fmt(r.upper)}]${accept ? '' : ' includes 0'}`,
      };
    },
  };
}

function paired(x: ScoredProgram, y: ScoredProgram): [number[], number[]] {
  const a: number[] = [];
  const b: number[] = [];
  const py = y.perQuestion ?? {};
  // Sorted ids: the resampling order must not depend on object key insertion order.
  for (const q of Object.keys(x.perQuestion ?? {}).sort()) {
    const vy = py[q];
    if (vy === undefined) continue;
    a.push(x.perQuestion![q]!);
    b.push(vy);
  }
  return [a, b];
}

function fmt(x: number): string {
  return (Math.round(x * 10000) / 10000).toString();
}

/** Builds a rule from a CLI spec: `better[:epsilon]` or `bootstrap[:level]` (default 0.95). */
export function acceptanceFromSpec(spec: string): AcceptanceRule {
  const [kind, arg] = spec.split(':', 2) as [string, string | undefined];
  const num = arg === undefined ? undefined : Number(arg);
  const bad = arg !== undefined && (arg.trim() === '' || !Number.isFinite(num));
  if (!bad && kind === 'better' && (num === undefined || num >= 0)) return strictlyBetter(num === undefined ? {} : { epsilon: num });
  if (!bad && kind === 'bootstrap' && (num === undefined || (num > 0 && num < 1))) {
    return bootstrapAcceptance(num === undefined ? {} : { level: num });
  }
  throw new ConfigError('E_BAD_ACCEPT', `--accept ${spec}: expected better[:epsilon ≥ 0] or bootstrap[:level in (0,1)]`);
}
