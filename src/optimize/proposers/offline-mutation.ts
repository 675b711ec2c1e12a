import { FAILURE_CATEGORIES } from '../../diagnose/diagnosis.ts';
import type { Diagnosis } from '../../diagnose/diagnosis.ts';
import { applyEdits } from '../../design/apply-edits.ts';
import { reachableNames } from '../../design/reachability.ts';
import type { EditOp } from '../../design/edit-ops.ts';
import { CONSTANT_RANGES, CONSTANT_TARGETS, MUTATION_OPERATORS, type MutationOperator, type OperatorTarget } from './mutation-catalog.ts';
import type { Proposal, ProposalContext, Proposer, RevisionNote } from './types.ts';
import { FailureTarget, type Objective } from '../../config/run-options.ts';
import { CONFIG_FIELDS, declaredConfig, fieldSpec, isActive, isConfigName } from '../config-space.ts';

const TARGETS: readonly OperatorTarget[] = FailureTarget.options;

/** Top-level names declared in a design's source (functions and consts), read with a light scan. */
export function declaredNames(source: string): Set<string> {
  const names = new Set<string>();
  for (const m of source.matchAll(/^(?:export\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type)\s+([A-Za-z_$][\w$]*)/gm))
    names.add(m[1]!);
  return names;
}

/** Top-level numeric constants (`const NAME = 1.5;`) and their values. */
export function numericConstants(source: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of source.matchAll(/^const\s+([A-Z][A-Z0-9_]*)\s*=\s*(-?\d+(?:\.\d+)?)\s*;/gm)) out.set(m[1]!, Number(m[2]));
  return out;
}

/**
 * Config knobs that catalog and case-move code reads (retrieval through `indexOf` and its BM25 options, the cut to
 * TOP_K). A move can make one of them matter where the design's config had switched it off (a case pipeline ranks
 * with BM25 whatever RETRIEVER says), so their config activity says nothing about a design that has moves.
 */
export const KNOBS_READ_BY_MOVES: readonly string[] = ['TOP_K', 'BM25_K1', 'BM25_B', 'STEM'];

/**
 * Constants a tweak cannot change the results by, so the proposer does not spend an iteration on one: those marked
 * `@inert` in their doc comment (a batch size), config knobs of a feature the design's own config switches off
 * (EXPANDED_HITS while CONTEXT_NEIGHBOURS is 0), except those move code reads, and every numeric or config constant
 * the design object no longer reaches ({@link reachableNames}): once a case move replaces `retrieve`, the seed's
 * applyTime and fuseSessions are dead code, and so are RERANK_DEPTH and TIME_WEIGHT. A design without the
 * configurable seed's knobs has none of the second kind. On a RHELM code arm, 5 of the last 8 iterations were such
 * tweaks, each scoring exactly its parent's validation fitness; in another run, "tweak RERANK_DEPTH to 300" on a
 * design whose retrieve no longer read it did the same. Under the ranking objective, which scores the ranking
 * `retrieve` returns, so is a constant only the `context` stage reads (a RHELM code arm tweaked CONTEXT_NEIGHBOURS).
 */
export function inertConstants(source: string, objective?: Objective): Set<string> {
  const out = new Set<string>();
  for (const m of source.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*const\s+([A-Z][A-Z0-9_]*)\b/g)) {
    if (/@inert\b/.test(m[1]!)) out.add(m[2]!);
  }
  const config = declaredConfig(source);
  if (config) {
    for (const name of Object.keys(CONFIG_FIELDS)) {
      if (isConfigName(name) && !KNOBS_READ_BY_MOVES.includes(name) && !isActive(name, config)) out.add(name);
    }
  }
  const reachable = reachableNames(source, objective === 'ranking' ? { skipStages: ['context'] } : {});
  const constants = [...numericConstants(source).keys(), ...[...declaredNames(source)].filter(isConfigName)];
  for (const name of constants) if (!reachable.has(name)) out.add(name);
  return out;
}

