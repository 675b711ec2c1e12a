/**
 * The official test split is unreachable during a search: runSearch is handed an evaluator that also holds test
 * questions, and a spy proves it never evaluates them nor even reads them; the evaluator runOptimize hands the
 * search (searchSplitsOnly) has no test split at all.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArchive } from '../src/archive/index.ts';
import { QAItemSchema, type QAItem } from '../src/history/record.ts';
import type { CompileResult } from '../src/isolate/sandbox-api.ts';
import {
  searchSplitsOnly,
  type CandidateEvaluation,
  type CandidateEvaluator,
  type QuestionSplit,
} from '../src/optimize/candidate-evaluator.ts';
import type { Proposal, ProposalContext, Proposer } from '../src/optimize/proposers/types.ts';
import { runSearch, type SearchResult } from '../src/optimize/search-loop.ts';
import { acceptanceFromSpec, maxIterations, parentSelectorFromSpec } from '../src/optimize/strategies/index.ts';
import { summarize } from '../src/scoring/summary.ts';
import { SEED_PATH } from './fixtures/optimize/default-run.ts';

const seedSource = readFileSync(SEED_PATH, 'utf8');

const item = (id: string, split: QuestionSplit): QAItem =>
  QAItemSchema.parse({ id, history: 'h', question: `question ${id}?`, answer: 'a', answerType: 'text', evidence: [], split });

/** Fitness read from the design's TOP_K constant, so a proposal that raises it is better. */
const fitnessOf = (source: string): number => Number(/const TOP_K = (\d+);/.exec(source)?.[1] ?? 0) / 100;

/** A fake evaluator over train, val and test questions that records every split asked for and every read of test. */
function spyEvaluator(): CandidateEvaluator & { asked: QuestionSplit[]; testReads: number } {
  const questions = { train: [item('t1', 'train'), item('t2', 'train')], val: [item('v1', 'val')] };
  const spy = {
    asked: [] as QuestionSplit[],
    testReads: 0,
    questions: {
      ...questions,
      get test(): QAItem[] {
        spy.testReads++;
        return [item('official-1', 'test')];
      },
    },
    async evaluate(program: { source: string }, split: QuestionSplit): Promise<CandidateEvaluation> {
      spy.asked.push(split);
      const fitness = fitnessOf(program.source);
      return {
        traces: [],
        summary: summarize([]),
        perQuestion: { 'h/v1': fitness },
        fitness,
        provenance: new Set<string>(),
        key: `${split}:${fitness}`,
        cached: false,
        tokens: { prompt: 0, completion: 0 },
        ms: 1,
      };
    },
  };
  return spy;
}

/** No type-check or esbuild: the spy does not run programs, it only reads their source. */
const fakeCompile = async (source: string): Promise<CompileResult> => ({
  ok: true,
  program: { hash: String(source.length), js: '', source, fileName: 'design.ts' },
  ms: 0,
  cached: false,
});

/** Raises TOP_K by 10 per proposal, and keeps the splits of the training view each proposal was given. */
function raisingTopK(): Proposer & { trainingSplits: Array<string[] | undefined> } {
  let value = 50;
  const trainingSplits: Array<string[] | undefined> = [];
  return {
    name: 'scripted',
    trainingSplits,
    async propose(ctx: ProposalContext): Promise<Proposal> {
      trainingSplits.push(ctx.training?.items.map((i) => i.split ?? '?'));
      value += 10;
      return { edits: [{ op: 'set-constant', name: 'TOP_K', value }], rationale: `TOP_K ${value}`, target: 'retrieval' };
    },
  };
}

describe('runSearch and the test split', () => {
  let dir: string;
  let spy: ReturnType<typeof spyEvaluator>;
  let result: SearchResult;
  let proposer: ReturnType<typeof raisingTopK>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memsteer-test-split-'));
    spy = spyEvaluator();
    proposer = raisingTopK();
    result = await runSearch({
      archive: createArchive(join(dir, 'run'), {
        config: {},
        seeds: [{ path: SEED_PATH, sha256: 'x' }],
        models: {},
        promptVersions: {},
        rngSeed: 1,
      }),
      evaluator: spy,
      proposer,
      select: parentSelectorFromSpec('greedy'),
      accept: acceptanceFromSpec('better'),
      stop: maxIterations(3),
      compile: fakeCompile,
      objective: 'evidence',
      seeds: [{ label: 'seeds/base-bm25.ts', source: seedSource }],
      records: [],
      rngSeed: 1,
    });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('evaluates train and val, accepts, re-diagnoses, and never asks for or reads the test split', () => {
    expect(result.stopReason).toMatch(/3 iterations/);
    expect(result.state.accepted.map((p) => p.scores?.value)).toEqual([0.5, 0.6, 0.7, 0.8]);
    // Every candidate on val; the seed and each accepted program on train (its diagnosis).
    expect(spy.asked.filter((s) => s === 'val')).toHaveLength(4);
    expect(spy.asked.filter((s) => s === 'train')).toHaveLength(4);
    expect(spy.asked).not.toContain('test');
    expect(spy.testReads).toBe(0);
  });

  it('shows the proposer a training view of the training items only', () => {
    expect(proposer.trainingSplits).toHaveLength(3);
    for (const splits of proposer.trainingSplits) expect(splits).toEqual(['train', 'train']);
  });
});

describe('searchSplitsOnly', () => {
  it('offers train and val only, and refuses the test split even through a cast', async () => {
    const spy = spyEvaluator();
    const view = searchSplitsOnly(spy);
    expect(Object.keys(view.questions).sort()).toEqual(['train', 'val']);
    expect(spy.testReads).toBe(0);
    const program = (await fakeCompile(seedSource)) as Extract<CompileResult, { ok: true }>;
    await expect(view.evaluate(program.program, 'val')).resolves.toMatchObject({ fitness: 0.5 });
    expect(() => view.evaluate(program.program, 'test' as 'val')).toThrow(/test split/);
    expect(spy.asked).toEqual(['val']);
  });
});
