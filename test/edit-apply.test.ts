import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyEdits } from '../src/design/apply-edits.ts';
import type { EditOp } from '../src/design/edit-ops.ts';
import { diffSources } from '../src/design/diff.ts';
import { typeCheck } from './fixtures/edits/type-check.ts';

const methods = readFileSync(new URL('./fixtures/edits/design-methods.ts', import.meta.url), 'utf8');
const functions = readFileSync(new URL('./fixtures/edits/design-functions.ts', import.meta.url), 'utf8');

function apply(source: string, edits: EditOp[]): string {
  const r = applyEdits(source, edits);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.source;
}

function errorsOf(source: string, edits: unknown[]) {
  const r = applyEdits(source, edits);
  if (r.ok) throw new Error('expected the edits to fail');
  return r.errors;
}

describe('fixtures', () => {
  it('type-check as they are', () => {
    expect(typeCheck(methods)).toEqual([]);
    expect(typeCheck(functions)).toEqual([]);
  });
});

describe('set-constant', () => {
  it('changes only the literal', () => {
    const r = applyEdits(methods, [{ op: 'set-constant', name: 'K', value: 20 }]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.applied).toEqual([{ edit: 0, op: 'set-constant', targets: ['K'], summary: 'K: 10 → 20' }]);
    expect(diffSources(methods, r.source)).toBe(
      [
        '--- a',
        '+++ b',
        '@@ -1,7 +1,7 @@',
        ` ${methods.split('\n')[0]}`,
        ' ',
        ' /** How many hits retrieval returns. */',
        '-const K = 10;',
        '+const K = 20;',
        " const HEADER = 'Relevant memories:';",
        ' const USE_TIME = true;',
        ' const WEIGHTS = [1, 0.5];',
        '',
      ].join('\n'),
    );
  });

  it('sets strings, booleans, negative numbers and arrays', () => {
    const out = apply(methods, [
      { op: 'set-constant', name: 'HEADER', value: 'Memories "quoted":' },
      { op: 'set-constant', name: 'USE_TIME', value: false },
      { op: 'set-constant', name: 'WEIGHTS', value: [-0.25, 2] },
    ]);
    expect(out).toContain('const HEADER = "Memories \\"quoted\\":";');
    expect(out).toContain('const USE_TIME = false;');
    expect(out).toContain('const WEIGHTS = [-0.25,2];');
    expect(typeCheck(out)).toEqual([]);
    // A negative literal can be set again (prefix-minus counts as a number literal).
    expect(apply(apply(methods, [{ op: 'set-constant', name: 'K', value: -3 }]), [{ op: 'set-constant', name: 'K', value: 7 }])).toContain(
      'const K = 7;',
    );
  });

  it('rejects unknown names, non-literals, let, kind changes and object values with stable codes', () => {
    expect(errorsOf(methods, [{ op: 'set-constant', name: 'TOPK', value: 3 }])).toEqual([
      {
        edit: 0,
        code: 'E_EDIT_UNKNOWN_NAME',
        message: 'edit 0 (set-constant): no top-level constant named TOPK; constants are: K, HEADER, USE_TIME, WEIGHTS',
      },
    ]);
    expect(errorsOf(methods, [{ op: 'set-constant', name: 'score', value: 3 }])[0]!.code).toBe('E_EDIT_NOT_LITERAL');
    expect(errorsOf(methods, [{ op: 'set-constant', name: 'calls', value: 3 }])[0]!.message).toMatch(/not declared with const/);
    expect(errorsOf(methods, [{ op: 'set-constant', name: 'K', value: '10' }])[0]).toMatchObject({
      code: 'E_EDIT_LITERAL_KIND',
      message: expect.stringMatching(/K is a number; the new value is a string/),
    });
    expect(errorsOf(methods, [{ op: 'set-constant', name: 'WEIGHTS', value: ['a'] }])[0]!.code).toBe('E_EDIT_LITERAL_KIND');
    expect(errorsOf(methods, [{ op: 'set-constant', name: 'K', value: { a: 1 } }])[0]!.code).toBe('E_EDIT_NOT_LITERAL');
    expect(errorsOf(methods, [{ op: 'set-constant', name: 'toUnit', value: 1 }])[0]!.code).toBe('E_EDIT_NOT_LITERAL');
  });
});

