import { applyEdits } from '../../design/apply-edits.ts';
import {
  CONFIG_FIELDS,
  CONFIG_NAMES,
  configEdits,
  fieldSpec,
  isActive,
  readConfig,
  type Config,
  type ConfigName,
} from '../config-space.ts';
import type { OperatorTarget } from './mutation-catalog.ts';
import { targetOrder } from './offline-mutation.ts';
import type { Proposal, ProposalContext, Proposer, RevisionNote } from './types.ts';

/** One candidate move: a single knob set to a new value. */
export interface ConfigMove {
  name: ConfigName;
  value: string | number | boolean;
  /** True for a switch (enum option, boolean flip, a feature turned on from 0); false for a numeric step. */
  switch: boolean;
}

/** Rounds a stepped number onto the knob's grid (integers stay integers; reals to 3 decimals). */
function onGrid(value: number, integer: boolean): number {
  return integer ? Math.round(value) : Math.round(value * 1000) / 1000;
}

/**
 * Every single-knob move from `config` that stays inside the schema and changes behaviour: enum → each other
 * option, boolean → flipped, number → one step up or down (clamped to the range). Knobs of a feature that is off
 * (the fusion weight of a BM25-only retriever) are left out: changing them changes nothing.
 */
export function configMoves(config: Config): ConfigMove[] {
  const moves: ConfigMove[] = [];
  for (const name of CONFIG_NAMES) {
    if (!isActive(name, config)) continue;
    const spec = fieldSpec(name);
    const current = config[name];
    if (spec.kind === 'enum') {
      for (const o of spec.options) if (o !== current) moves.push({ name, value: o, switch: true });
    } else if (spec.kind === 'boolean') {
      moves.push({ name, value: !current, switch: true });
    } else {
      const v = current as number;
      for (const dir of [1, -1]) {
        const next = onGrid(Math.min(spec.max, Math.max(spec.min, v + dir * spec.step)), spec.kind === 'int');
        if (next !== v) moves.push({ name, value: next, switch: v === 0 });
      }
    }
  }
  return moves;
}

function operatorOf(m: ConfigMove): string {
  return `set:${m.name}=${String(m.value)}`;
}

function triedOnParent(revisions: readonly RevisionNote[], parent: string): Set<string> {
  return new Set(revisions.filter((r) => r.parent === parent && r.operator).map((r) => r.operator!));
}

/**
 * The offline config proposer: mutations within the config schema, chosen by the parent's dominant diagnosed
 * failure category like the code mutation proposer (storage → what is indexed, retrieval → how records are ranked,
 * answering → what the context delivers). Switches (another option, a feature turned on) come before numeric steps;
 * a config already in the archive, or a move already tried on this parent, is never proposed again. A mutation
 * proposer, not a model: it reads only the failure categories.
 */
export function createConfigMutationProposer(): Proposer {
  return {
    name: 'offline-config-mutation',
    async propose(ctx: ProposalContext): Promise<Proposal | null> {
      // Moves are schema-valid by construction; a failed one is a bug here, not something a retry fixes.
      if (ctx.repair) return null;
      const { source, id } = ctx.parent;
      const config = readConfig(source);
      const tried = triedOnParent(ctx.revisions, id);
      const counts = ctx.diagnosis?.counts ?? {};
      const moves = configMoves(config).filter((m) => !tried.has(operatorOf(m)));
      const fresh = (m: ConfigMove): boolean => {
        if (!ctx.isKnownSource) return true;
        const r = applyEdits(source, configEdits({ [m.name]: m.value }));
        return !r.ok || !ctx.isKnownSource(r.source);
      };
      for (const target of targetOrder(ctx.diagnosis)) {
        const mine = moves.filter((m) => CONFIG_FIELDS[m.name].targets.includes(target));
        const ordered = [...ctx.rng.shuffle(mine.filter((m) => m.switch)), ...ctx.rng.shuffle(mine.filter((m) => !m.switch))];
        for (const m of ordered) {
          if (!fresh(m)) continue;
          return {
            edits: configEdits({ [m.name]: m.value }),
            operator: operatorOf(m),
            target,
            rationale:
              `${describe(target, counts)}; set ${m.name} from ${JSON.stringify(config[m.name])} to ${JSON.stringify(m.value)} ` +
              `(${CONFIG_FIELDS[m.name].doc}).`,
          };
        }
      }
      return null;
    },
  };
}

function describe(target: OperatorTarget, counts: Record<string, number>): string {
  const n = counts[target] ?? 0;
  return n > 0 ? `${n} training failures diagnosed as ${target}` : `no ${target} failures left to target directly (exploring)`;
}
