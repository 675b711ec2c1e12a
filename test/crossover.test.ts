import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyEdits } from '../src/design/apply-edits.ts';
import { compileDesign } from '../src/design/compile.ts';
import { EditOpSchema } from '../src/design/edit-ops.ts';
import { astMutations } from '../src/optimize/proposers/ast-mutation.ts';
import { crossoverMoves } from '../src/optimize/proposers/crossover.ts';
import { CASE_MOVES } from '../src/optimize/proposers/case-driven-proposer.ts';
import { declaredNames } from '../src/optimize/proposers/offline-mutation.ts';
import { grown } from './helpers/grown-design.ts';

const root = join(import.meta.dirname, '..');
const seedNames = readdirSync(join(root, 'seeds')).filter((f) => f.endsWith('.ts'));
const seeds = Object.fromEntries(seedNames.map((f) => [f, readFileSync(join(root, 'seeds', f), 'utf8')]));

const imports = (src: string): string[] => src.split('\n').filter((l) => /^\s*import\b|\brequire\(|\bimport\(/.test(l));

/** The first applicable mutation of a kind that changes a function body (so crossover has something to take). */
function mutated(src: string): string {
  const m = astMutations(src).find((x) => x.edits[0]!.op === 'replace-expression');
  if (!m) return src;
  const r = applyEdits(src, m.edits);
  if (!r.ok) throw new Error(r.errors[0]!.message);
  return r.source;
}

describe('crossover', () => {
  it('takes a function with the helpers it needs from the inspiration, and nothing else', async () => {
    const parent = grown(['session-fusion', 'neighbour-packing']);
    const insp = grown(['query-prf', 'time-boost']);
    const moves = crossoverMoves(parent, { id: 'i007-abc', source: insp });
    const byName = new Map(moves.map((m) => [m.name, m]));
    const prf = byName.get('expandQuery')!;
    expect(prf.operator).toBe('crossover:expandQuery:i007-abc');
    expect(prf.brings.sort()).toEqual(['PRF_DOCS', 'PRF_TERMS']);
    const r = applyEdits(parent, prf.edits);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.source).toContain('@block query:prf');
    expect(r.source).toContain('@block rescore:session-fusion'); // the parent's own function stays
    expect(r.source).not.toContain('@block time:month-year'); // only the function taken
    expect(imports(r.source)).toEqual(imports(parent));
    expect((await compileDesign(r.source)).ok).toBe(true);
    // A function the parent already has unchanged is not offered.
    expect(byName.has('indexOf')).toBe(false);
  });

  it.each(seedNames)(
    'on %s: every move from a mutated sibling is a typed edit that applies and type-checks',
    async (name) => {
      const parent = seeds[name]!;
      const insp = mutated(parent);
      const moves = crossoverMoves(parent, { id: 'sibling', source: insp });
      if (insp !== parent) expect(moves.length).toBeGreaterThan(0);
      for (const m of moves) {
        for (const e of m.edits) expect(EditOpSchema.safeParse(e).success).toBe(true);
        const r = applyEdits(parent, m.edits);
        expect(r.ok, m.operator).toBe(true);
        if (!r.ok) continue;
        expect(r.source).toBe(insp);
        const c = await compileDesign(r.source);
        expect(c.ok).toBe(true);
      }
    },
    60_000,
  );

  it('never imports across programs: between any two seeds, applied moves keep the parent imports', () => {
    for (const p of seedNames) {
      for (const i of seedNames) {
        if (p === i) continue;
        for (const m of crossoverMoves(seeds[p]!, { id: 'x', source: seeds[i]! })) {
          for (const e of m.edits) if ('code' in e) expect(imports(e.code)).toEqual([]);
          const r = applyEdits(seeds[p]!, m.edits);
          if (r.ok) expect(imports(r.source)).toEqual(imports(seeds[p]!));
        }
      }
    }
  }, 60_000);

  it('offers no function the parent no longer calls: its body cannot change a result', () => {
    // seeds/configurable.ts after a case move replaced retrieve: applyTime is still declared, but dead.
    const configurable = seeds['configurable.ts']!;
    const names = declaredNames(configurable);
    const move = CASE_MOVES.find((m) => m.name === 'speaker-boost')!;
    const built = move.build({ has: (n) => names.has(n), markers: (m) => configurable.includes(m), training: undefined })!;
    const r = applyEdits(configurable, built.edits);
    if (!r.ok) throw new Error(r.errors[0]!.message);
    const parent = r.source;
    const edited = (from: string, to: string) => {
      expect(parent.split(from).length, from).toBe(2);
      return (src: string) => src.replace(from, to);
    };
    const inApplyTime = edited('score: h.score + TIME_WEIGHT * top }', 'score: h.score + 2 * TIME_WEIGHT * top }');
    const inPack = edited('if (used + cost > budget.tokens) return;', 'if (used + cost > budget.tokens - 1) return;');
    const moves = crossoverMoves(parent, { id: 'sibling', source: inPack(inApplyTime(parent)) });
    expect(moves.map((m) => m.name)).toEqual(['pack']);
  });
});
