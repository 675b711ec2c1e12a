/**
 * Structural search inside the loop: a selector that asks for the evaluated pool gets rejected programs too, and every
 * proposal sees the best programs outside its parent's lineage as inspirations (none in the control).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createArchive } from '../src/archive/index.ts';
import { QAItemSchema, type QAItem } from '../src/history/record.ts';
import type { CompileResult } from '../src/isolate/sandbox-api.ts';
import type { CandidateEvaluation, QuestionSplit, SearchEvaluator } from '../src/optimize/candidate-evaluator.ts';
import type { ProposalContext, Proposer } from '../src/optimize/proposers/types.ts';
import { runSearch } from '../src/optimize/search-loop.ts';
import { acceptanceFromSpec, greedySelector, maxIterations, type ParentSelector } from '../src/optimize/strategies/index.ts';
import { summarize } from '../src/scoring/summary.ts';
import { SEED_PATH } from './fixtures/optimize/default-run.ts';

const seedSource = readFileSync(SEED_PATH, 'utf8');
const item = (id: string, split: QuestionSplit): QAItem =>
  QAItemSchema.parse({ id, history: 'h', question: `question ${id}?`, answer: 'a', answerType: 'text', evidence: [], split });

/** Fitness is TOP_K / 100: the scripted proposals below are accepted or rejected by the value they set. */
function evaluator(): SearchEvaluator {
  return {
    questions: { train: [item('t1', 'train')], val: [item('v1', 'val')] },
    async evaluate(program: { source: string }, split: QuestionSplit): Promise<CandidateEvaluation> {
      const fitness = Number(/const TOP_K = (\d+);/.exec(program.source)?.[1] ?? 0) / 100;
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
  } as SearchEvaluator;
}

const fakeCompile = async (source: string): Promise<CompileResult> => ({
  ok: true,
  program: { hash: String(source.length), js: '', source, fileName: 'design.ts' },
  ms: 0,
  cached: false,
});

/** Sets TOP_K to the next scripted value and records what each proposal saw. */
function scripted(values: number[]): Proposer & { seen: ProposalContext[] } {
  const p = {
    name: 'scripted',
    seen: [] as ProposalContext[],
    async propose(ctx: ProposalContext) {
      p.seen.push(ctx);
      const value = values[p.seen.length - 1]!;
      return { edits: [{ op: 'set-constant', name: 'TOP_K', value }], rationale: `TOP_K ${value}`, target: 'retrieval' as const };
    },
  };
  return p;
}

function recording(pool: 'accepted' | 'evaluated'): ParentSelector & { pools: string[][] } {
  const greedy = greedySelector();
  const s = {
    name: 'recording',
    pool,
    pools: [] as string[][],
    select(programs: Parameters<ParentSelector['select']>[0], rng: Parameters<ParentSelector['select']>[1]) {
      s.pools.push(programs.map((p) => `${p.id.slice(0, 4)}:${p.score}`));
      return greedy.select(programs, rng);
    },
  };
  return s;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function search(select: ParentSelector, proposer: Proposer, control = false) {
  const dir = mkdtempSync(join(tmpdir(), 'memsteer-structural-loop-'));
  dirs.push(dir);
  return runSearch({
    archive: createArchive(join(dir, 'run'), {
      config: {},
      seeds: [{ path: SEED_PATH, sha256: 'x' }],
      models: {},
      promptVersions: {},
      rngSeed: 1,
    }),
    evaluator: evaluator(),
    proposer,
    select,
    accept: acceptanceFromSpec('better'),
    stop: maxIterations(3),
    compile: fakeCompile,
    objective: 'evidence',
    seeds: [{ label: 'seeds/base-bm25.ts', source: seedSource }],
    records: [],
    rngSeed: 1,
    control,
  });
}

describe('structural search in the loop', () => {
  it('hands an evaluated-pool selector the rejected programs too, and the accepted-pool one only the accepted', async () => {
    // Seed TOP_K 50 → 0.5; then 40 (rejected), 60 (accepted), 30.
    const evaluated = recording('evaluated');
    await search(evaluated, scripted([40, 60, 30]));
    expect(evaluated.pools).toEqual([['i000:0.5'], ['i000:0.5', 'i001:0.4'], ['i000:0.5', 'i001:0.4', 'i002:0.6']]);
    const accepted = recording('accepted');
    await search(accepted, scripted([40, 60, 30]));
    expect(accepted.pools.at(-1)).toEqual(['i000:0.5', 'i002:0.6']);
  });

  it('shows each proposal the best programs outside its lineage, with their sources; the control sees none', async () => {
    const proposer = scripted([40, 60, 30]);
    await search(greedySelector(), proposer);
    expect(proposer.seen[0]!.inspirations).toBeUndefined(); // only the seed, the parent's own lineage
    const third = proposer.seen[2]!;
    expect(third.parent.score).toBe(0.6);
    expect(third.inspirations!.map((i) => [i.id.slice(0, 4), i.score])).toEqual([['i001', 0.4]]);
    expect(third.inspirations![0]!.source).toContain('const TOP_K = 40;');
    const control = scripted([40, 60, 30]);
    await search(greedySelector(), control, true);
    expect(control.seen.every((c) => c.inspirations === undefined)).toBe(true);
  });
});
