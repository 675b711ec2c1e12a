/**
 * End to end on the embedded default history, offline: the optimizer evolves Base-BM25 on generated supervision,
 * writes a consistent archive and tests the result on the official QA; and a proposer whose replies are broken
 * (an unknown name, a type error, a sandbox-killing candidate) is recorded and the loop goes on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArchive, openArchive, type Archive, type ProgramRecord } from '../src/archive/index.ts';
import { compileDesign } from '../src/design/compile.ts';
import type { EditOp } from '../src/design/edit-ops.ts';
import { evalAnswererFrom, evalScorerFrom } from '../src/evaluate/eval-adapters.ts';
import { createEvalPool, type EvalPool } from '../src/evaluate/evaluate.ts';
import { createPoolEvaluator } from '../src/optimize/pool-evaluator.ts';
import type { Proposal, ProposalContext, Proposer } from '../src/optimize/proposers/types.ts';
import { runOptimize, type OptimizeReport } from '../src/optimize/run-optimize.ts';
import { runSearch, type SearchEvent, type SearchResult } from '../src/optimize/search-loop.ts';
import { acceptanceFromSpec, maxIterations, parentSelectorFromSpec } from '../src/optimize/strategies/index.ts';
import { LIMIT, SEED_PATH, prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';

/** Official QA categories for the final test: a subset keeps the test quick (every question has a date). */
const TEST_CATEGORIES = ['fact', 'temporal'];

/**
 * Iterations of the offline run: on the embedded persona's 60 validation items (asked on their own days since
 * rule-based@24) the first four moves lose and the sixth (session diversity) wins. The set is generated, so a
 * generator change can move this.
 */
const ITERATIONS = 6;
const ROUNDS = Array.from({ length: ITERATIONS }, (_, i) => i + 1);

let run: DefaultRun;
const seedSource = readFileSync(SEED_PATH, 'utf8');

beforeAll(async () => {
  run = await prepareDefaultRun('optimize-loop');
});

