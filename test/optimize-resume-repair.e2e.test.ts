/**
 * A run killed between a proposal whose edits did not apply and its repair resumes with the repair (same
 * iteration, next attempt, the same feedback and revision history), and ends like an uninterrupted run.
 * The kill is simulated at library level: the proposer never answers the repair call, and the run is reopened
 * from disk by a fresh runSearch, exactly as `optimize --resume` would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArchive, openArchive } from '../src/archive/index.ts';
import { compileDesign } from '../src/design/compile.ts';
import type { EditOp } from '../src/design/edit-ops.ts';
import { evalAnswererFrom, evalScorerFrom } from '../src/evaluate/eval-adapters.ts';
import { createEvalPool, type EvalPool } from '../src/evaluate/evaluate.ts';
import type { CandidateEvaluator } from '../src/optimize/candidate-evaluator.ts';
import { createPoolEvaluator } from '../src/optimize/pool-evaluator.ts';
import { MUTATION_OPERATORS } from '../src/optimize/proposers/mutation-catalog.ts';
import { declaredNames } from '../src/optimize/proposers/offline-mutation.ts';
import type { Proposal, ProposalContext, Proposer } from '../src/optimize/proposers/types.ts';
import { runSearch } from '../src/optimize/search-loop.ts';
import { acceptanceFromSpec, maxIterations, parentSelectorFromSpec } from '../src/optimize/strategies/index.ts';
import { SEED_PATH, prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';

const seedSource = readFileSync(SEED_PATH, 'utf8');
const names = declaredNames(seedSource);
const fusionEdits: EditOp[] = MUTATION_OPERATORS.find((op) => op.name === 'session-fusion')!.edits(
  (n) => names.has(n),
  (m) => seedSource.includes(m),
);

/** Iteration 1: a good reply; iteration 2 (the last): a bad reply, then its repair. */
const script = (): Proposal[] => [
  { edits: fusionEdits, rationale: 'fuse session scores', target: 'retrieval' },
  { edits: [{ op: 'set-constant', name: 'NO_SUCH_CONSTANT', value: 3 }], rationale: 'a constant that is not there', target: 'retrieval' },
  { edits: [{ op: 'set-constant', name: 'TOP_K', value: 80 }], rationale: 'more candidates', target: 'retrieval' },
];

/** Scripted replies; `hangAt` (a call index) never answers, which is where the simulated kill happens. */
function scripted(replies: Proposal[], hangAt = -1): Proposer & { seen: ProposalContext[]; reached: Promise<void> } {
  const seen: ProposalContext[] = [];
  let reach = () => {};
  const reached = new Promise<void>((r) => (reach = r));
  return {
    name: 'scripted',
    seen,
    reached,
    propose(ctx) {
      seen.push(ctx);
      if (seen.length - 1 === hangAt) {
        reach();
        return new Promise<Proposal | null>(() => {});
      }
      return Promise.resolve(replies.shift() ?? null);
    },
  };
}

let run: DefaultRun;
let pool: EvalPool;
let evaluator: CandidateEvaluator;

function search(dir: string, proposer: Proposer, fresh: boolean) {
  const archive = fresh
    ? createArchive(dir, { config: {}, seeds: [{ path: 'seeds/base-bm25.ts', sha256: 'x' }], models: {}, promptVersions: {}, rngSeed: 1 })
    : openArchive(dir);
  return runSearch({
    archive,
    evaluator,
    proposer,
    select: parentSelectorFromSpec('greedy'),
    accept: acceptanceFromSpec('better'),
    stop: maxIterations(2),
    compile: (s) => compileDesign(s),
    objective: 'evidence',
    seeds: [{ label: 'seeds/base-bm25.ts', source: seedSource }],
    records: [run.history],
    rngSeed: 1,
    repairs: 2,
  });
}

beforeAll(async () => {
  run = await prepareDefaultRun('optimize-resume-repair');
  pool = createEvalPool({ size: 2 });
  const scorer = evalScorerFrom(null);
  evaluator = createPoolEvaluator({
    histories: [run.history],
    questions: { train: run.splits.train, val: run.splits.val, test: [] },
    pool,
    answerer: evalAnswererFrom(null),
    score: scorer.score,
    judgeId: scorer.judgeId,
    budget: { tokens: 1000 },
    objective: 'evidence',
    // Shared by the runs below: what one evaluated, the others read back.
    cacheDir: join(run.dir, 'eval-cache'),
  });
}, 60_000);

afterAll(async () => {
  await pool?.close();
});

describe('resume between a failed edit and its repair', () => {
  it('continues the repair and ends like the uninterrupted run', async () => {
    const straight = scripted(script());
    const uninterrupted = await search(join(run.dir, 'straight'), straight, true);

    const killedDir = join(run.dir, 'killed');
    const first = scripted(script(), 2);
    void search(killedDir, first, true);
    await first.reached;
    const atKill = openArchive(killedDir).loadState();
    expect(atKill.programs.map((p) => [p.iteration, p.attempt, p.status])).toEqual([
      [0, 0, 'accepted'],
      [1, 0, expect.stringMatching(/^(accepted|rejected)$/)],
      [2, 0, 'invalid'],
    ]);
    // On disk the last iteration looks finished (all its programs settled); the loop must not stop there.
    expect(atKill.iterationsDone).toBe(2);

    const again = scripted(script().slice(2));
    const resumed = await search(killedDir, again, false);

    // The only call after the resume is the repair of iteration 2, as the uninterrupted run made it.
    expect(again.seen).toHaveLength(1);
    expect(straight.seen).toHaveLength(3);
    expect(again.seen[0]!.repair).toEqual(straight.seen[2]!.repair);
    expect(again.seen[0]!.repair?.feedback).toContain('E_EDIT_UNKNOWN_NAME');
    expect(again.seen[0]!.parent.id).toBe(straight.seen[2]!.parent.id);
    expect(again.seen[0]!.revisions).toEqual(straight.seen[2]!.revisions);

    const shape = (s: typeof resumed) => s.state.programs.map((p) => [p.id, p.iteration, p.attempt, p.status]);
    expect(shape(resumed)).toEqual(shape(uninterrupted));
    expect(resumed.best.id).toBe(uninterrupted.best.id);
    expect(resumed.state.iterationsDone).toBe(2);
    const repaired = resumed.state.programs.find((p) => p.iteration === 2 && p.attempt === 1);
    expect(['accepted', 'rejected']).toContain(repaired?.status);
    expect(repaired?.applied?.[0]?.summary).toBe('TOP_K: 50 → 80');
  }, 120_000);
});
