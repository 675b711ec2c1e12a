import type { Objective } from '../src/config/run-options.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyAndCheck } from '../src/design/apply-edits.ts';
import { compileDesign } from '../src/design/compile.ts';
import { createSandbox } from '../src/isolate/sandbox-runner.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import { MUTATION_OPERATORS } from '../src/optimize/proposers/mutation-catalog.ts';
import { CASE_MOVES } from '../src/optimize/proposers/case-driven-proposer.ts';
import {
  KNOBS_READ_BY_MOVES,
  createMutationProposer,
  declaredNames,
  inertConstants,
  numericConstants,
} from '../src/optimize/proposers/offline-mutation.ts';
import { applyEdits } from '../src/design/apply-edits.ts';
import { CONFIG_FIELDS, fieldSpec, isConfigName } from '../src/optimize/config-space.ts';
import { parseEdits } from '../src/design/edit-ops.ts';
import { createRng } from '../src/util/rng.ts';
import type { SourceRecord } from '../sandbox/contract.ts';
import type { Diagnosis } from '../src/diagnose/diagnosis.ts';

const root = join(import.meta.dirname, '..');
const seed = readFileSync(join(root, 'seeds/base-bm25.ts'), 'utf8');

// Two short sessions: the answer to "when did Ana adopt the dog" sits in a turn that shares no word with the question.
const records: SourceRecord[] = [
  {
    id: 'D1:1',
    kind: 'turn',
    text: 'I finally adopted a dog from the shelter!',
    speaker: 'Ana',
    thread: 's1',
    time: '2023-05-08T13:00:00',
  },
  { id: 'D1:2', kind: 'turn', text: 'That is wonderful, what breed?', speaker: 'Ben', thread: 's1', time: '2023-05-08T13:01:00' },
  { id: 'D1:3', kind: 'turn', text: 'A beagle named Pepper.', speaker: 'Ana', thread: 's1', time: '2023-05-08T13:02:00' },
  {
    id: 'D2:1',
    kind: 'turn',
    text: 'I went hiking in the mountains last weekend.',
    speaker: 'Ben',
    thread: 's2',
    time: '2023-06-10T09:00:00',
  },
  { id: 'D2:2', kind: 'turn', text: 'The weather was great and we saw a lake.', speaker: 'Ben', thread: 's2', time: '2023-06-10T09:01:00' },
  { id: 'D2:3', kind: 'turn', text: 'Sounds lovely. Pepper would love a lake.', speaker: 'Ana', thread: 's2', time: '2023-06-10T09:02:00' },
];

async function run(source: string, question: string) {
  const compiled = await compileDesign(source);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.diagnostics.slice(0, 3)));
  const created = await createSandbox(compiled.program, createHostTools());
  if (!created.ok) throw new Error(created.failure.message);
  const sb = created.sandbox;
  try {
    const stored = await sb.store(records);
    expect(stored.ok).toBe(true);
    const q = { id: 'q', text: question };
    const hits = await sb.retrieve(q);
    if (!hits.ok) throw new Error(hits.failure.message);
    const ctx = await sb.context(q, hits.value, { tokens: 60 });
    if (!ctx.ok) throw new Error(ctx.failure.message);
    return { hits: hits.value, context: ctx.value };
  } finally {
    sb.dispose();
  }
}

