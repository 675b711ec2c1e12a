/**
 * One pass over time: the date groups of one history run in increasing cutoff order in one task, and a design with
 * the optional `add` stage keeps one memory for the whole pass: `store` over the records visible at the first
 * cutoff, then `add` of the records that became visible before each later group's questions. A design without
 * `add` gets a fresh isolate and a `store` per group, exactly as separate group tasks would (eval-group.ts), so its
 * results do not depend on how groups are dispatched.
 *
 * The date rule still holds: the memory at a group holds only that group's visible records (visible sets are nested,
 * so each `add` brings only records at or before the group's cutoff), and provenance is limited to them.
 *
 * A pass may be one shard of a history (eval-shards.ts): its groups are the history's up to the shard's last
 * question, some of them without questions; those only carry records forward, and are skipped for a design without
 * `add`.
 *
 * A fresh isolate is still used after anything that leaves the memory in doubt: a failed `store` or `add` fails
 * that group only, and the next group stores from scratch; an isolate lost mid-group is rebuilt with `store` over
 * the group's records, as in a group task.
 */
import type { SourceRecord } from '../../sandbox/contract.ts';
import type { CompiledProgram, HostToolsOptions, Sandbox } from '../isolate/sandbox-api.ts';
import { emptyGroupResult, type GroupResult, type GroupTask, type MemorySource, runGroup, type SandboxFactory } from './eval-group.ts';

/** The groups of one history, in the order `groupByVisibleRecords` gives (increasing cutoff, undated last). */
export interface TimelineTask {
  /** Names this timeline in the host's per-group reports (see eval-worker.ts). */
  token: string;
  groups: GroupTask[];
}

/** Receives each group's result as soon as it is done (the host answers it while the pass goes on). */
export type GroupSink = (index: number, result: GroupResult) => Promise<void> | void;

/**
 * Runs the groups of one history in order, reporting each to `onGroup`. Never throws for anything the design does;
 * a crash of the process loses only the groups not yet reported.
 */
export async function runTimeline(
  task: TimelineTask,
  program: CompiledProgram,
  allRecords: readonly SourceRecord[],
  factory: SandboxFactory,
  bridge: Pick<HostToolsOptions, 'llm' | 'embedder'>,
  onGroup: GroupSink,
): Promise<void> {
  const first = task.groups[0];
  if (!first) return;
  const source = growingMemory(factory, program, first, bridge);
  try {
    for (const [i, group] of task.groups.entries()) {
      // A shard's group without questions (eval-shards.ts) is there only to carry records forward with `add`; a
      // design without `add` builds every group's memory afresh, so nothing would read this one.
      if (group.questions.length === 0 && (await source.carriesNothing())) {
        await onGroup(i, emptyGroupResult());
        continue;
      }
      const result = await runGroup(group, program, allRecords, factory, bridge, source);
      await onGroup(i, result);
    }
  } finally {
    source.dispose();
  }
}

/**
 * A memory source that keeps its sandbox between groups and grows it with `add` when the design has one. The
 * records it holds are tracked by id: each group's visible set contains the previous one, so what is new is
 * what the memory does not hold yet (in the history's order, as `store` would have received it).
 */
function growingMemory(
  factory: SandboxFactory,
  program: CompiledProgram,
  task: Pick<GroupTask, 'toolOptions' | 'limits'>,
  bridge: Pick<HostToolsOptions, 'llm' | 'embedder'>,
): MemorySource & { dispose(): void; carriesNothing(): Promise<boolean> } {
  const tools = factory.createHostTools({ ...task.toolOptions, ...bridge });
  let sandbox: Sandbox | null = null;
  /** Ids of the records the sandbox's memory holds; null when it holds no memory we can grow. */
  let held: Set<string> | null = null;

  /** A sandbox loaded by `carriesNothing` that has stored nothing yet: the next build uses it. */
  let unused: Sandbox | null = null;

  const fresh = async (records: SourceRecord[]) => {
    held = null;
    let createMs = 0;
    if (!unused?.alive) {
      sandbox?.dispose();
      sandbox = null;
      const created = await factory.createSandbox(program, tools, task.limits);
      if (!created.ok) return { createMs: created.ms, sandbox: null, failure: created.failure };
      sandbox = created.sandbox;
      createMs = created.ms;
    }
    unused = null;
    const live = sandbox!;
    const stored = await live.store(records);
    if (stored.ok && live.incremental) held = new Set(records.map((r) => r.id));
    return { createMs, sandbox: live, stored };
  };

  return {
    tools,
    async open(records, rebuild) {
      const live = sandbox;
      const have = held;
      if (rebuild || !live || !live.alive || !live.incremental || !have) return fresh(records);
      const added = records.filter((r) => !have.has(r.id));
      if (added.length + have.size !== records.length) return fresh(records); // not a superset: never grow across it
      held = null;
      const stored = await live.add(added);
      if (!stored.ok) {
        // Trace stages are the contract's three: name the add in the message.
        return {
          createMs: 0,
          sandbox: live,
          stored: { ...stored, failure: { ...stored.failure, message: `add: ${stored.failure.message}` } },
        };
      }
      for (const r of added) have.add(r.id);
      held = have;
      return { createMs: 0, sandbox: live, stored };
    },
    // The sandbox outlives the group: the next group grows it.
    close() {},
    /** Whether a group's memory can be left unbuilt when no question reads it: the design has no `add`. */
    async carriesNothing() {
      if (!sandbox) {
        // Load the design to learn whether it has `add`; `held` stays null, so the next group stores into it.
        const created = await factory.createSandbox(program, tools, task.limits);
        if (!created.ok) return false;
        sandbox = unused = created.sandbox;
      }
      return sandbox.alive && !sandbox.incremental;
    },
    dispose() {
      sandbox?.dispose();
      sandbox = null;
      tools.dispose();
    },
  };
}
