import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyEdits } from '../src/design/apply-edits.ts';
import { compileDesign } from '../src/design/compile.ts';
import { EditOpSchema } from '../src/design/edit-ops.ts';
import { astMutations, scoringFunctions, type AstMutation } from '../src/optimize/proposers/ast-mutation.ts';
import { grown } from './helpers/grown-design.ts';

const root = join(import.meta.dirname, '..');
const seedNames = readdirSync(join(root, 'seeds')).filter((f) => f.endsWith('.ts'));
const seeds = Object.fromEntries(seedNames.map((f) => [f, readFileSync(join(root, 'seeds', f), 'utf8')]));

/** The first mutation of each kind (a deterministic sample, so the test compiles a handful, not hundreds). */
function onePerKind(ms: readonly AstMutation[]): AstMutation[] {
  const seen = new Set<string>();
  return ms.filter((m) => !seen.has(m.kind) && seen.add(m.kind));
}

const MIN = `import type { Hit, Memory, MemoryDesign, Question, Tools } from '../sandbox/contract.ts';
const W = 0.5;
function fuse(a: number, b: number, c: number): number {
  return a + b * c + W * Math.max(a, 0);
}
function rank(q: Question, memory: Memory, tools: Tools): Hit[] {
  void tools;
  const out: Hit[] = [];
  for (let i = 0; i < memory.units.length; i++) out.push({ unit: memory.units[i]!.id, score: fuse(i, 2, q.text.length) });
  return out.filter((h) => h.score > 1).sort((x, y) => y.score - x.score);
}
function unused(x: number): number {
  return x * 3;
}
export default {
  store: () => ({ units: [] }),
  retrieve(q: Question, memory: Memory, tools: Tools): Hit[] {
    return rank(q, memory, tools).slice(0, 10 + unused(0));
  },
  context: () => ({ text: '', units: [] }),
} satisfies MemoryDesign;
`;

describe('replace-expression', () => {
  it('replaces the expression its path and expected text locate, parenthesised where precedence needs it', () => {
    const r = applyEdits(MIN, [{ op: 'replace-expression', name: 'fuse', expect: 'b * c', code: 'b + c' }]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.source).toContain('return a + (b + c) + W * Math.max(a, 0);');
    expect(r.applied[0]).toMatchObject({ op: 'replace-expression', targets: ['fuse'], summary: 'fuse: b * c → (b + c)' });
    // A primary expression needs no parentheses; a stage is addressed by its name.
    const s = applyEdits(MIN, [{ op: 'replace-expression', name: 'retrieve', expect: '10 + unused(0)', code: 'Math.min(10, 20)' }]);
    expect(s.ok && s.source).toContain('.slice(0, Math.min(10, 20))');
  });

  it('refuses a locator that does not name exactly one expression, with an actionable code', () => {
    const code = (edit: Record<string, unknown>) => {
      const r = applyEdits(MIN, [{ op: 'replace-expression', code: '1', ...edit }]);
      return r.ok ? 'ok' : r.errors[0]!.code;
    };
    expect(code({ name: 'fuse', expect: 'a * b' })).toBe('E_EDIT_NO_EXPRESSION');
    expect(code({ name: 'fuse', expect: 'a' })).toBe('E_EDIT_NO_EXPRESSION'); // three uses of a: give a path
    expect(code({ name: 'nope', expect: 'a' })).toBe('E_EDIT_UNKNOWN_NAME');
    expect(code({ name: 'fuse', expect: 'b * c', path: [0] })).toBe('E_EDIT_NO_EXPRESSION');
    expect(applyEdits(MIN, [{ op: 'replace-expression', name: 'fuse', expect: 'b * c', code: 'b; c' }]).ok).toBe(false);
  });
});

describe('AST mutation', () => {
  it('reads the functions retrieve reaches, not the others', () => {
    expect(scoringFunctions(MIN)).toEqual(['retrieve', 'rank', 'unused', 'fuse']);
    const fns = scoringFunctions(grown(['session-fusion', 'neighbour-packing']));
    expect(fns).toContain('rescoreHits');
    expect(fns).not.toContain('packUnits');
    // Loop headers are left alone; the comparison in the filter, min/max and the sum's terms are not.
    const kinds = new Set(astMutations(MIN).map((m) => m.kind));
    expect([...kinds].sort()).toEqual(['comparison', 'drop-term', 'min-max', 'operator', 'scale-constant', 'scale-literal', 'scale-term']);
    expect(
      astMutations(MIN).some((m) => m.edits.some((e) => e.op === 'replace-expression' && e.expect.includes('memory.units.length'))),
    ).toBe(false);
  });

  it('is deterministic: the same source gives the same mutations in the same order', () => {
    const src = grown(['session-fusion', 'time-boost']);
    expect(astMutations(src)).toEqual(astMutations(src));
  });

  const cases = [
    ...seedNames.map((f) => [f, seeds[f]!] as const),
    ['base-bm25 + blocks', grown(['session-fusion', 'time-boost', 'query-prf'])] as const,
  ];
  it.each(cases)(
    'every mutation of %s is a typed edit that applies; one of each kind type-checks',
    async (_name, src) => {
      const ms = astMutations(src);
      expect(ms.length).toBeGreaterThan(0);
      for (const m of ms) {
        for (const e of m.edits) expect(EditOpSchema.safeParse(e).success).toBe(true);
        const r = applyEdits(src, m.edits);
        expect(r.ok, m.operator).toBe(true);
        if (r.ok) expect(r.source).not.toBe(src);
      }
      for (const m of onePerKind(ms)) {
        const r = applyEdits(src, m.edits);
        const c = await compileDesign(r.ok ? r.source : src);
        expect(c.ok, `${m.operator}: ${c.ok ? '' : c.diagnostics[0]?.message}`).toBe(true);
      }
    },
    60_000,
  );
});