describe('runOptimize offline from seeds/base-bm25.ts', () => {
  let report: OptimizeReport;
  const events: SearchEvent[] = [];

  beforeAll(async () => {
    report = await runOptimize({
      out: join(run.dir, 'run'),
      config: {
        history: run.source,
        supervision: run.supervisionPath,
        seed: SEED_PATH,
        iterations: ITERATIONS,
        offline: true,
        limit: LIMIT,
        testCategories: TEST_CATEGORIES,
      },
      onEvent: (e) => events.push(e),
    });
  }, 300_000);

  it('raises validation fitness over the seed with at least one accepted program', () => {
    expect(report.objective).toBe('evidence');
    expect(report.stopReason).toMatch(new RegExp(`${ITERATIONS} iterations`));
    expect(report.accepted).toBeGreaterThanOrEqual(1);
    expect(report.best.id).not.toBe(report.seed.id);
    // Accepted means strictly better than the incumbent, so the best is strictly above the seed.
    expect(report.best.val.fitness).toBeGreaterThan(report.seed.val.fitness);
    expect(report.best.val.n).toBe(run.splits.val.length);
    expect(run.splits.val.length).toBeGreaterThan(LIMIT / 2);
    // Evidence objective: fitness is the context recall of the generated evidence.
    expect(report.best.val.contextRecall).toBeCloseTo(report.best.val.fitness, 10);
    // Improvements come from the default offline proposer's moves, and the best design differs from the seed.
    const accepted = report.trajectory.filter((t) => t.accepted);
    expect(accepted.length).toBe(report.accepted);
    for (const t of accepted) expect(t.proposer).toMatch(/^case-driven:/);
    expect(report.diff).toMatch(/^\+[^+]/m);
    // One iteration line per iteration, and the last one reports the best.
    const iterations = events.filter((e): e is Extract<SearchEvent, { type: 'iteration' }> => e.type === 'iteration');
    expect(iterations.map((e) => e.iteration)).toEqual(ROUNDS);
    expect(iterations.at(-1)).toMatchObject({ best: report.best.id, bestScore: report.best.val.fitness, tokens: 0 });
  });

  it('reports the seed and the best design on the official QA (test split)', () => {
    const n = run.history.qa.filter((q) => TEST_CATEGORIES.includes(q.category ?? '')).length;
    expect(n).toBeGreaterThan(10);
    for (const side of [report.seed, report.best]) {
      expect(side.test).not.toBeNull();
      expect(side.test!.n).toBe(n);
      expect(side.test!.contextRecall).toBeGreaterThan(0);
      expect(side.test!.contextRecall).toBeLessThanOrEqual(1);
      expect(side.test!.recallAt10).toBeGreaterThan(0);
    }
  });

  it('leaves an archive that reopens with consistent programs, lineage and decisions', () => {
    const archive = openArchive(report.dir);
    const state = archive.loadState();
    expect(state.warnings).toEqual([]);
    expect(state.stopped?.reason).toBe(report.stopReason);
    expect(state.programs).toHaveLength(1 + report.proposals);
    expect(state.seeds).toHaveLength(1);
    expect(state.seeds[0]!.id).toBe(report.seed.id);
    expect(state.best?.id).toBe(report.best.id);
    expect(state.pending).toEqual([]);
    expect(state.undecided).toEqual([]);
    expect(state.iterationsDone).toBe(ITERATIONS);
    expect(archive.source(report.seed.id)).toBe(seedSource);
    expect(archive.manifest.config).toMatchObject({ iterations: ITERATIONS, offline: true, limit: LIMIT, objective: 'evidence' });
    expect(archive.manifest.models.proposer).toBe('case-driven');

    const byId = new Map(state.programs.map((p) => [p.id, p]));
    for (const p of state.programs) {
      expect(archive.source(p.id).length).toBeGreaterThan(0); // checked against its content hash
      expect(p.id.startsWith(`i${String(p.iteration).padStart(3, '0')}-`)).toBe(true);
      if (p.kind === 'seed') continue;
      const parent = byId.get(p.parent!)!;
      expect(parent.status).toBe('accepted');
      expect(parent.iteration).toBeLessThan(p.iteration);
      expect(['accepted', 'rejected']).toContain(p.status);
      expect(p.scores!.n).toBe(run.scoredVal);
      expect(archive.traces(p.id)).toHaveLength(run.splits.val.length);
      // Each decision compares with the incumbent of its iteration, and agrees with the scores.
      const against = byId.get(p.decision!.against!)!;
      expect(p.decision!.delta).toBeCloseTo(p.scores!.value - against.scores!.value, 10);
      if (p.status === 'accepted') expect(p.scores!.value).toBeGreaterThan(against.scores!.value);
      else expect(p.scores!.value).toBeLessThanOrEqual(against.scores!.value);
    }

    // Lineage: from the seed to the best, every step accepted and better than the one before.
    const lineage = archive.lineage(report.best.id);
    expect(lineage[0]!.id).toBe(report.seed.id);
    expect(lineage.at(-1)!.id).toBe(report.best.id);
    for (let i = 1; i < lineage.length; i++) {
      expect(lineage[i]!.status).toBe('accepted');
      expect(lineage[i]!.parent).toBe(lineage[i - 1]!.id);
      expect(lineage[i]!.scores!.value).toBeGreaterThan(lineage[i - 1]!.scores!.value);
    }
    // Every accepted program was diagnosed on the training set.
    for (const p of state.accepted) expect(archive.diagnosis(p.id)?.failures).toBeGreaterThanOrEqual(0);

    // The event log tells the same story as the program files.
    const evs = archive.events();
    const added = evs.filter((e) => e.type === 'program-added').map((e) => e.program);
    expect(added.sort()).toEqual([...byId.keys()].sort());
    const decided = new Map(evs.flatMap((e) => (e.type === 'program-decided' ? [[e.program, e.accepted] as const] : [])));
    for (const p of state.programs) expect(decided.get(p.id)).toBe(p.status === 'accepted');
    expect(evs.filter((e) => e.type === 'iteration-finished').map((e) => e.iteration)).toEqual(ROUNDS);
  });
});

