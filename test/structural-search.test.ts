import { describe, expect, it } from 'vitest';
import type { ProgramRecord } from '../src/archive/schemas.ts';
import { applyEdits } from '../src/design/apply-edits.ts';
import { compileDesign } from '../src/design/compile.ts';
import { pickInspirations } from '../src/optimize/inspirations.ts';
import { createMixedProposer } from '../src/optimize/proposers/mixed-proposer.ts';
import { createStructuralProposer } from '../src/optimize/proposers/structural-proposer.ts';
import type { Proposal, ProposalContext, Proposer } from '../src/optimize/proposers/types.ts';
import {
  eliteGrid,
  greedySelector,
  mapElitesSelector,
  parentSelectorFromSpec,
  type ScoredProgram,
} from '../src/optimize/strategies/index.ts';
import { createRng } from '../src/util/rng.ts';
import { grown } from './helpers/grown-design.ts';

const parentSource = grown(['session-fusion', 'time-boost']);
const inspirationSource = grown(['query-prf', 'time-boost']);

function context(rngSeed: number, extra: Partial<ProposalContext> = {}): ProposalContext {
  return {
    parent: { id: 'i003-parent', source: parentSource, score: 0.6, scores: {} },
    diagnosis: null,
    failures: [],
    revisions: [],
    objective: 'evidence',
    rng: createRng(rngSeed),
    ...extra,
  };
}

const compiles = async (source: string) => (await compileDesign(source)).ok;

describe('structural proposer', () => {
  it('proposes one typed edit list that applies and type-checks, the same one for the same seed', async () => {
    const p = createStructuralProposer({ check: compiles });
    const a = await p.propose(context(7));
    const b = await p.propose(context(7));
    expect(a).not.toBeNull();
    expect(b).toEqual(a);
    const r = applyEdits(parentSource, a!.edits);
    expect(r.ok).toBe(true);
    if (r.ok) expect(await compiles(r.source)).toBe(true);
    expect(a!.operator).toMatch(/^ast:/);
    // Different seeds explore different moves.
    const ops = new Set<string>();
    for (let s = 1; s <= 8; s++) ops.add((await p.propose(context(s)))!.operator!);
    expect(ops.size).toBeGreaterThan(3);
  }, 60_000);

  it('crosses over with an inspiration, skips moves tried on the parent, and gives up when nothing type-checks', async () => {
    const p = createStructuralProposer({ crossoverRate: 1, check: compiles });
    const inspirations = [{ id: 'i002-other', source: inspirationSource, score: 0.65, scores: {} }];
    const first = await p.propose(context(1, { inspirations }));
    expect(first!.operator).toMatch(/^crossover:(expandQuery|rescoreHits):i002-other$/);
    expect(first!.target).toBe('general');
    const tried = { parent: 'i003-parent', rationale: '', edits: [], accepted: false, delta: -0.01 };
    const second = await p.propose(context(1, { inspirations, revisions: [{ ...tried, id: 'i004-x', operator: first!.operator! }] }));
    expect(second!.operator).not.toBe(first!.operator);
    const firstResult = applyEdits(parentSource, first!.edits);
    const firstSource = firstResult.ok ? firstResult.source : '';
    const known = await createStructuralProposer({ crossoverRate: 1 }).propose(
      context(1, { inspirations, isKnownSource: (s) => s === firstSource }),
    );
    expect(known!.operator).not.toBe(first!.operator);
    expect(await createStructuralProposer({ check: () => false, maxTries: 5 }).propose(context(1))).toBeNull();
    expect(await p.propose(context(1, { repair: { edits: [], feedback: 'x', attempt: 1 } }))).toBeNull();
  }, 60_000);
});

function fixed(name: string, result: Proposal | null): Proposer & { calls: number } {
  const p = {
    name,
    calls: 0,
    async propose() {
      p.calls++;
      return result;
    },
  };
  return p;
}
const proposal = (operator: string): Proposal => ({
  edits: [{ op: 'remove-helper', name: 'X' }],
  rationale: operator,
  target: 'general',
  operator,
});

describe('mixed proposer', () => {
  it('draws parts by weight and falls back on the others when the drawn one is spent', async () => {
    const a = fixed('a', proposal('a'));
    const b = fixed('b', proposal('b'));
    const mix = createMixedProposer([
      { proposer: a, weight: 3 },
      { proposer: b, weight: 1 },
    ]);
    const drawn: Record<string, number> = {};
    for (let s = 0; s < 400; s++) {
      const op = (await mix.propose(context(s)))!.operator!;
      drawn[op] = (drawn[op] ?? 0) + 1;
    }
    expect(drawn.a! / 400).toBeGreaterThan(0.65);
    expect(drawn.a! / 400).toBeLessThan(0.85);
    const spent = createMixedProposer([
      { proposer: fixed('a', null), weight: 1 },
      { proposer: b, weight: 0 },
    ]);
    expect((await spent.propose(context(1)))!.operator).toBe('b');
    expect(await createMixedProposer([{ proposer: fixed('a', null), weight: 1 }]).propose(context(1))).toBeNull();
    expect(() => createMixedProposer([])).toThrow(expect.objectContaining({ code: 'E_BAD_MIX' }));
    expect(() => createMixedProposer([{ proposer: a, weight: -1 }])).toThrow(expect.objectContaining({ code: 'E_BAD_MIX' }));
  });
});

