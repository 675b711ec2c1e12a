/**
 * The feedback ablation's arms as the proposer sees them: 'random' hands it sampled failures and no diagnosis,
 * 'diagnosis' hands it the parent's training diagnosis (the offline proposer's only signal).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArchive } from '../src/archive/index.ts';
import { compileDesign } from '../src/design/compile.ts';
import { evalAnswererFrom, evalScorerFrom } from '../src/evaluate/eval-adapters.ts';
import { createEvalPool, type EvalPool } from '../src/evaluate/evaluate.ts';
import { createPoolEvaluator } from '../src/optimize/pool-evaluator.ts';
import { createMutationProposer } from '../src/optimize/proposers/offline-mutation.ts';
import type { ProposalContext, Proposer } from '../src/optimize/proposers/types.ts';
import { runSearch, type FeedbackMode } from '../src/optimize/search-loop.ts';
import { acceptanceFromSpec, maxIterations, parentSelectorFromSpec } from '../src/optimize/strategies/index.ts';
import { SEED_PATH, prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';

let run: DefaultRun;
let pool: EvalPool;

beforeAll(async () => {
  run = await prepareDefaultRun('bench-feedback', 80);
  pool = createEvalPool({ size: 2 });
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

/** Runs two iterations with `mode` and returns what the (offline) proposer was given each time. */
async function contextsSeen(mode: FeedbackMode): Promise<ProposalContext[]> {
  const inner = createMutationProposer();
  const seen: ProposalContext[] = [];
  const proposer: Proposer = { name: inner.name, propose: (ctx) => (seen.push(ctx), inner.propose(ctx)) };
  const scorer = evalScorerFrom(null);
  const dir = join(run.dir, mode);
  await runSearch({
    archive: createArchive(dir, {
      config: { feedback: mode },
      seeds: [{ path: SEED_PATH, sha256: 'x' }],
      models: { proposer: 'offline-mutation' },
      promptVersions: {},
      rngSeed: 1,
    }),
    evaluator: createPoolEvaluator({
      histories: [run.history],
      questions: { ...run.splits, test: [] },
      pool,
      answerer: evalAnswererFrom(null),
      score: scorer.score,
      judgeId: scorer.judgeId,
      budget: { tokens: 1000 },
      objective: 'evidence',
      cacheDir: join(run.dir, 'eval-cache'),
    }),
    proposer,
    select: parentSelectorFromSpec('greedy'),
    accept: acceptanceFromSpec('better'),
    stop: maxIterations(2),
    compile: (s) => compileDesign(s),
    objective: 'evidence',
    seeds: [{ label: 'seeds/base-bm25.ts', source: readFileSync(SEED_PATH, 'utf8') }],
    records: [run.history],
    rngSeed: 1,
    feedback: mode,
  });
  return seen;
}

describe('feedback modes', () => {
  it("'random' gives the proposer failure samples but no diagnosis; 'diagnosis' gives it the diagnosis", async () => {
    const random = await contextsSeen('random');
    const diagnosis = await contextsSeen('diagnosis');
    expect(random.length).toBeGreaterThanOrEqual(2);
    expect(diagnosis.length).toBeGreaterThanOrEqual(2);
    for (const ctx of random) {
      expect(ctx.diagnosis).toBeNull();
      expect(ctx.failures.length).toBeGreaterThan(0);
    }
    for (const ctx of diagnosis) {
      expect(ctx.diagnosis).not.toBeNull();
      expect(Object.values(ctx.diagnosis!.counts).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    }
  }, 300_000);
});
