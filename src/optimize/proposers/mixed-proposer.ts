import { ConfigError } from '../../errors.ts';
import type { Proposal, ProposalContext, Proposer } from './types.ts';

/** One part of a mix: a proposer and its share of the draws. */
export interface MixPart {
  proposer: Proposer;
  weight: number;
}

/**
 * Mixes proposers: each proposal draws one part with probability ∝ its weight (from the iteration's own RNG stream,
 * so a resumed run draws the same), and when that part has nothing left for the parent the others are asked in order
 * of weight. The mix is exhausted only when every part is. Operators keep the part's own names, so each part still
 * recognises its earlier moves in the revision history.
 */
export function createMixedProposer(parts: readonly MixPart[], name = 'mixed'): Proposer {
  if (parts.length === 0) throw new ConfigError('E_BAD_MIX', 'a proposer mix needs at least one proposer');
  for (const p of parts) {
    if (!Number.isFinite(p.weight) || p.weight < 0)
      throw new ConfigError('E_BAD_MIX', `proposer ${p.proposer.name}: weight must be a number ≥ 0, got ${p.weight}`);
  }
  if (parts.every((p) => p.weight === 0)) throw new ConfigError('E_BAD_MIX', 'a proposer mix needs a positive weight');
  return {
    name,
    async propose(ctx: ProposalContext): Promise<Proposal | null> {
      const first = ctx.rng.fork('mix').weighted(parts.map((p) => p.weight));
      const rest = parts
        .map((p, i) => ({ p, i }))
        .filter(({ i }) => i !== first)
        .sort((a, b) => b.p.weight - a.p.weight || a.i - b.i);
      for (const { p } of [{ p: parts[first]!, i: first }, ...rest]) {
        // The part gets the iteration's own stream: the catalog in a mix draws what the catalog alone would, so a
        // mixed run differs from a catalog run by the structural proposals only, not by a reshuffled catalog.
        const proposal = await p.proposer.propose(ctx);
        if (proposal) return proposal;
      }
      return null;
    },
  };
}