/**
 * Failure categories to work on, most pressing first: by diagnosed count, ties in pipeline order (storage
 * bounds retrieval, which bounds answering). Categories with no failures come last, so the search still has
 * moves when the diagnosis is silent.
 */
export function targetOrder(diagnosis: Diagnosis | null): OperatorTarget[] {
  if (!diagnosis) return [...TARGETS];
  const count = (t: OperatorTarget) => diagnosis.counts[t] ?? 0;
  return [...TARGETS].sort((a, b) => count(b) - count(a) || FAILURE_CATEGORIES.indexOf(a) - FAILURE_CATEGORIES.indexOf(b));
}

function triedOnParent(revisions: readonly RevisionNote[], parent: string): Set<string> {
  return new Set(revisions.filter((r) => r.parent === parent && r.operator).map((r) => r.operator!));
}

function applicable(op: MutationOperator, source: string, names: Set<string>): boolean {
  return !source.includes(op.marker) && op.requires.every((n) => names.has(n));
}

/**
 * A constant's range: the catalog's, else a config knob's schema range (a design grown from the configurable seed
 * keeps its knobs, and a knob outside its range is a weight of the wrong sign: SESSION_FUSION 0 was tweaked to −1).
 */
function rangeOf(name: string): { min: number; max: number; step: number; integer?: boolean } | undefined {
  if (CONSTANT_RANGES[name]) return CONSTANT_RANGES[name];
  if (!isConfigName(name)) return undefined;
  const spec = fieldSpec(name);
  return spec.kind === 'int' || spec.kind === 'number'
    ? { min: spec.min, max: spec.max, step: spec.step, integer: spec.kind === 'int' }
    : undefined;
}

/** A constant tweak: one step up or down inside the constant's range, named `tweak:NAME:+` / `tweak:NAME:-`. */
function tweak(name: string, value: number, direction: 1 | -1): { value: number; operator: string } | null {
  const range = rangeOf(name);
  const step = range ? range.step : Math.max(Math.abs(value) * 0.5, 1);
  let next = value + direction * step;
  if (range) next = Math.min(range.max, Math.max(range.min, next));
  if (range?.integer ?? Number.isInteger(value)) next = Math.round(next);
  else next = Math.round(next * 1000) / 1000;
  if (next === value) return null;
  return { value: next, operator: `tweak:${name}:${direction > 0 ? '+' : '-'}` };
}

/**
 * The offline proposer: draws from a catalog of building blocks ({@link MUTATION_OPERATORS}) and constant
 * tweaks, chosen by the parent's dominant diagnosed failure category (storage → what is stored and indexed,
 * retrieval → how units are ranked, answering → what the context delivers and in which order). Structural
 * operators come before tweaks; nothing already tried on the same parent is proposed again, so each parent's
 * neighbourhood is explored without repeats. A mutation proposer, not a model: it never reads the failures'
 * text, only their categories.
 */