describe('replace-stage', () => {
  const newRetrieve = `retrieve(q, memory, tools) {
    const index = tools.bm25.index(memory.units, { k1: 1.5 });
    return index.search(q.text, K * 2);
  }`;

  it('replaces a method with method code, keeping the rest', () => {
    const out = apply(methods, [{ op: 'replace-stage', stage: 'retrieve', code: newRetrieve }]);
    expect(out).toContain(
      '  retrieve(q, memory, tools) {\n' +
        '    const index = tools.bm25.index(memory.units, { k1: 1.5 });\n' +
        '    return index.search(q.text, K * 2);\n  },',
    );
    expect(out).not.toContain('.sort((a, b) => score(b) - score(a))');
    expect(out).toContain('store(records: SourceRecord[], tools: Tools): Memory {');
    expect(typeCheck(out)).toEqual([]);
  });

  it('accepts a function declaration or an arrow as the stage code and re-shapes it as a method', () => {
    const fromFn = apply(methods, [
      {
        op: 'replace-stage',
        stage: 'retrieve',
        code:
          'async function retrieve(q: Question, memory: Memory, tools: Tools) {\n' +
          '  return tools.bm25.index(memory.units).search(q.text, K);\n}',
      },
    ]);
    expect(fromFn).toContain(
      '  async retrieve(q: Question, memory: Memory, tools: Tools) {\n    return tools.bm25.index(memory.units).search(q.text, K);\n  },',
    );
    expect(typeCheck(fromFn)).toEqual([]);
    const fromArrow = apply(methods, [
      { op: 'replace-stage', stage: 'store', code: 'const store = (records: SourceRecord[]) => ({ units: records.map(toUnit) })' },
    ]);
    expect(fromArrow).toContain('  store(records: SourceRecord[]) {\n    return ({ units: records.map(toUnit) });\n  },');
    expect(typeCheck(fromArrow)).toEqual([]);
  });

  it('replaces top-level functions and const arrows that implement stages, keeping their names', () => {
    const out = apply(functions, [
      {
        op: 'replace-stage',
        stage: 'retrieve',
        code: 'retrieve(q, memory, tools) { return tools.bm25.index(memory.units).search(q.text, TOP_K + 5); }',
      },
      {
        op: 'replace-stage',
        stage: 'context',
        code:
          'context(q: Question, hits: Hit[], memory: Memory): Context {\n' +
          '  return { text: hits.map((h) => h.unit).join(", "), units: hits.map((h) => h.unit) };\n}',
      },
    ]);
    // Untyped parameters in a top-level function are implicit any: the type-check catches it, not the edit.
    expect(out).toContain('function retrieve(q, memory, tools) { return tools.bm25.index(memory.units).search(q.text, TOP_K + 5); }');
    expect(out).toContain('const buildContext = (q: Question, hits: Hit[], memory: Memory): Context => {\n  return { text:');
    expect(out).toContain('const design = { store, retrieve, context: buildContext } satisfies MemoryDesign;');
    const diags = typeCheck(out);
    expect(diags.length).toBeGreaterThan(0);
    expect(diags.join('\n')).toMatch(/implicitly has an 'any' type/);
  });

  it('rejects code that breaks the contract', () => {
    const swapped = errorsOf(methods, [
      { op: 'replace-stage', stage: 'context', code: 'context(q, memory, hits) { return { text: "", units: [] }; }' },
    ]);
    expect(swapped).toEqual([
      {
        edit: 0,
        code: 'E_EDIT_STAGE_CONTRACT',
        message:
          "edit 0 (replace-stage): context's parameter 2 is named memory, " +
          'which the contract passes as parameter 3: context(q, hits, memory, tools, budget)',
      },
    ]);
    expect(
      errorsOf(methods, [{ op: 'replace-stage', stage: 'store', code: 'store(records, tools, extra) { return { units: [] }; }' }])[0]!
        .message,
    ).toMatch(/store takes 3 parameters but the contract passes 2: store\(records, tools\)/);
    expect(errorsOf(methods, [{ op: 'replace-stage', stage: 'retrieve', code: 'store(records) { return { units: [] }; }' }])[0]!.code).toBe(
      'E_EDIT_STAGE_CONTRACT',
    );
    // Fewer parameters and other names are fine (TypeScript allows both).
    expect(applyEdits(methods, [{ op: 'replace-stage', stage: 'retrieve', code: 'retrieve(question) { return []; }' }]).ok).toBe(true);
  });

  it('reports parse errors with a position in the given code', () => {
    const e = errorsOf(methods, [{ op: 'replace-stage', stage: 'retrieve', code: 'retrieve(q, memory) {\n  return [;\n}' }]);
    expect(e[0]!.code).toBe('E_EDIT_PARSE');
    expect(e[0]!.message).toMatch(/line 2:/);
    expect(errorsOf(methods, [{ op: 'replace-stage', stage: 'retrieve', code: 'const a = 1;\nconst b = 2;' }])[0]!.code).toBe(
      'E_EDIT_NOT_FUNCTION',
    );
  });
});

