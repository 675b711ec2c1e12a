/**
 * The config search space: seeds/configurable.ts, its schema, reading a config off a source, config changes as
 * set-constant edits, the config-space guard, and the offline and LLM config proposers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyAndCheck, applyEdits } from '../src/design/apply-edits.ts';
import { compileDesign } from '../src/design/compile.ts';
import type { Diagnosis } from '../src/diagnose/diagnosis.ts';
import { MemsteerError } from '../src/errors.ts';
import type { LlmClient, StructuredRequest, StructuredResult } from '../src/llm/types.ts';
import {
  CONFIG_FIELDS,
  CONFIG_NAMES,
  ConfigSchema,
  checkConfigChange,
  configEdits,
  configSpaceCompile,
  configSpaceProblems,
  fieldSpec,
  isActive,
  readConfig,
  type Config,
} from '../src/optimize/config-space.ts';
import { configMoves, createConfigMutationProposer } from '../src/optimize/proposers/config-mutation.ts';
import { createLlmConfigProposer } from '../src/optimize/proposers/llm-config-proposer.ts';
import type { ProposalContext } from '../src/optimize/proposers/types.ts';
import { createRng } from '../src/util/rng.ts';
import { REPO_ROOT } from './fixtures/optimize/default-run.ts';

const SEED = readFileSync(join(REPO_ROOT, 'seeds', 'configurable.ts'), 'utf8');
const BASE = readFileSync(join(REPO_ROOT, 'seeds', 'base-bm25.ts'), 'utf8');

/** Base-BM25's settings, as configurable.ts's defaults must reproduce them. */
const DEFAULTS: Config = {
  UNIT_GRANULARITY: 'record',
  WINDOW_RADIUS: 1,
  SESSION_SIZE: 40,
  RETRIEVER: 'bm25',
  FUSION: 'rrf',
  EMBEDDING_WEIGHT: 0.5,
  RRF_K: 60,
  TOP_K: 50,
  BM25_K1: 1.2,
  BM25_B: 0.75,
  STEM: true,
  INDEX_DATES: true,
  SESSION_FUSION: 0,
  EXPANSION_TERMS: 0,
  EXPANSION_DOCS: 3,
  TIME_FILTER: 'off',
  TIME_WEIGHT: 0.3,
  CONTEXT_NEIGHBOURS: 0,
  EXPANDED_HITS: 3,
  CONTEXT_ORDER: 'rank',
  PACKING: 'skip',
};

function withChange(source: string, change: Record<string, unknown>): string {
  const r = applyEdits(source, configEdits(change));
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('; '));
  return r.source;
}

function context(source: string, overrides: Partial<ProposalContext> = {}): ProposalContext {
  return {
    parent: { id: 'p0', source, score: 0.4, scores: {} },
    diagnosis: null,
    failures: [],
    revisions: [],
    objective: 'evidence',
    rng: createRng(7),
    ...overrides,
  };
}

function diagnosisWith(counts: Partial<Record<'storage' | 'retrieval' | 'answering', number>>): Diagnosis {
  const full = { pass: 0, storage: 0, retrieval: 0, answering: 0, error: 0, unattributed: 0, ...counts };
  const failures = full.storage + full.retrieval + full.answering;
  return { objective: 'evidence', total: 100, failures, counts: full, dominant: null, questions: [], undiagnosed: [] } as Diagnosis;
}

