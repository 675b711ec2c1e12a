import { readFileSync } from 'node:fs';
import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { applyAndCheck, describeEditFailure, type CompileOutcome } from '../src/design/apply-edits.ts';
import { EditOpSchema, STAGE_PARAMETERS, parseEdits } from '../src/design/edit-ops.ts';
import { typeCheck } from './fixtures/edits/type-check.ts';

const methods = readFileSync(new URL('./fixtures/edits/design-methods.ts', import.meta.url), 'utf8');

/** A compiler built on the fixture type-check, shaped like compileDesign. */
function compile(source: string): CompileOutcome<{ length: number }> {
  const diags = typeCheck(source);
  if (!diags.length) return { ok: true, program: { length: source.length } };
  return {
    ok: false,
    diagnostics: diags.map((d) => {
      const [line, ...rest] = d.split(': ');
      return { line: Number(line), column: 1, message: rest.join(': ') };
    }),
  };
}

describe('edit operation schema', () => {
  it('parses every op and rejects malformed ones with the offending index', () => {
    const ok = parseEdits([
      { op: 'replace-function', name: 'f', code: 'function f() {}' },
      { op: 'add-helper', code: 'const X = 1;' },
      { op: 'remove-helper', name: 'g' },
      { op: 'set-constant', name: 'K', value: [1, [2, 3]] },
      { op: 'replace-stage', stage: 'context', code: 'context() {}' },
    ]);
    expect(ok.ok).toBe(true);
    const bad = parseEdits([
      { op: 'replace-stage', stage: 'answer', code: 'x' },
      { op: 'set-constant', name: 'K', value: null },
      { op: 'set-constant', name: 'not a name', value: 1 },
    ]);
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.errors.map((e) => [e.edit, e.code])).toEqual([
      [0, 'E_EDIT_INVALID'],
      [1, 'E_EDIT_NOT_LITERAL'],
      [2, 'E_EDIT_INVALID'],
    ]);
    expect(bad.errors[0]!.message).toMatch(/^edit 0 \(replace-stage\): stage:/);
    expect(parseEdits({ op: 'add-helper' })).toMatchObject({ ok: false, errors: [{ edit: -1, code: 'E_EDIT_INVALID' }] });
    expect(EditOpSchema.safeParse({ op: 'set-constant', name: 'K', value: Infinity }).success).toBe(false);
  });

  it('stage parameters agree with MemoryDesign in sandbox/contract.ts', () => {
    const project = new Project({ useInMemoryFileSystem: true });
    const contract = project.createSourceFile('/contract.ts', readFileSync(new URL('../sandbox/contract.ts', import.meta.url), 'utf8'));
    const iface = contract.getInterfaceOrThrow('MemoryDesign');
    // The three required stages; the optional `add` is not a replace-stage target (designs keep its logic in helpers,
    // which replace-function edits), so only its parameter names are pinned here.
    const methods = iface.getMethods();
    const fromContract = Object.fromEntries(
      methods.filter((m) => !m.hasQuestionToken()).map((m) => [m.getName(), m.getParameters().map((p) => p.getName())]),
    );
    expect(fromContract).toEqual(STAGE_PARAMETERS);
    const add = methods.find((m) => m.getName() === 'add');
    expect(add?.hasQuestionToken()).toBe(true);
    expect(add?.getParameters().map((p) => p.getName())).toEqual(['memory', 'records', 'tools']);
  });
});

describe('applyAndCheck', () => {
  it('returns the compiled program when edits apply and type-check', async () => {
    const r = await applyAndCheck(methods, [{ op: 'set-constant', name: 'K', value: 5 }], compile);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.source).toContain('const K = 5;');
    expect(r.program.length).toBe(r.source.length);
  });

  it('returns apply errors without compiling', async () => {
    let compiled = 0;
    const r = await applyAndCheck(methods, [{ op: 'remove-helper', name: 'nope' }], (s) => {
      compiled++;
      return compile(s);
    });
    expect(compiled).toBe(0);
    expect(r).toMatchObject({ ok: false, stage: 'apply', errors: [{ edit: 0, code: 'E_EDIT_UNKNOWN_NAME' }] });
    if (r.ok) return;
    expect(describeEditFailure(r)).toBe(
      'The edits did not apply:\n- E_EDIT_UNKNOWN_NAME: edit 0 (remove-helper): no top-level helper named nope',
    );
  });

  it('returns type errors with the edited source for repair, quoting the line', async () => {
    const r = await applyAndCheck(
      methods,
      [
        {
          op: 'replace-stage',
          stage: 'retrieve',
          code: 'retrieve(q, memory, tools) {\n  return tools.bm25.index(memory.units).search(q.txt, K);\n}',
        },
      ],
      async (s) => compile(s),
    );
    expect(r.ok).toBe(false);
    if (r.ok || r.stage !== 'compile') throw new Error('expected a compile failure');
    const line = r.source.split('\n').findIndex((l) => l.includes('q.txt')) + 1;
    expect(r.diagnostics).toEqual([{ line, column: 1, message: "Property 'txt' does not exist on type 'Question'. Did you mean 'text'?" }]);
    expect(describeEditFailure(r)).toBe(
      'The edits applied but the design does not type-check:\n' +
        `- line ${line}:1: Property 'txt' does not exist on type 'Question'. Did you mean 'text'?\n` +
        '    return tools.bm25.index(memory.units).search(q.txt, K);',
    );
  });
});
