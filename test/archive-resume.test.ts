import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArchive, openArchive, sha256, type Archive, type ProgramRecord, type SearchState } from '../src/archive/index.ts';
import { createRng, deriveSeed } from '../src/util/rng.ts';
import { softmaxSelector, strictlyBetter } from '../src/optimize/strategies/index.ts';

/**
 * A miniature search loop following the resume protocol the optimizer uses: settle what is on disk (evaluate
 * pending, decide undecided), then continue from the next iteration, drawing each iteration's randomness from
 * (seed, iteration) only. `killAfter` throws before the n-th archive write, like SIGKILL at that moment.
 */
class Killed extends Error {}

const SEED_SOURCE = 'const K = 10;\n';
const QUESTIONS = Array.from({ length: 12 }, (_, i) => `q${i}`);

/** Fitness rises as the latest K approaches 37: question i is right when |K − 37| ≤ 4i. */
function fakeEvaluate(source: string): { value: number; perQuestion: Record<string, number> } {
  const k = Number([...source.matchAll(/K=(\d+)/g)].pop()?.[1] ?? 10);
  const perQuestion = Object.fromEntries(QUESTIONS.map((q, i) => [q, Math.abs(k - 37) <= 4 * i ? 1 : 0]));
  const value = Object.values(perQuestion).reduce((a, b) => a + b, 0) / QUESTIONS.length;
  return { value, perQuestion };
}

interface RunOptions {
  iterations: number;
  seed: number;
  killAfter?: number;
  counters: { evaluations: number };
}

function runLoop(dir: string, o: RunOptions): Archive {
  let t = 0;
  const now = () => new Date(Date.UTC(2025, 0, 1) + 1000 * t++);
  let writes = 0;
  const write = <T>(f: () => T): T => {
    if (o.killAfter !== undefined && writes++ >= o.killAfter) throw new Killed();
    return f();
  };
  const archive = existsSync(join(dir, 'manifest.json'))
    ? openArchive(dir, { now })
    : write(() =>
        createArchive(
          dir,
          {
            config: {},
            seeds: [{ path: 'seed.ts', sha256: sha256(SEED_SOURCE) }],
            models: {},
            promptVersions: {},
            rngSeed: o.seed,
            versions: { memsteer: 't', node: 't', packages: {} },
            gitCommit: null,
          },
          { now },
        ),
      );
  const select = softmaxSelector(0.05);
  const accept = strictlyBetter();

  const settle = (p: ProgramRecord): void => {
    if (p.status === 'proposed') {
      o.counters.evaluations++;
      const r = fakeEvaluate(archive.source(p.id));
      p = write(() =>
        archive.recordEvaluation(p.id, {
          scores: { objective: 'evidence', value: r.value, n: QUESTIONS.length, perQuestion: r.perQuestion, metrics: {} },
        }),
      );
    }
    if (p.status === 'evaluated') {
      const current = archive.loadState().current;
      if (!current) {
        write(() => archive.recordDecision(p.id, { accepted: true, reason: 'seed baseline', against: null }));
        return;
      }
      const d = accept.decide(
        { id: p.id, score: p.scores!.value },
        { id: current.id, score: current.scores!.value },
        createRng(deriveSeed(o.seed, 'accept', p.iteration)),
      );
      write(() => archive.recordDecision(p.id, { accepted: d.accept, reason: d.reason, against: current.id, delta: d.delta }));
    }
  };

  let state = archive.loadState();
  if (state.seeds.length === 0) write(() => archive.addProgram({ iteration: 0, parent: null, source: SEED_SOURCE }));
  state = archive.loadState();
  for (const p of [...state.pending, ...state.undecided]) settle(archive.get(p.id));
  for (let it = archive.loadState().lastIteration + 1; it <= o.iterations; it++) {
    const pool = archive.loadState().accepted.map((p) => ({ id: p.id, score: p.scores!.value, iteration: p.iteration }));
    const parent = select.select(pool, createRng(deriveSeed(o.seed, 'select', it)));
    const draw = createRng(deriveSeed(o.seed, 'propose', it));
    const k = 1 + draw.int(50);
    if (draw.next() < 0.25) {
      write(() =>
        archive.addProgram({
          iteration: it,
          parent,
          edits: [{ op: 'set-constant', name: 'K', value: 'x' }],
          failure: { stage: 'apply', code: 'E_EDIT_LITERAL_KIND', message: 'K is a number' },
        }),
      );
    } else {
      const source = `${archive.source(parent)}// iteration ${it}: K=${k}\n`;
      const p = write(() => archive.addProgram({ iteration: it, parent, source, edits: [{ op: 'set-constant', name: 'K', value: k }] }));
      settle(p);
    }
    const s = archive.loadState();
    write(() =>
      archive.appendEvent({
        type: 'iteration-finished',
        iteration: it,
        best: s.best?.id ?? null,
        bestScore: s.best?.scores?.value ?? null,
      }),
    );
  }
  return archive;
}