describe('seeds/configurable.ts and its schema', () => {
  it("compiles, and its defaults are Base-BM25's settings", async () => {
    const c = await compileDesign(SEED);
    expect(c.ok).toBe(true);
    expect(readConfig(SEED)).toEqual(DEFAULTS);
    // The shared knobs carry exactly Base-BM25's values.
    for (const [name, value] of [
      ['TOP_K', 50],
      ['BM25_K1', 1.2],
      ['BM25_B', 0.75],
      ['STEM', true],
      ['INDEX_DATES', true],
    ] as const) {
      expect(BASE).toMatch(new RegExp(`^const ${name} = ${String(value).replace('.', '\\.')};`, 'm'));
    }
  });

  it('describes every knob with a kind, a range or options, and failure targets', () => {
    expect(CONFIG_NAMES).toHaveLength(21);
    for (const n of CONFIG_NAMES) {
      const spec = fieldSpec(n);
      expect(CONFIG_FIELDS[n].targets.length).toBeGreaterThan(0);
      if (spec.kind === 'int' || spec.kind === 'number') {
        expect(spec.min).toBeLessThan(spec.max);
        expect(spec.step).toBeGreaterThan(0);
        expect(ConfigSchema.shape[n].safeParse(spec.max + spec.step).success).toBe(false);
      }
    }
    expect(fieldSpec('RETRIEVER')).toEqual({ kind: 'enum', options: ['bm25', 'embedding', 'hybrid'] });
    expect(fieldSpec('TOP_K')).toEqual({ kind: 'int', min: 10, max: 200, step: 20 });
    expect(isActive('EMBEDDING_WEIGHT', DEFAULTS)).toBe(false);
    expect(isActive('EMBEDDING_WEIGHT', { ...DEFAULTS, RETRIEVER: 'hybrid' })).toBe(true);
  });

  it('reads a changed config back, and refuses a design that is not a config-space design', () => {
    const src = withChange(SEED, { RETRIEVER: 'hybrid', TOP_K: 70, STEM: false });
    expect(readConfig(src)).toEqual({ ...DEFAULTS, RETRIEVER: 'hybrid', TOP_K: 70, STEM: false });
    let err: unknown;
    try {
      readConfig(BASE);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MemsteerError);
    expect((err as MemsteerError).code).toBe('E_CONFIG_SOURCE');
    expect((err as Error).message).toMatch(/UNIT_GRANULARITY is not declared/);
  });

  it('turns a valid change into set-constant edits and rejects an invalid one by knob', () => {
    expect(configEdits({ TOP_K: 90, CONTEXT_ORDER: 'time' })).toEqual([
      { op: 'set-constant', name: 'TOP_K', value: 90 },
      { op: 'set-constant', name: 'CONTEXT_ORDER', value: 'time' },
    ]);
    const bad = checkConfigChange({ TOP_K: 500, RETRIEVER: 'dense', MONTHS: [], WINDOW_RADIUS: 1.5 });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.issues).toHaveLength(4);
      expect(bad.issues.join('\n')).toMatch(/TOP_K = 500: must be a whole number from 10 to 200/);
      expect(bad.issues.join('\n')).toMatch(/RETRIEVER = "dense": must be one of "bm25" \| "embedding" \| "hybrid"/);
      expect(bad.issues.join('\n')).toMatch(/MONTHS is not a config knob/);
    }
    expect(() => configEdits({})).toThrow(/empty/);
    expect(() => configEdits({ TOP_K: -1 })).toThrow(expect.objectContaining({ code: 'E_CONFIG_CHANGE' }));
  });

  it('the guard accepts another config of the seed and rejects code changes and out-of-range values', () => {
    expect(configSpaceProblems(withChange(SEED, { UNIT_GRANULARITY: 'session', SESSION_SIZE: 20 }), SEED)).toEqual([]);
    // A constant that is not a knob.
    const depth = applyEdits(SEED, [{ op: 'set-constant', name: 'RERANK_DEPTH', value: 10 }]);
    expect(depth.ok).toBe(true);
    const p1 = configSpaceProblems(depth.ok ? depth.source : '', SEED);
    expect(p1).toHaveLength(1);
    expect(p1[0]).toMatchObject({ code: 'config-space' });
    expect(p1[0]!.message).toMatch(/RERANK_DEPTH = 10/);
    // A knob out of range, located on its line.
    const big = applyEdits(SEED, [{ op: 'set-constant', name: 'TOP_K', value: 5000 }]);
    const p2 = configSpaceProblems(big.ok ? big.source : '', SEED);
    expect(p2).toEqual([
      expect.objectContaining({ code: 'config-range', line: SEED.split('\n').findIndex((l) => l.startsWith('const TOP_K')) + 1 }),
    ]);
    // A code-search seed cannot start a config search.
    expect(() => configSpaceCompile(BASE, compileDesign)).toThrow(expect.objectContaining({ code: 'E_CONFIG_SEED' }));
  });

  it('every mutation from the defaults and along a random walk is schema-valid, inside the space, and compiles', async () => {
    const rng = createRng(11);
    const sources: string[] = [];
    // Every single-knob move from the defaults: each knob and option is exercised at least once.
    for (const m of configMoves(DEFAULTS)) sources.push(withChange(SEED, { [m.name]: m.value }));
    // A random walk turns features on one after the other, so moves of knobs that only matter then are covered too.
    let src = SEED;
    for (let step = 0; step < 40; step++) {
      const moves = configMoves(readConfig(src));
      expect(moves.length).toBeGreaterThan(0);
      const m = rng.pick(moves);
      src = withChange(src, { [m.name]: m.value });
      expect(ConfigSchema.safeParse(readConfig(src)).success).toBe(true);
      expect(configSpaceProblems(src, SEED)).toEqual([]);
      if (step % 8 === 7) sources.push(src);
    }
    for (const s of sources) {
      expect(configSpaceProblems(s, SEED)).toEqual([]);
      const c = await compileDesign(s);
      expect(c.ok, c.ok ? '' : c.diagnostics.map((d) => `${d.line}: ${d.message}`).join('\n')).toBe(true);
    }
    // Moves of a knob whose feature is off are never offered.
    expect(configMoves(DEFAULTS).some((m) => m.name === 'EMBEDDING_WEIGHT' || m.name === 'WINDOW_RADIUS' || m.name === 'TIME_WEIGHT')).toBe(
      false,
    );
  }, 120_000);
});

