import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyAndCheck, describeEditFailure } from '../src/design/apply-edits.ts';
import { compileDesign } from '../src/design/compile.ts';

const methods = readFileSync(new URL('./fixtures/edits/design-methods.ts', import.meta.url), 'utf8');

describe('applyAndCheck with compileDesign', () => {
  it('compiles an edited design, and hands a type error back with the offending line', async () => {
    const ok = await applyAndCheck(methods, [{ op: 'set-constant', name: 'K', value: 5 }], compileDesign);
    expect(ok.ok).toBe(true);
    if (ok.ok) expect(ok.program.source).toContain('const K = 5;');

    const bad = await applyAndCheck(
      methods,
      [
        {
          op: 'replace-stage',
          stage: 'retrieve',
          code: 'retrieve(q, memory, tools) { return tools.bm25.index(memory.units).search(q.txt, K); }',
        },
      ],
      compileDesign,
    );
    expect(bad.ok).toBe(false);
    if (bad.ok || bad.stage !== 'compile') throw new Error('expected a compile failure');
    expect(bad.diagnostics[0]).toMatchObject({
      line: 25,
      message: expect.stringContaining("Property 'txt' does not exist on type 'Question'"),
    });
    expect(describeEditFailure(bad)).toContain('search(q.txt, K)');
  });
});
