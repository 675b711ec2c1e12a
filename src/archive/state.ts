import type { ArchiveEvent, ProgramRecord } from './schemas.ts';

/** The search state rebuilt from disk: what a resumed run continues from. */
export interface SearchState {
  /** Every program, by (iteration, attempt, createdAt, id). */
  programs: ProgramRecord[];
  seeds: ProgramRecord[];
  /** Accepted programs (seeds accepted as baseline included), in the order they were accepted. */
  accepted: ProgramRecord[];
  /** The most recently accepted program: MemSteer's current best, the greedy parent. */
  current: ProgramRecord | null;
  /** The accepted program with the highest validation score (earliest among ties). */
  best: ProgramRecord | null;
  /** Proposed and not yet evaluated: a resumed run evaluates these before proposing anything new. */
  pending: ProgramRecord[];
  /** Evaluated without an acceptance decision: a resumed run decides these (scores are on disk, nothing is re-run). */
  undecided: ProgramRecord[];
  /** Highest iteration any program belongs to (0 with only seeds, -1 for an empty archive). */
  lastIteration: number;
  /** Proposals made (every non-seed program, invalid ones and repair attempts included). */
  proposals: number;
  /** Iterations with at least one program that are fully decided. */
  iterationsDone: number;
  /** Finished iterations since the last acceptance of a proposal. */
  iterationsSinceImprovement: number;
  /** Summed cost of every program. */
  cost: { promptTokens: number; completionTokens: number; dollars: number };
  /** The last run-stopped event after the last resume, if any. */
  stopped: { reason: string; at: string } | null;
  events: { count: number; torn: boolean };
  /** Things that look off but do not stop a resume (orphan sources, a torn event line…). */
  warnings: string[];
}

const settled = (p: ProgramRecord): boolean =>
  p.status === 'accepted' || p.status === 'rejected' || p.status === 'invalid' || p.status === 'failed';

function order(a: ProgramRecord, b: ProgramRecord): number {
  return (
    a.iteration - b.iteration ||
    a.attempt - b.attempt ||
    (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/**
 * Rebuilds the state from program records (the source of truth: each is written atomically before its event)
 * and the event log (used only for the stop marker and warnings), so a truncated log loses nothing.
 */
export function buildState(
  programs: readonly ProgramRecord[],
  events: readonly ArchiveEvent[],
  torn: boolean,
  warnings: string[] = [],
): SearchState {
  const all = programs.slice().sort(order);
  const accepted = all
    .filter((p) => p.status === 'accepted')
    .sort(
      (a, b) =>
        a.iteration - b.iteration ||
        (a.decision!.decidedAt < b.decision!.decidedAt ? -1 : a.decision!.decidedAt > b.decision!.decidedAt ? 1 : 0) ||
        order(a, b),
    );
  let best: ProgramRecord | null = null;
  for (const p of accepted) if (!best || p.scores!.value > best.scores!.value) best = p;
  const byIteration = new Map<number, ProgramRecord[]>();
  for (const p of all) {
    if (p.kind === 'seed') continue;
    const list = byIteration.get(p.iteration) ?? [];
    list.push(p);
    byIteration.set(p.iteration, list);
  }
  const done = [...byIteration.entries()].filter(([, ps]) => ps.every(settled)).sort(([a], [b]) => a - b);
  let since = 0;
  for (const [, ps] of done) since = ps.some((p) => p.status === 'accepted') ? 0 : since + 1;
  const cost = { promptTokens: 0, completionTokens: 0, dollars: 0 };
  for (const p of all) {
    cost.promptTokens += p.cost.promptTokens;
    cost.completionTokens += p.cost.completionTokens;
    cost.dollars += p.cost.dollars;
  }
  let stopped: SearchState['stopped'] = null;
  for (const e of events) {
    if (e.type === 'run-stopped') stopped = { reason: e.reason, at: e.at };
    if (e.type === 'run-resumed') stopped = null;
  }
  const w = [...warnings];
  if (torn) w.push('events.jsonl ended in a torn line (a crash mid-append); it was ignored and will be cut on the next append');
  return {
    programs: all,
    seeds: all.filter((p) => p.kind === 'seed'),
    accepted,
    current: accepted[accepted.length - 1] ?? null,
    best,
    pending: all.filter((p) => p.status === 'proposed'),
    undecided: all.filter((p) => p.status === 'evaluated'),
    lastIteration: all.length ? Math.max(...all.map((p) => p.iteration)) : -1,
    proposals: all.filter((p) => p.kind !== 'seed').length,
    iterationsDone: done.length,
    iterationsSinceImprovement: since,
    cost,
    stopped,
    events: { count: events.length, torn },
    warnings: w,
  };
}
