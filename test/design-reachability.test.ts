/**
 * Which top-level names a design's behaviour can depend on: a tweak of a constant outside that set, or a new body for
 * a function outside it, cannot change any result, so the offline proposers do not spend iterations there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyEdits } from '../src/design/apply-edits.ts';
import { parseSource, topLevelDeclarations } from '../src/design/design-source.ts';
import { reachableNames } from '../src/design/reachability.ts';
import { CONFIG_FIELDS } from '../src/optimize/config-space.ts';
import { CASE_MOVES } from '../src/optimize/proposers/case-driven-proposer.ts';
import { declaredNames } from '../src/optimize/proposers/offline-mutation.ts';

const configurable = readFileSync(join(import.meta.dirname, '..', 'seeds/configurable.ts'), 'utf8');

/** Top-level const/let/function/class names (no types): what reachableNames can return. */
function valueNames(source: string): string[] {
  return topLevelDeclarations(parseSource(source, 'reach-test'))
    .filter(([, node]) => !/^(Interface|TypeAlias|Import)/.test(node.getKindName()))
    .map(([name]) => name);
}

describe('reachableNames', () => {
  it('follows the default export through the functions and constants each declaration reads', () => {
    const src = [
      'const A = 1;',
      'const B = 2;',
      'const C = 3;',
      'function used(x: number): number { return x * A; }',
      'function unused(): number { return B; }',
      'const design = { retrieve() { return used(C); } };',
      'export default design;',
    ].join('\n');
    expect([...reachableNames(src)].sort()).toEqual(['A', 'C', 'design', 'used']);
  });

  it('counts a shorthand property as a use, and neither a member name nor an object key', () => {
    const src = [
      'const TOP_K = 10;',
      'const DEPTH = 5;',
      'const KEY = 7;',
      'const state = { DEPTH: 1 };',
      'const design = { opts() { return { TOP_K, KEY: state.DEPTH }; } };',
      'export default design;',
    ].join('\n');
    const live = reachableNames(src);
    expect(live.has('TOP_K')).toBe(true);
    expect(live.has('state')).toBe(true);
    // `state.DEPTH` names a property, and `KEY:` is a key: neither reads the top-level constant.
    expect(live.has('DEPTH')).toBe(false);
    expect(live.has('KEY')).toBe(false);
  });

  it('roots an `export default {…}` literal and a default-exported function in what they reference', () => {
    expect([...reachableNames('const A = 1;\nconst B = 2;\nexport default { k: () => A };')]).toEqual(['A']);
    expect([...reachableNames('const A = 1;\nconst B = 2;\nexport default function run() { return B; }')].sort()).toEqual(['B', 'run']);
  });

  it('roots a top-level statement that runs at load time, but not a named export (metadata)', () => {
    const src = [
      'const LOG: string[] = [];',
      'const TAG = "x";',
      'const NOTE = "n";',
      'LOG.push(TAG);',
      'export const description = `uses ${NOTE}`;',
      'export default { retrieve: () => 1 };',
    ].join('\n');
    const live = reachableNames(src);
    expect(live.has('LOG') && live.has('TAG')).toBe(true);
    expect(live.has('description')).toBe(false);
    expect(live.has('NOTE')).toBe(false);
  });

  it('ignores type-only uses and declarations', () => {
    const src = 'type T = typeof A;\ninterface I { a: number }\nconst A = 1;\nexport default { f(x: T): I { return { a: x }; } };';
    expect(reachableNames(src).has('A')).toBe(false);
    expect(reachableNames(src).has('T')).toBe(false);
  });

  it('without a default export, calls every declared name reachable (nothing is known to be dead)', () => {
    const src = 'const A = 1;\nconst { b, c: [d] } = { b: 2, c: [3] };\nfunction f() { return 0; }\nclass K {}\ntype T = number;';
    expect([...reachableNames(src)].sort()).toEqual(['A', 'K', 'b', 'd', 'f']);
  });

  it('on seeds/configurable.ts reaches every constant, function and config knob (what the config arm moves)', () => {
    const live = reachableNames(configurable);
    // `description` is the one exception: metadata the host reads, no stage runs it.
    expect(valueNames(configurable).filter((n) => !live.has(n))).toEqual(['description']);
    for (const knob of Object.keys(CONFIG_FIELDS)) {
      expect(declaredNames(configurable).has(knob), knob).toBe(true);
      expect(live.has(knob), knob).toBe(true);
    }
  });

  it('once a case move replaces retrieve, the seed helpers it called and their constants are dead, TOP_K not', () => {
    const names = declaredNames(configurable);
    const move = CASE_MOVES.find((m) => m.name === 'speaker-boost')!;
    const built = move.build({ has: (n) => names.has(n), markers: (m) => configurable.includes(m), training: undefined })!;
    const r = applyEdits(configurable, built.edits);
    if (!r.ok) throw new Error(r.errors[0]!.message);
    const live = reachableNames(r.source);
    for (const dead of ['applyTime', 'fuseSessions', 'expandedQuery', 'sessionRanking', 'denseRanking', 'RERANK_DEPTH', 'TIME_WEIGHT'])
      expect(live.has(dead), dead).toBe(false);
    for (const used of ['indexOf', 'recordDocs', 'pack', 'speakerBoost', 'TOP_K', 'BM25_K1', 'STEM', 'CANDIDATES'])
      expect(live.has(used), used).toBe(true);
  });

  it('leaves skipped stages out of the roots: what only `context` reads is dead to a ranking objective', () => {
    const live = reachableNames(configurable, { skipStages: ['context'] });
    for (const dead of ['pack', 'CONTEXT_NEIGHBOURS', 'EXPANDED_HITS', 'CONTEXT_ORDER', 'PACKING'])
      expect(live.has(dead), dead).toBe(false);
    for (const used of ['indexOf', 'applyTime', 'TOP_K', 'RERANK_DEPTH', 'STEM']) expect(live.has(used), used).toBe(true);
    // A design object the reader cannot take apart keeps every stage.
    const built = 'const K = 1;\nconst J = 2;\nfunction make() { return { retrieve: () => K, context: () => J }; }\nexport default make();';
    expect([...reachableNames(built, { skipStages: ['context'] })].sort()).toEqual(['J', 'K', 'make']);
    const literal = 'const K = 1;\nconst J = 2;\nexport default { retrieve() { return K; }, context() { return J; } };';
    expect([...reachableNames(literal, { skipStages: ['context'] })]).toEqual(['K']);
  });
});