export function createMutationProposer(options: { operators?: readonly MutationOperator[] } = {}): Proposer {
  const operators = options.operators ?? MUTATION_OPERATORS;
  return {
    name: 'offline-mutation',
    async propose(ctx: ProposalContext): Promise<Proposal | null> {
      // Catalog edits are checked by tests; a failed one is a bug in the catalog, not something a retry fixes.
      if (ctx.repair) return null;
      const { source, id } = ctx.parent;
      const names = declaredNames(source);
      const tried = triedOnParent(ctx.revisions, id);
      const order = targetOrder(ctx.diagnosis);
      const counts = ctx.diagnosis?.counts ?? {};
      // Read only once a tweak is wanted: most proposals are structural operators, and the config read parses the source.
      let live: Array<[string, number]> | undefined;
      const tweakable = (target: OperatorTarget): Array<[string, number]> => {
        if (!live) {
          const inert = inertConstants(source, ctx.objective);
          live = [...numericConstants(source)].filter(([n]) => !inert.has(n));
        }
        return live.filter(([n]) => (CONSTANT_TARGETS[n] ?? 'retrieval') === target);
      };
      // A move whose result is already in the archive (a tweak that undoes an earlier one) teaches nothing.
      const fresh = (edits: EditOp[]): boolean => {
        if (!ctx.isKnownSource) return true;
        const r = applyEdits(source, edits);
        return !r.ok || !ctx.isKnownSource(r.source);
      };
      for (const target of order) {
        const structural = ctx.rng.shuffle(
          operators.filter((op) => op.targets.includes(target) && !tried.has(op.name) && applicable(op, source, names)),
        );
        for (const op of structural) {
          const edits: EditOp[] = op.edits(
            (n) => names.has(n),
            (m) => source.includes(m),
          );
          if (!fresh(edits)) continue;
          return { edits, operator: op.name, target, rationale: `${describe(target, counts)}; operator ${op.name}: ${op.why}.` };
        }
        const constants = tweakable(target);
        const moves: Array<{ name: string; value: number; operator: string }> = [];
        for (const [name, value] of constants) {
          for (const dir of [1, -1] as const) {
            const t = tweak(name, value, dir);
            if (t && !tried.has(t.operator)) moves.push({ name, ...t });
          }
        }
        for (const m of ctx.rng.shuffle(moves)) {
          const edits: EditOp[] = [{ op: 'set-constant', name: m.name, value: m.value }];
          if (!fresh(edits)) continue;
          return { edits, operator: m.operator, target, rationale: `${describe(target, counts)}; tweak ${m.name} to ${m.value}.` };
        }
      }
      // Second order, once every single move around this parent is spent: a structural operator with one of the
      // constants it introduces already moved (session fusion may hurt at weight 0.6 and help at 0.35), then two
      // constant tweaks at once.
      for (const target of order) {
        const compound: Array<{ edits: EditOp[]; operator: string; why: string }> = [];
        for (const op of operators.filter((o) => o.targets.includes(target) && applicable(o, source, names))) {
          const base = op.edits(
            (n) => names.has(n),
            (m) => source.includes(m),
          );
          for (const [name, value] of introducedConstants(base)) {
            for (const dir of [1, -1] as const) {
              const t = tweak(name, value, dir);
              if (t)
                compound.push({
                  edits: [...base, { op: 'set-constant', name, value: t.value }],
                  operator: `${op.name}+${t.operator}`,
                  why: `${op.why}, with ${name} = ${t.value}`,
                });
            }
          }
        }
        const constants = tweakable(target);
        for (let i = 0; i < constants.length; i++) {
          for (let j = i + 1; j < constants.length; j++) {
            for (const di of [1, -1] as const) {
              for (const dj of [1, -1] as const) {
                const a = tweak(constants[i]![0], constants[i]![1], di);
                const b = tweak(constants[j]![0], constants[j]![1], dj);
                if (!a || !b) continue;
                compound.push({
                  edits: [
                    { op: 'set-constant', name: constants[i]![0], value: a.value },
                    { op: 'set-constant', name: constants[j]![0], value: b.value },
                  ],
                  operator: `${a.operator}+${b.operator}`,
                  why: `tweak ${constants[i]![0]} to ${a.value} and ${constants[j]![0]} to ${b.value}`,
                });
              }
            }
          }
        }
        for (const m of ctx.rng.shuffle(compound)) {
          if (tried.has(m.operator) || !fresh(m.edits)) continue;
          return { edits: m.edits, operator: m.operator, target, rationale: `${describe(target, counts)}; ${m.operator}: ${m.why}.` };
        }
      }
      return null;
    },
  };
}

/** Numeric constants an edit list adds (`const NAME = 0.6;` inside add-helper code), with their values. */
function introducedConstants(edits: readonly EditOp[]): Array<[string, number]> {
  return edits.flatMap((e) => (e.op === 'add-helper' ? [...numericConstants(e.code)] : []));
}

function describe(target: OperatorTarget, counts: Record<string, number>): string {
  const n = counts[target] ?? 0;
  return n > 0 ? `${n} training failures diagnosed as ${target}` : `no ${target} failures left to target directly (exploring)`;
}