describe('replace-function', () => {
  it('replaces a top-level function and a const arrow', () => {
    const out = apply(methods, [
      {
        op: 'replace-function',
        name: 'formatUnit',
        code:
          '/** Time first, then speaker-less text. */\n' +
          'function formatUnit(u: MemoryUnit): string {\n  return `${u.time ?? "?"}: ${u.text}`;\n}',
      },
      { op: 'replace-function', name: 'score', code: 'const score = (h: Hit): number => h.score * WEIGHTS[1]!;' },
    ]);
    expect(out).toContain(
      '/** Time first, then speaker-less text. */\n' +
        'function formatUnit(u: MemoryUnit): string {\n  return `${u.time ?? "?"}: ${u.text}`;\n}',
    );
    expect(out).toContain('const score = (h: Hit): number => h.score * WEIGHTS[1]!;');
    expect(typeCheck(out)).toEqual([]);
  });

  it('replaces a stage method by name, with the contract check', () => {
    const out = apply(methods, [{ op: 'replace-function', name: 'retrieve', code: 'retrieve(q, memory, tools) { return []; }' }]);
    expect(out).toContain('  retrieve(q, memory, tools) { return []; },');
    expect(
      errorsOf(methods, [{ op: 'replace-function', name: 'context', code: 'context(hits) { return { text: "", units: [] }; }' }])[0]!.code,
    ).toBe('E_EDIT_STAGE_CONTRACT');
  });

  it('checks the contract on top-level functions the design object uses as stages', () => {
    expect(
      errorsOf(functions, [
        {
          op: 'replace-function',
          name: 'buildContext',
          code: 'const buildContext = (q: Question, memory: Memory, hits: Hit[]): Context => ({ text: "", units: [] });',
        },
      ])[0],
    ).toMatchObject({
      code: 'E_EDIT_STAGE_CONTRACT',
      message: expect.stringContaining("context's parameter 2 is named memory"),
    });
    const out = apply(functions, [
      {
        op: 'replace-function',
        name: 'retrieve',
        code:
          'function retrieve(q: Question, memory: Memory, tools: Tools): Hit[] {\n' +
          '  return tools.bm25.index(memory.units).search(q.text, 2 * TOP_K);\n}',
      },
    ]);
    expect(out).toContain('search(q.text, 2 * TOP_K)');
    expect(typeCheck(out)).toEqual([]);
  });

  it('rejects unknown names and renames', () => {
    expect(errorsOf(methods, [{ op: 'replace-function', name: 'rank', code: 'function rank() {}' }])[0]).toEqual({
      edit: 0,
      code: 'E_EDIT_UNKNOWN_NAME',
      message:
        'edit 0 (replace-function): no top-level function or stage named rank; ' +
        'functions are: toUnit, formatUnit, score, store, retrieve, context',
    });
    expect(
      errorsOf(methods, [{ op: 'replace-function', name: 'toUnit', code: 'function makeUnit(r: SourceRecord) { return r; }' }])[0]!.code,
    ).toBe('E_EDIT_NOT_FUNCTION');
  });
});

