/**
 * The time limit of one sandbox stage call, measured so that a loaded machine does not fail a design an idle one
 * passes. On a shared machine a stage's wall-clock time stretches with whatever else runs (two evaluations on two
 * cores doubled a RHELM retrieve that builds its index lazily from 1.4 s to 5.6 s, over the 5 s limit, and the
 * same design scored differently from one run to the next). So a stage is over its limit only when it has run
 * longer than the limit on the wall clock AND used more CPU time than the limit in this process; the wall clock
 * alone stops it at LOAD_SLACK times the limit, whatever the CPU says (a host callback blocked on I/O, a machine
 * so loaded that nothing would finish).
 *
 * The price: a stage that loops in its own code without calling a tool can only be stopped by isolated-vm's
 * wall-clock timeout, so it now runs to the cap (LOAD_SLACK times the limit) instead of to the limit; a tool call
 * past the limit is refused as soon as the CPU rule says so, and the evaluation gives up on a group after two
 * timeouts in a row (src/evaluate/eval-group.ts).
 *
 * CPU time is this process's (`process.cpuUsage`): the isolate's thread and the host tools it calls. A sandbox
 * process runs one evaluation task at a time (src/pool/pool-worker.ts), so other work rarely adds to it; when it
 * does, the stage is judged as strictly as on the wall clock alone, never more leniently.
 */

/** How far past its limit a stage may run on the wall clock while its CPU time stays under the limit. */
export const LOAD_SLACK = 3;

/** One stage call's clock. */
export interface StageClock {
  /** The limit, milliseconds of CPU time (and of wall-clock time: both must be exceeded). */
  readonly limitMs: number;
  /** The wall-clock time at which the stage is stopped whatever its CPU time (LOAD_SLACK × the limit). */
  readonly capMs: number;
  /** Whether the stage is over its limit now. */
  over(): boolean;
  /** Time used so far: wall clock and this process's CPU, milliseconds. */
  used(): { wallMs: number; cpuMs: number };
}

/** Starts the clock of a stage call limited to `limitMs`. */
export function startStageClock(limitMs: number, slack = LOAD_SLACK): StageClock {
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  const cpuMs = (): number => {
    const d = process.cpuUsage(cpu0);
    return (d.user + d.system) / 1000;
  };
  const capMs = limitMs * slack;
  return {
    limitMs,
    capMs,
    over() {
      const wall = performance.now() - wall0;
      if (wall <= limitMs) return false;
      return wall > capMs || cpuMs() > limitMs;
    },
    used() {
      return { wallMs: performance.now() - wall0, cpuMs: cpuMs() };
    },
  };
}