/** Questions t1, t2 are temporal; s1, s2 single-hop. */
const groupOf = (k: string) => (k.startsWith('t') ? 'temporal' : 'single-hop');
const pq = (t: number, s: number) => ({ t1: t, t2: t, s1: s, s2: s });
const pool: ScoredProgram[] = [
  { id: 'seed', score: 0.5, iteration: 0, perQuestion: pq(0.5, 0.5) },
  { id: 'temporal-best', score: 0.6, iteration: 1, perQuestion: pq(1, 0.2) },
  { id: 'temporal-worse', score: 0.55, iteration: 2, perQuestion: pq(1, 0.1) },
  { id: 'single-best', score: 0.58, iteration: 3, perQuestion: pq(0.2, 0.96) },
  { id: 'overall', score: 0.62, iteration: 4, perQuestion: pq(0.6, 0.64) },
];

describe('MAP-Elites parent selection', () => {
  it('keeps the best program of each behaviour niche', () => {
    const grid = eliteGrid(pool, { bins: 3, groupOf });
    const ids = grid.map((n) => n.id).sort();
    // The seed shares the middle cell with `overall`, which beats it; temporal-worse loses its cell to temporal-best.
    expect(ids).toEqual(['overall', 'single-best', 'temporal-best']);
    expect(grid.find((n) => n.id === 'temporal-best')!.descriptor).toEqual({ 'single-hop': 0.2, temporal: 1 });
  });

  it('picks parents from several niches where greedy always picks one, and never a niche loser', () => {
    const select = mapElitesSelector({ groupOf, temperature: 0.05 });
    expect(select.pool).toBe('evaluated');
    const rng = createRng(3);
    const picked: Record<string, number> = {};
    for (let i = 0; i < 2000; i++) {
      const id = select.select(pool, rng);
      picked[id] = (picked[id] ?? 0) + 1;
    }
    expect(Object.keys(picked).sort()).toEqual(['overall', 'single-best', 'temporal-best']);
    // Still ∝ exp(score / T) among the elites.
    expect(picked.overall).toBeGreaterThan(picked['temporal-best']!);
    expect(picked['temporal-best']).toBeGreaterThan(picked['single-best']!);
    expect(new Set(Array.from({ length: 50 }, () => greedySelector().select(pool, rng)))).toEqual(new Set(['overall']));
  });

  it('is deterministic by seed and parses from its spec', () => {
    const s = parentSelectorFromSpec('map-elites:4:0.1', { groupOf });
    expect(s.name).toBe('map-elites:4:0.1');
    const draw = (seed: number) => {
      const rng = createRng(seed);
      return Array.from({ length: 20 }, () => s.select(pool, rng));
    };
    expect(draw(9)).toEqual(draw(9));
    expect(parentSelectorFromSpec('map-elites').name).toBe('map-elites:3:0.05');
    for (const bad of ['map-elites:x', 'map-elites:3:hot', 'map-elites:3:0.1:9', 'map-elites:0', 'map-elites:'])
      expect(() => parentSelectorFromSpec(bad), bad).toThrow(expect.objectContaining({ code: 'E_BAD_SELECT' }));
  });
});

function record(id: string, parent: string | null, score: number | null, status: ProgramRecord['status'], hash = id): ProgramRecord {
  return {
    id,
    kind: parent ? 'proposal' : 'seed',
    iteration: Number(id.slice(1, 4)),
    attempt: 0,
    parent,
    createdAt: '',
    updatedAt: '',
    edits: [],
    contentHash: hash.padEnd(64, '0'),
    hasSource: status !== 'invalid',
    status,
    ...(score === null ? {} : { scores: { objective: 'evidence', value: score, n: 1, perQuestion: {}, metrics: {} } }),
    cost: { promptTokens: 0, completionTokens: 0, dollars: 0 },
  };
}

describe('inspirations', () => {
  it('are the best evaluated programs outside the parent lineage, one per source', () => {
    const programs = [
      record('i000a', null, 0.5, 'accepted'),
      record('i001a', 'i000a', 0.6, 'accepted'),
      record('i002a', 'i001a', 0.7, 'accepted'), // the parent
      record('i003a', 'i000a', 0.65, 'rejected'),
      record('i004a', 'i001a', 0.64, 'rejected'),
      record('i005a', 'i001a', 0.66, 'rejected', 'i003a'), // same source as i003a
      record('i006a', 'i002a', null, 'invalid'),
      record('i007a', 'i002a', 0.3, 'rejected'),
      record('i008a', 'i002a', 0.2, 'rejected'),
    ];
    const parent = programs[2]!;
    expect(pickInspirations(programs, parent).map((p) => p.id)).toEqual(['i005a', 'i004a', 'i007a']);
    expect(pickInspirations(programs, parent, 1).map((p) => p.id)).toEqual(['i005a']);
  });
});