/** The parts of the state a resumed run must reproduce exactly. */
function essence(s: SearchState) {
  return {
    programs: s.programs.map((p) => [p.id, p.parent, p.status, p.scores?.value ?? null, p.decision?.accepted ?? null]),
    accepted: s.accepted.map((p) => p.id),
    current: s.current?.id,
    best: s.best?.id,
    pending: s.pending.length,
    undecided: s.undecided.length,
    lastIteration: s.lastIteration,
    iterationsDone: s.iterationsDone,
    iterationsSinceImprovement: s.iterationsSinceImprovement,
  };
}

const root = mkdtempSync(join(tmpdir(), 'memsteer-resume-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('resume', () => {
  const ITER = 12;
  const reference = { evaluations: 0 };
  const refDir = join(root, 'reference');
  let refState: ReturnType<typeof essence>;
  let totalWrites = 0;
  beforeAll(() => {
    refState = essence(runLoop(refDir, { iterations: ITER, seed: 5, counters: reference }).loadState());
    // Count the writes of a full run by killing it at ever larger points until it completes.
    for (let n = 0; ; n++) {
      try {
        runLoop(join(root, `count-${n}`), { iterations: ITER, seed: 5, killAfter: n, counters: { evaluations: 0 } });
        totalWrites = n;
        break;
      } catch (err) {
        if (!(err instanceof Killed)) throw err;
      }
      rmSync(join(root, `count-${n}`), { recursive: true, force: true });
    }
  });

  it('the reference run accepts some proposals and rejects others', () => {
    expect(refState.accepted.length).toBeGreaterThan(1);
    expect(refState.programs.some((p) => p[2] === 'rejected')).toBe(true);
    expect(refState.programs.some((p) => p[2] === 'invalid')).toBe(true);
    expect(refState.lastIteration).toBe(ITER);
    expect(totalWrites).toBeGreaterThan(30);
  });

  it('a run killed at any write, with its last event line torn, resumes to the same state without re-paying evaluations', () => {
    for (let k = 0; k < totalWrites; k++) {
      const dir = join(root, `kill-${k}`);
      const counters = { evaluations: 0 };
      expect(() => runLoop(dir, { iterations: ITER, seed: 5, killAfter: k, counters })).toThrow(Killed);
      const events = join(dir, 'events.jsonl');
      // Every other kill also tears the event being appended, as a crash inside the write would.
      if (k % 2 === 1 && existsSync(events)) appendFileSync(events, '{"seq":999,"type":"program-eval');
      runLoop(dir, { iterations: ITER, seed: 5, counters });
      const resumed = openArchive(dir).loadState();
      expect(essence(resumed), `killed after ${k} writes`).toEqual(refState);
      // Only an evaluation cut off before its result was recorded runs again.
      expect(counters.evaluations).toBeLessThanOrEqual(reference.evaluations + 1);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('truncating events.jsonl anywhere leaves the rebuilt state unchanged', () => {
    const events = join(refDir, 'events.jsonl');
    const size = statSync(events).size;
    const original = readFileSync(events);
    for (const cut of [size - 1, size - 7, Math.floor(size / 2), 17]) {
      truncateSync(events, cut);
      const s = openArchive(refDir).loadState();
      expect(essence(s)).toEqual(refState);
      // A cut that only drops the final newline leaves a complete event: kept, not torn.
      expect(s.events.torn).toBe(cut !== size - 1 && original[cut - 1] !== 0x0a);
    }
  });
});
