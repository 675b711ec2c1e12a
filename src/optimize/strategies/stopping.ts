import type { SearchProgress, StopCondition } from './types.ts';

function positive(what: string, n: number): void {
  if (!(n > 0)) throw new RangeError(`${what} must be positive, got ${n}`);
}

/** Stop after `n` finished iterations. */
export function maxIterations(n: number): StopCondition {
  positive('iterations', n);
  return { name: `iterations:${n}`, check: (p) => (p.iterations >= n ? `reached ${n} iterations` : null) };
}

/** Stop after `n` proposals (invalid ones and repair attempts count). */
export function maxProposals(n: number): StopCondition {
  positive('proposals', n);
  return { name: `proposals:${n}`, check: (p) => (p.proposals >= n ? `reached ${n} proposals` : null) };
}

/** Stop once `n` LLM tokens have been spent. */
export function tokenBudget(n: number): StopCondition {
  positive('token budget', n);
  return { name: `tokens:${n}`, check: (p) => (p.tokens >= n ? `spent ${p.tokens} of ${n} tokens` : null) };
}

/** Stop once `dollars` have been spent. */
export function dollarBudget(dollars: number): StopCondition {
  positive('dollar budget', dollars);
  return { name: `dollars:${dollars}`, check: (p) => (p.dollars >= dollars ? `spent $${p.dollars.toFixed(4)} of $${dollars}` : null) };
}

/** Stop once `ms` of wall time have passed. */
export function wallTime(ms: number): StopCondition {
  positive('wall time', ms);
  return {
    name: `time:${ms}ms`,
    check: (p) => (p.elapsedMs >= ms ? `ran ${Math.round(p.elapsedMs / 1000)} s of ${Math.round(ms / 1000)} s` : null),
  };
}

/** Stop after `n` consecutive iterations without an acceptance. */
export function noImprovement(n: number): StopCondition {
  positive('patience', n);
  return {
    name: `patience:${n}`,
    check: (p) => (p.iterationsSinceImprovement >= n ? `no improvement in ${p.iterationsSinceImprovement} iterations` : null),
  };
}

/** Stops when any condition does; the reason is the first one that fired. */
export function anyOf(...conditions: StopCondition[]): StopCondition {
  return {
    name: conditions.map((c) => c.name).join(' | '),
    check(p: SearchProgress) {
      for (const c of conditions) {
        const reason = c.check(p);
        if (reason !== null) return reason;
      }
      return null;
    },
  };
}

/** Stops only when every condition does (e.g. at least 5 iterations AND no improvement for 3). */
export function allOf(...conditions: StopCondition[]): StopCondition {
  if (conditions.length === 0) throw new RangeError('allOf needs at least one condition');
  return {
    name: conditions.map((c) => c.name).join(' & '),
    check(p: SearchProgress) {
      const reasons: string[] = [];
      for (const c of conditions) {
        const reason = c.check(p);
        if (reason === null) return null;
        reasons.push(reason);
      }
      return reasons.join(' and ');
    },
  };
}
