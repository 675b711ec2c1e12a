import { applyEdits } from '../../design/apply-edits.ts';
import type { EditOp } from '../../design/edit-ops.ts';
import type { Rng } from '../../util/rng.ts';
import { astMutations, type AstMutation } from './ast-mutation.ts';
import { crossoverMoves, type CrossoverMove } from './crossover.ts';
import type { Proposal, ProposalContext, Proposer, RevisionNote } from './types.ts';

/** Options of {@link createStructuralProposer}. */
export interface StructuralProposerOptions {
  /**
   * Type-checks a candidate's source (e.g. compileDesign's `ok`). Moves are blind, so many do not type-check: with a
   * check the proposer skips those itself instead of spending the loop's repair attempts on them.
   */
  check?: (source: string) => Promise<boolean> | boolean;
  /** Probability of trying crossover first when an inspiration offers a move (default 0.5). */
  crossoverRate?: number;
  /** Candidates applied and checked per proposal before giving up on this parent (default 16). */
  maxTries?: number;
}

type Move =
  | { family: 'crossover'; move: CrossoverMove; inspiration: { id: string; score: number } }
  | { family: 'mutation'; move: AstMutation };

function triedOnParent(revisions: readonly RevisionNote[], parent: string): Set<string> {
  return new Set(revisions.filter((r) => r.parent === parent && r.operator).map((r) => r.operator!));
}

/**
 * Mutations in an order that gives every kind of move an even chance (a design has far more operators than
 * Math.max calls): a kind is drawn uniformly among those left, then a site of that kind.
 */
function interleaveByKind(moves: readonly AstMutation[], rng: Rng): AstMutation[] {
  const byKind = new Map<string, AstMutation[]>();
  for (const m of moves) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m]);
  const queues = [...byKind.keys()].sort().map((k) => rng.shuffle(byKind.get(k)!));
  const out: AstMutation[] = [];
  while (queues.some((q) => q.length)) {
    const open = queues.filter((q) => q.length);
    out.push(rng.pick(open).shift()!);
  }
  return out;
}

/**
 * The structural proposer (issue 11, build point 3): AST-level mutation of the parent's scoring and fusion functions
 * (operators, terms, literals, constants) and crossover that takes a function from an archive inspiration. Every move
 * is a typed edit; moves already tried on this parent, or whose result is already in the archive, are skipped. It
 * reads neither the failures nor their categories: what it adds over the catalog is reach, not judgement.
 */
export function createStructuralProposer(options: StructuralProposerOptions = {}): Proposer {
  const crossoverRate = options.crossoverRate ?? 0.5;
  const maxTries = options.maxTries ?? 16;
  return {
    name: 'structural',
    async propose(ctx: ProposalContext): Promise<Proposal | null> {
      // Its moves are generated, not written: a failed one is skipped at the source, so a repair has nothing to fix.
      if (ctx.repair) return null;
      const { source, id, score } = ctx.parent;
      const tried = triedOnParent(ctx.revisions, id);
      const crossovers: Move[] = ctx.rng.shuffle(
        (ctx.inspirations ?? []).flatMap((insp) =>
          crossoverMoves(source, insp)
            .filter((m) => !tried.has(m.operator))
            .map((move) => ({ family: 'crossover' as const, move, inspiration: { id: insp.id, score: insp.score } })),
        ),
      );
      const mutations: Move[] = interleaveByKind(
        astMutations(source).filter((m) => !tried.has(m.operator)),
        ctx.rng.fork('mutations'),
      ).map((move) => ({ family: 'mutation' as const, move }));
      const crossoverFirst = crossovers.length > 0 && ctx.rng.next() < crossoverRate;
      const order = crossoverFirst ? [...crossovers, ...mutations] : [...mutations, ...crossovers];
      let tries = 0;
      for (const m of order) {
        if (tries >= maxTries) break;
        const edits: EditOp[] = m.move.edits;
        const applied = applyEdits(source, edits);
        if (!applied.ok) continue;
        if (ctx.isKnownSource?.(applied.source)) continue;
        tries++;
        if (options.check && !(await options.check(applied.source))) continue;
        if (m.family === 'crossover') {
          const { inspiration } = m;
          return {
            edits,
            operator: m.move.operator,
            target: 'general',
            rationale:
              `crossover: take ${m.move.description} (validation ${inspiration.score.toFixed(3)} against the parent's ` +
              `${score.toFixed(3)}), keeping the rest of the parent.`,
          };
        }
        return {
          edits,
          operator: m.move.operator,
          target: 'retrieval',
          rationale: `AST mutation of the scoring code: ${m.move.description}.`,
        };
      }
      return null;
    },
  };
}