describe('add-helper and remove-helper', () => {
  it('adds helpers before the design object, usable by a later edit in the same list', () => {
    const out = apply(methods, [
      {
        op: 'add-helper',
        code:
          'const DEDUPE = true;\n\nfunction uniqueHits(hits: Hit[]): Hit[] {\n  const seen = new Set<string>();\n' +
          '  return hits.filter((h) => !seen.has(h.unit) && !!seen.add(h.unit));\n}',
      },
      {
        op: 'replace-stage',
        stage: 'retrieve',
        code:
          'retrieve(q, memory, tools) {\n  const hits = tools.bm25.index(memory.units).search(q.text, K);\n' +
          '  return DEDUPE ? uniqueHits(hits) : hits;\n}',
      },
    ]);
    expect(out.indexOf('function uniqueHits')).toBeGreaterThan(out.indexOf('const score ='));
    expect(out.indexOf('function uniqueHits')).toBeLessThan(out.indexOf('export default'));
    expect(typeCheck(out)).toEqual([]);
    const r = applyEdits(methods, [{ op: 'add-helper', code: 'const A = 1; type B = number;' }]);
    expect(r.ok && r.applied[0]!.targets).toEqual(['A', 'B']);
  });

  it('rejects duplicates, imports, exports and statements that run', () => {
    expect(errorsOf(methods, [{ op: 'add-helper', code: 'function toUnit() {}' }])[0]!.code).toBe('E_EDIT_DUPLICATE_NAME');
    expect(errorsOf(methods, [{ op: 'add-helper', code: 'const a = 1;\nconst a2 = 2;\nfunction a() {}' }])[0]!.code).toBe(
      'E_EDIT_DUPLICATE_NAME',
    );
    expect(errorsOf(methods, [{ op: 'add-helper', code: 'const Question = 1;' }])[0]!.code).toBe('E_EDIT_DUPLICATE_NAME');
    expect(errorsOf(methods, [{ op: 'add-helper', code: "import fs from 'node:fs';" }])[0]!.code).toBe('E_EDIT_NOT_ALLOWED');
    expect(errorsOf(methods, [{ op: 'add-helper', code: 'export const X = 1;' }])[0]!.code).toBe('E_EDIT_NOT_ALLOWED');
    expect(errorsOf(methods, [{ op: 'add-helper', code: 'calls = 5;' }])[0]!.code).toBe('E_EDIT_NOT_ALLOWED');
  });

  it('refuses to remove a helper that is still used, naming the lines', () => {
    const e = errorsOf(methods, [{ op: 'remove-helper', name: 'formatUnit' }]);
    const line = methods.split('\n').findIndex((l) => l.includes('const line = formatUnit(u);')) + 1;
    expect(e).toEqual([
      {
        edit: 0,
        code: 'E_EDIT_STILL_REFERENCED',
        message: `edit 0 (remove-helper): formatUnit is still used on line ${line - 4} of the edited design; replace those uses first`,
      },
    ]);
  });

  it('removes a helper once a later edit drops its last use, ignoring shadowing locals', () => {
    const out = apply(methods, [
      { op: 'remove-helper', name: 'score' },
      {
        op: 'replace-stage',
        stage: 'retrieve',
        code: 'retrieve(q, memory, tools) {\n  const score = 2;\n  return tools.bm25.index(memory.units).search(q.text, K * score);\n}',
      },
    ]);
    expect(out).not.toContain('const score = (h: Hit)');
    expect(typeCheck(out)).toEqual([]);
  });

  it('cannot remove stages, imports or unknown names', () => {
    expect(errorsOf(methods, [{ op: 'remove-helper', name: 'retrieve' }])[0]!.code).toBe('E_EDIT_STAGE_CONTRACT');
    expect(errorsOf(functions, [{ op: 'remove-helper', name: 'buildContext' }])[0]!.code).toBe('E_EDIT_STAGE_CONTRACT');
    expect(errorsOf(methods, [{ op: 'remove-helper', name: 'Tools' }])[0]!.code).toBe('E_EDIT_UNKNOWN_NAME');
    expect(errorsOf(methods, [{ op: 'remove-helper', name: 'nothing' }])[0]!.code).toBe('E_EDIT_UNKNOWN_NAME');
  });
});

describe('edit lists', () => {
  it('reports every failing edit at once, with its index, and keeps the ones that applied', () => {
    const r = applyEdits(methods, [
      { op: 'set-constant', name: 'K', value: 20 },
      { op: 'set-constant', name: 'NOPE', value: 1 },
      { op: 'rename', name: 'x' },
      { op: 'remove-helper', name: 'toUnit' },
    ]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => [e.edit, e.code])).toEqual([
      [1, 'E_EDIT_UNKNOWN_NAME'],
      [2, 'E_EDIT_INVALID'],
      [3, 'E_EDIT_STILL_REFERENCED'],
    ]);
    expect(r.applied.map((a) => a.edit)).toEqual([0, 3]);
  });

  it('reports a parent that does not parse', () => {
    expect(errorsOf('export default { store( {', [{ op: 'set-constant', name: 'K', value: 1 }])[0]).toMatchObject({
      edit: -1,
      code: 'E_EDIT_SOURCE_PARSE',
    });
  });

  it('reports a design without a default-export object for stage edits', () => {
    expect(
      errorsOf('const K = 1;\nexport const x = K;\n', [
        { op: 'replace-stage', stage: 'store', code: 'store() { return { units: [] }; }' },
      ])[0]!.code,
    ).toBe('E_EDIT_NO_DESIGN');
  });
});
