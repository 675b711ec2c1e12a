import type { ProgramRecord } from '../archive/schemas.ts';

/** How many inspirations a proposal sees by default. */
export const DEFAULT_INSPIRATIONS = 3;

/** The ids of `id` and its ancestors (parent, grandparent… up to a seed). */
export function lineage(programs: readonly ProgramRecord[], id: string): Set<string> {
  const byId = new Map(programs.map((p) => [p.id, p]));
  const out = new Set<string>();
  for (let p = byId.get(id); p && !out.has(p.id); p = p.parent ? byId.get(p.parent) : undefined) out.add(p.id);
  return out;
}

/**
 * The inspirations of a proposal on `parent` (as M* and OpenEvolve show them): the best evaluated programs outside the
 * parent's own line of descent — rejected siblings and other branches included, since a candidate that lost overall
 * may still hold the better function — one per distinct source, best validation score first (ties: most recent,
 * then id, so the choice is deterministic).
 */
export function pickInspirations(programs: readonly ProgramRecord[], parent: ProgramRecord, max = DEFAULT_INSPIRATIONS): ProgramRecord[] {
  const own = lineage(programs, parent.id);
  const seen = new Set<string>([parent.contentHash]);
  const pool = programs
    .filter((p) => p.hasSource && p.scores && (p.status === 'accepted' || p.status === 'rejected') && !own.has(p.id))
    .sort((a, b) => b.scores!.value - a.scores!.value || b.iteration - a.iteration || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const out: ProgramRecord[] = [];
  for (const p of pool) {
    if (out.length >= max) break;
    if (seen.has(p.contentHash)) continue;
    seen.add(p.contentHash);
    out.push(p);
  }
  return out;
}