describe('offline mutation catalog', () => {
  it.each(MUTATION_OPERATORS.map((op) => [op.name, op] as const))('%s applies to base-bm25, compiles and runs', async (_name, op) => {
    const names = declaredNames(seed);
    expect(op.requires.every((n) => names.has(n))).toBe(true);
    const checked = await applyAndCheck(
      seed,
      op.edits(
        (n) => names.has(n),
        (m) => seed.includes(m),
      ),
      compileDesign,
    );
    if (!checked.ok) throw new Error(JSON.stringify(checked));
    expect(checked.source).toContain(op.marker);
    const out = await run(checked.source, 'What breed is the dog Ana adopted?');
    expect(out.hits.length).toBeGreaterThan(0);
    expect(out.context.tokens).toBeLessThanOrEqual(60);
  });

  it('composes every operator in sequence, and the window operator finds a turn through its neighbours', async () => {
    let source = seed;
    // dedupe-packing and neighbour-packing are alternatives for the same slot; the later one would replace the other.
    const chain = MUTATION_OPERATORS.filter((op) => op.name !== 'dedupe-packing');
    for (const op of chain) {
      const names = declaredNames(source);
      const checked = await applyAndCheck(
        source,
        op.edits(
          (n) => names.has(n),
          (m) => source.includes(m),
        ),
        compileDesign,
      );
      if (!checked.ok) throw new Error(`${op.name}: ${JSON.stringify(checked)}`);
      source = checked.source;
    }
    for (const op of chain) expect(source).toContain(op.marker);
    // "beagle named Pepper" shares no term with the question except through D1:1 next to it.
    const base = await run(seed, 'adopted shelter');
    const evolved = await run(source, 'adopted shelter');
    const rank = (hits: { unit: string }[]) => hits.findIndex((h) => h.unit === 'D1:3');
    expect(rank(base.hits)).toBe(-1);
    expect(rank(evolved.hits)).toBeGreaterThanOrEqual(0);
  });

  it('targets the dominant failure category and never repeats a move on the same parent', async () => {
    const proposer = createMutationProposer();
    const diagnosis = { counts: { answering: 5, retrieval: 1, storage: 0 } } as unknown as Diagnosis;
    const revisions: Parameters<typeof proposer.propose>[0]['revisions'] = [];
    const seen = new Set<string>();
    const rng = createRng(7);
    for (let i = 0; i < 12; i++) {
      const p = await proposer.propose({
        parent: { id: 'p0', source: seed, score: 0, scores: {} },
        diagnosis,
        failures: [],
        revisions,
        objective: 'evidence',
        rng,
      });
      if (!p) break;
      if (i < 3) expect(p.target).toBe('answering');
      expect(seen.has(p.operator!)).toBe(false);
      seen.add(p.operator!);
      revisions.push({ id: `c${i}`, parent: 'p0', operator: p.operator!, rationale: p.rationale, edits: [], accepted: false, delta: -0.1 });
    }
    expect(seen.size).toBeGreaterThan(5);
    expect([...numericConstants(seed).keys()]).toEqual(expect.arrayContaining(['TOP_K', 'BM25_K1', 'BM25_B']));
  });

  it('spends no iteration on a constant that cannot change the results: @inert ones, and knobs of a feature switched off', async () => {
    const configurable = readFileSync(join(root, 'seeds/configurable.ts'), 'utf8');
    const inert = inertConstants(configurable);
    // Defaults: BM25 alone, no feedback terms, no time filter, no context neighbours.
    expect([...inert].sort()).toEqual(
      expect.arrayContaining(['EMBED_BATCH', 'EMBEDDING_WEIGHT', 'EXPANDED_HITS', 'EXPANSION_DOCS', 'RRF_K', 'TIME_WEIGHT']),
    );
    for (const live of ['TOP_K', 'BM25_B', 'BM25_K1', 'EXPANSION_TERMS', 'CONTEXT_NEIGHBOURS', 'RERANK_DEPTH'])
      expect(inert.has(live)).toBe(false);
    // Switching the feature on makes its knobs matter.
    const withNeighbours = applyEdits(configurable, [{ op: 'set-constant', name: 'CONTEXT_NEIGHBOURS', value: 1 }]);
    expect(withNeighbours.ok && inertConstants(withNeighbours.source).has('EXPANDED_HITS')).toBe(false);
    // Move code ranks with BM25 whatever RETRIEVER says, so its options stay tweakable under an embedding config.
    const dense = applyEdits(configurable, [{ op: 'set-constant', name: 'RETRIEVER', value: 'embedding' }]);
    expect(dense.ok && inertConstants(dense.source).has('BM25_B')).toBe(false);
    expect(inertConstants(seed).size).toBe(0);

    const proposals = await proposeOnOneParent(configurable, { answering: 3, retrieval: 5, storage: 1 }, 3, 40);
    for (const p of proposals) for (const name of inert) expect(p.operator).not.toMatch(new RegExp(`tweak:${name}:`));
    expect(proposals.some((p) => p.operator?.startsWith('tweak:'))).toBe(true);
  });

  it('counts constants inert that only code the design no longer calls reads (a case move replaced retrieve)', async () => {
    const configurable = readFileSync(join(root, 'seeds/configurable.ts'), 'utf8');
    // With the time boost on, TIME_WEIGHT is live by the config; only reachability can tell it is dead below.
    const timed = applyEdits(configurable, [{ op: 'set-constant', name: 'TIME_FILTER', value: 'boost' }]);
    if (!timed.ok) throw new Error(timed.errors[0]!.message);
    expect(inertConstants(timed.source).has('TIME_WEIGHT')).toBe(false);
    const parent = afterCaseMove(timed.source);
    const inert = inertConstants(parent);
    for (const dead of ['RERANK_DEPTH', 'TIME_WEIGHT', 'EXPANSION_DOCS']) expect(inert.has(dead), dead).toBe(true);
    for (const live of ['TOP_K', 'BM25_K1', 'BM25_B', 'CANDIDATES']) expect(inert.has(live), live).toBe(false);

    // Iteration 17 of a RHELM run was "tweak RERANK_DEPTH to 300" on such a design: it scored exactly its parent.
    const proposals = await proposeOnOneParent(parent, { answering: 1, retrieval: 5, storage: 1 }, 11, 80);
    expect(proposals.length).toBeGreaterThan(20);
    for (const p of proposals) expect(p.operator).not.toMatch(/tweak:(RERANK_DEPTH|TIME_WEIGHT|EXPANSION_DOCS):/);
    expect(proposals.some((p) => p.operator?.startsWith('tweak:TOP_K:'))).toBe(true);
  });

  it('under the ranking objective, spends no tweak on what only the context stage reads', async () => {
    const configurable = readFileSync(join(root, 'seeds/configurable.ts'), 'utf8');
    expect(inertConstants(configurable, 'ranking').has('CONTEXT_NEIGHBOURS')).toBe(true);
    expect(inertConstants(configurable, 'evidence').has('CONTEXT_NEIGHBOURS')).toBe(false);
    expect(inertConstants(configurable, 'ranking').has('TOP_K')).toBe(false);
    const context = /tweak:(CONTEXT_NEIGHBOURS|EXPANDED_HITS):/;
    const counts = { answering: 5, retrieval: 1, storage: 1 };
    expect((await proposeOnOneParent(configurable, counts, 7, 40)).some((p) => context.test(p.operator ?? ''))).toBe(true);
    const ranking = await proposeOnOneParent(configurable, counts, 7, 40, 'ranking');
    expect(ranking.length).toBeGreaterThan(10);
    for (const p of ranking) expect(p.operator).not.toMatch(context);
  });

  it('tweaks a config knob only within its schema range (no negative session fusion)', async () => {
    const configurable = readFileSync(join(root, 'seeds/configurable.ts'), 'utf8');
    const tweaked = new Set<string>();
    for (const p of await proposeOnOneParent(configurable, { answering: 1, retrieval: 5, storage: 1 }, 5, 60)) {
      const parsed = parseEdits(p.edits);
      expect(parsed.ok).toBe(true);
      for (const e of parsed.ok ? parsed.edits : []) {
        if (e.op !== 'set-constant' || !isConfigName(e.name) || typeof e.value !== 'number') continue;
        const spec = fieldSpec(e.name);
        if (spec.kind !== 'int' && spec.kind !== 'number') continue;
        tweaked.add(e.name);
        expect(e.value, `${e.name} = ${e.value}`).toBeGreaterThanOrEqual(spec.min);
        expect(e.value, `${e.name} = ${e.value}`).toBeLessThanOrEqual(spec.max);
      }
    }
    // SESSION_FUSION is 0 in the seed and has no catalog range: down from 0 was −1.
    expect(tweaked).toContain('SESSION_FUSION');
  });

  it('lists every config knob that move code reads', () => {
    const dir = join(root, 'src/optimize/proposers');
    const blocks = ['mutation-catalog.ts', 'case-blocks.ts', 'passage-blocks.ts'].map((f) => readFileSync(join(dir, f), 'utf8'));
    // Inside template literals (design code), as an identifier; the catalog's own module constants are not design code.
    const read = Object.keys(CONFIG_FIELDS).filter((name) =>
      blocks.some((text) => [...text.matchAll(/`([^`]*)`/g)].some((m) => new RegExp(`\\b${name}\\b`).test(m[1]!))),
    );
    expect([...read].sort()).toEqual([...KNOBS_READ_BY_MOVES].sort());
  });
});

/** Up to `n` proposals of the offline mutation proposer on one parent, each recorded as tried (and rejected). */
async function proposeOnOneParent(
  source: string,
  counts: Record<string, number>,
  seed: number,
  n: number,
  objective: Objective = 'evidence',
) {
  const proposer = createMutationProposer();
  const revisions: Parameters<typeof proposer.propose>[0]['revisions'] = [];
  const rng = createRng(seed);
  const out: NonNullable<Awaited<ReturnType<typeof proposer.propose>>>[] = [];
  for (let i = 0; i < n; i++) {
    const p = await proposer.propose({
      parent: { id: 'p0', source, score: 0, scores: {} },
      diagnosis: { counts } as unknown as Diagnosis,
      failures: [],
      revisions,
      objective,
      rng,
    });
    if (!p) break;
    out.push(p);
    revisions.push({ id: `c${i}`, parent: 'p0', operator: p.operator!, rationale: p.rationale, edits: [], accepted: false, delta: -0.1 });
  }
  return out;
}

/** `source` after the case-driven proposer's speaker-boost move, which replaces retrieve with the case pipeline. */
function afterCaseMove(source: string): string {
  const names = declaredNames(source);
  const move = CASE_MOVES.find((m) => m.name === 'speaker-boost')!;
  const built = move.build({ has: (n) => names.has(n), markers: (m) => source.includes(m), training: undefined });
  const r = applyEdits(source, built!.edits);
  if (!r.ok) throw new Error(r.errors[0]!.message);
  return r.source;
}