// ──────────── broken replies ────────────

/** A design whose store grows a Map until the sandbox process dies (V8's fatal OOM aborts the whole child). */
const MAP_BOMB_STORE = `store(records: SourceRecord[], tools: Tools): Memory {
    void records;
    void tools;
    const grow = new Map<number, number[]>();
    for (let i = 0; ; i++) grow.set(i, [i, i, i, i]);
  }`;

/** Replies in order, whatever it is asked; it remembers what it was shown. */
function scriptedProposer(replies: Proposal[]): Proposer & { seen: ProposalContext[] } {
  const seen: ProposalContext[] = [];
  return {
    name: 'scripted',
    seen,
    async propose(ctx) {
      seen.push(ctx);
      return replies.shift() ?? null;
    },
  };
}

describe('runSearch with broken proposals', () => {
  let pool: EvalPool;
  let archive: Archive;
  let result: SearchResult;
  let proposer: ReturnType<typeof scriptedProposer>;
  const events: SearchEvent[] = [];

  // The good proposal: each context line clipped to 600 characters, so more records fit the budget (on the validation
  // items here 0.336 → 0.378 at rule-based@36, where no constant of the seed beats it: not STEM, INDEX_DATES, TOP_K, a
  // BM25_K1 from 0.9 to 2 or a BM25_B from 0.5 to 1). The set is generated, so a generator change can move this: pick
  // the edit again from what the seed scores.
  const goodEdits: EditOp[] = [
    {
      op: 'replace-function',
      name: 'lineOf',
      code: [
        'function lineOf(r: SourceRecord): string {',
        '  const when = stamp(r.time);',
        "  const head = `${when ? `[${when}] ` : ''}${r.speaker ? `${r.speaker}: ` : ''}`;",
        "  const title = r.title ? `(${r.title}) ` : '';",
        "  return `${head}${title}${r.text.replace(/\\s*\\n\\s*/g, ' ').slice(0, 600)}`;",
        '}',
      ].join('\n'),
    },
  ];

  beforeAll(async () => {
    pool = createEvalPool({ size: 2 });
    const scorer = evalScorerFrom(null);
    const evaluator = createPoolEvaluator({
      histories: [run.history],
      questions: { train: run.splits.train, val: run.splits.val, test: [] },
      pool,
      answerer: evalAnswererFrom(null),
      score: scorer.score,
      judgeId: scorer.judgeId,
      budget: { tokens: 1000 },
      objective: 'evidence',
      cacheDir: join(run.dir, 'broken', 'eval-cache'),
    });
    archive = createArchive(join(run.dir, 'broken'), {
      config: { test: 'broken proposals' },
      seeds: [{ path: 'seeds/base-bm25.ts', sha256: 'x' }],
      models: { proposer: 'scripted' },
      promptVersions: {},
      rngSeed: 1,
    });
    proposer = scriptedProposer([
      // iteration 1, attempt 0: a name the design does not have
      {
        edits: [{ op: 'set-constant', name: 'NO_SUCH_CONSTANT', value: 3 }],
        rationale: 'tune a constant that does not exist',
        target: 'retrieval',
      },
      // iteration 1, attempt 1 (repair): applies, but returns a number where a string is due
      {
        edits: [
          {
            op: 'replace-function',
            name: 'stamp',
            code: 'function stamp(time: string | undefined): string {\n  return time ? time.length : 0;\n}',
          },
        ],
        rationale: 'shorter stamps',
        target: 'answering',
      },
      // iteration 1, attempt 2 (repair): compiles, then kills its sandbox process in store
      { edits: [{ op: 'replace-stage', stage: 'store', code: MAP_BOMB_STORE }], rationale: 'remember everything', target: 'storage' },
      // iteration 2: a good one
      { edits: goodEdits, rationale: 'fit more records into the budget', target: 'retrieval', operator: 'clip-lines' },
    ]);
    result = await runSearch({
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
      onEvent: (e) => events.push(e),
    });
  }, 240_000);

  afterAll(async () => {
    await pool?.close();
  });

  const byAttempt = (iteration: number, attempt: number): ProgramRecord => {
    const p = result.state.programs.find((x) => x.iteration === iteration && x.attempt === attempt);
    if (!p) throw new Error(`no program for iteration ${iteration} attempt ${attempt}`);
    return p;
  };

  it('records an edit with an unknown name as invalid, with the reason, and asks for a repair', () => {
    const p = byAttempt(1, 0);
    expect(p.status).toBe('invalid');
    expect(p.hasSource).toBe(false);
    expect(p.failure).toMatchObject({ stage: 'apply', code: 'E_EDIT_UNKNOWN_NAME' });
    expect(p.failure!.message).toContain('NO_SUCH_CONSTANT');
    expect(p.rationale).toBe('tune a constant that does not exist');
    // The next call was a repair that carried the error.
    expect(proposer.seen[1]!.repair?.attempt).toBe(1);
    expect(proposer.seen[1]!.repair?.feedback).toContain('E_EDIT_UNKNOWN_NAME');
  });

  it('records a type error as invalid at compile, with the diagnostic', () => {
    const p = byAttempt(1, 1);
    expect(p.status).toBe('invalid');
    expect(p.failure).toMatchObject({ stage: 'compile', code: 'E_COMPILE' });
    expect(p.failure!.message).toMatch(/not assignable to type 'string'/);
    expect(p.applied?.map((a) => a.op)).toEqual(['replace-function']);
    expect(proposer.seen[2]!.repair?.feedback).toMatch(/does not type-check/);
  });

  it('records a candidate that kills its sandbox as failed at evaluation, with the reason', () => {
    const p = byAttempt(1, 2);
    expect(p.status).toBe('failed');
    expect(p.hasSource).toBe(true);
    expect(archive.source(p.id)).toContain('grow.set(i');
    expect(p.failure?.stage).toBe('evaluate');
    // Usually the process dies (crash); the isolate's own limits (memory, timeout) are the other containments.
    expect(p.failure?.code).toMatch(/^E_SANDBOX_(CRASH|MEMORY|TIMEOUT)$/);
    expect(p.failure!.message).toMatch(/^store: \S/);
    expect(events.some((e) => e.type === 'invalid' && e.program === p.id && e.stage === 'evaluate')).toBe(true);
  });

  it('goes on and accepts the later good proposal', () => {
    const good = byAttempt(2, 0);
    expect(good.status).toBe('accepted');
    expect(good.parent).toBe(result.seed.id);
    expect(good.proposer).toBe('scripted:clip-lines');
    expect(good.scores!.value).toBeGreaterThan(result.seed.scores!.value);
    expect(result.best.id).toBe(good.id);
    expect(result.stopReason).toMatch(/2 iterations/);
    // The good proposal was shown what went wrong before.
    const revisions = proposer.seen[3]!.revisions;
    expect(revisions.map((r) => r.id)).toEqual([byAttempt(1, 0).id, byAttempt(1, 1).id, byAttempt(1, 2).id]);
    expect(revisions.every((r) => !r.accepted && r.failure)).toBe(true);
    expect(proposer.seen).toHaveLength(4);
  });

  it('reopens from disk with the same statuses', () => {
    const reopened = openArchive(archive.dir).loadState();
    expect(reopened.programs.map((p) => [p.id, p.status])).toEqual(result.state.programs.map((p) => [p.id, p.status]));
    expect(reopened.proposals).toBe(4);
    expect(reopened.iterationsDone).toBe(2);
    expect(reopened.accepted.map((p) => p.id)).toEqual([result.seed.id, byAttempt(2, 0).id]);
  });
});