describe('createConfigMutationProposer', () => {
  it('follows the dominant failure category and proposes one set-constant edit of a knob', async () => {
    const p = createConfigMutationProposer();
    const answering = await p.propose(context(SEED, { diagnosis: diagnosisWith({ answering: 30, retrieval: 5 }) }));
    expect(answering).not.toBeNull();
    expect(answering!.target).toBe('answering');
    expect(answering!.edits).toHaveLength(1);
    const edit = answering!.edits[0] as { op: string; name: string };
    expect(edit.op).toBe('set-constant');
    expect(CONFIG_FIELDS[edit.name as keyof typeof CONFIG_FIELDS].targets).toContain('answering');
    expect(answering!.operator).toMatch(/^set:[A-Z_0-9]+=/);
    expect(answering!.rationale).toMatch(/30 training failures diagnosed as answering/);
    const retrieval = await p.propose(context(SEED, { diagnosis: diagnosisWith({ retrieval: 40, answering: 2 }) }));
    expect(retrieval!.target).toBe('retrieval');
  });

  it('never re-proposes a config already in the archive, nor a move tried on the parent, and runs out cleanly', async () => {
    const p = createConfigMutationProposer();
    const all = configMoves(DEFAULTS).map((m) => withChange(SEED, { [m.name]: m.value }));
    const keep = all[3]!;
    const known = new Set(all.filter((s) => s !== keep));
    const only = await p.propose(context(SEED, { isKnownSource: (s) => known.has(s) }));
    expect(only).not.toBeNull();
    expect(applyEdits(SEED, only!.edits).ok && (applyEdits(SEED, only!.edits) as { source: string }).source).toBe(keep);
    // The same move recorded as tried on this parent is skipped as well.
    const tried = await p.propose(
      context(SEED, {
        isKnownSource: (s) => known.has(s),
        revisions: [{ id: 'i001', parent: 'p0', operator: only!.operator!, rationale: '', edits: [], accepted: false, delta: -0.1 }],
      }),
    );
    expect(tried).toBeNull();
    // A repair attempt is never answered: moves are valid by construction.
    expect(await p.propose(context(SEED, { repair: { edits: [], feedback: 'x', attempt: 1 } }))).toBeNull();
  });
});

describe('createLlmConfigProposer', () => {
  /** A scripted client at our own LlmClient interface: replies in order, records the prompts. */
  function scripted(replies: unknown[]): LlmClient & { prompts: string[] } {
    const prompts: string[] = [];
    return {
      prompts,
      hasRole: (role) => role === 'proposer',
      complete: () => Promise.reject(new Error('not used')),
      async structured<T>(req: StructuredRequest<T>): Promise<StructuredResult<T>> {
        prompts.push(req.messages.map((m) => m.content).join('\n'));
        const value = req.schema.parse(replies.shift());
        return {
          value,
          usage: { promptTokens: 100, completionTokens: 20 },
          cached: false,
          model: 'scripted',
          attempts: 1,
        } as StructuredResult<T>;
      },
    };
  }

  it('turns the reply into set-constant edits; an out-of-range value fails the guard and the repair prompt says why', async () => {
    const client = scripted([
      { change: { TOP_K: 500 }, rationale: 'more candidates', target: 'retrieval' },
      { change: { TOP_K: 150, SESSION_FUSION: 0.6 }, rationale: 'more candidates and session context', target: 'retrieval' },
    ]);
    const p = createLlmConfigProposer({ client });
    const first = await p.propose(context(SEED));
    expect(first).toMatchObject({
      edits: [{ op: 'set-constant', name: 'TOP_K', value: 500 }],
      target: 'retrieval',
      tokens: { prompt: 100, completion: 20 },
    });
    expect(client.prompts[0]).toMatch(/- TOP_K = 50: a whole number from 10 to 200/);
    expect(client.prompts[0]).toMatch(/EMBEDDING_WEIGHT = 0\.5: .*\(inactive\)/);
    const compile = configSpaceCompile(SEED, compileDesign);
    const checked = await applyAndCheck(SEED, first!.edits, compile);
    expect(checked.ok).toBe(false);
    if (checked.ok || checked.stage !== 'compile') throw new Error('expected a compile-stage failure');
    expect(checked.diagnostics[0]!.message).toMatch(/TOP_K = 500: a whole number from 10 to 200/);
    const second = await p.propose(
      context(SEED, { repair: { edits: first!.edits, feedback: checked.diagnostics[0]!.message, attempt: 1 } }),
    );
    expect(client.prompts[1]).toMatch(/Your previous change did not work/);
    expect(client.prompts[1]).toMatch(/"TOP_K":500/);
    const ok = await applyAndCheck(SEED, second!.edits, compile);
    expect(ok.ok).toBe(true);
    if (ok.ok) expect(readConfig(ok.source)).toMatchObject({ TOP_K: 150, SESSION_FUSION: 0.6 });
  }, 60_000);
});
