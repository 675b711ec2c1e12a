import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { clearCompileCache, compileDesign, DESIGN_GLOBAL } from '../src/design/compile.ts';

const GOOD = readFileSync(new URL('./fixtures/designs/good/tiny-bm25.ts', import.meta.url), 'utf8');

const design = (body: string, header = "import type { MemoryDesign } from '../sandbox/contract.ts';"): string => `${header}\n${body}\n`;
const MINIMAL = `const d: MemoryDesign = {
  store: (records) => ({ units: records.map((r) => ({ id: r.id, text: r.text, sources: [r.id] })) }),
  retrieve: () => [],
  context: () => ({ text: '', units: [] }),
};
export default d;`;

const tmp = mkdtempSync(join(tmpdir(), 'memsteer-compile-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('compileDesign', () => {
  it('compiles a good design to a script that assigns the design global, keyed by sha256', async () => {
    const r = await compileDesign(GOOD, { fileName: 'tiny-bm25.ts' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.program.hash).toBe(createHash('sha256').update(GOOD).digest('hex'));
    expect(r.program.fileName).toBe('tiny-bm25.ts');
    expect(r.program.js.startsWith(`var ${DESIGN_GLOBAL} = `)).toBe(true);
    expect(r.program.js).not.toMatch(/\brequire\(|\bimport\b/);
    const again = await compileDesign(GOOD);
    expect(again.ok && again.cached).toBe(true);
  });

  it('accepts every spelling of the contract import', async () => {
    for (const spec of ['../sandbox/contract.ts', '../sandbox/contract', '../../../sandbox/contract.ts', 'memsteer/contract']) {
      const r = await compileDesign(design(MINIMAL, `import type { MemoryDesign } from '${spec}';`));
      expect(r.ok, spec).toBe(true);
    }
    const inline = await compileDesign(design(MINIMAL, "import { type MemoryDesign } from 'memsteer/contract';"));
    expect(inline.ok).toBe(true);
  });

  it('rejects imports, require, dynamic import and export * with located diagnostics', async () => {
    const src = [
      "import type { MemoryDesign } from '../sandbox/contract.ts';",
      "import { readFileSync } from 'node:fs';",
      "export * from './other.ts';",
      MINIMAL,
      "const fs = require('fs');",
      "const later = import('node:os');",
    ].join('\n');
    const r = await compileDesign(src);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const got = r.diagnostics.map((d) => [d.code, d.line, d.column]);
    expect(got).toEqual([
      ['forbidden-import', 2, 1],
      ['forbidden-export-star', 3, 1],
      ['forbidden-require', 10, 12],
      ['forbidden-dynamic-import', 11, 15],
    ]);
    expect(r.diagnostics[0]!.message).toContain("'node:fs'");
  });

  it('rejects a value import from the contract and a side-effect import', async () => {
    const value = await compileDesign(design(MINIMAL, "import { MemoryDesign } from '../sandbox/contract.ts';"));
    expect(!value.ok && value.diagnostics[0]!.code).toBe('forbidden-import');
    const sideEffect = await compileDesign(
      `import '../sandbox/contract.ts';\nimport type { MemoryDesign } from '../sandbox/contract.ts';\n${MINIMAL}`,
    );
    expect(!sideEffect.ok && sideEffect.diagnostics.map((d) => d.line)).toEqual([1]);
  });

  it('reports type errors with their TS code and position, and tells why console is missing', async () => {
    const r = await compileDesign(design(`const n: number = 'seven';\n${MINIMAL}\nconsole.log(n);`));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics[0]).toMatchObject({ code: 'TS2322', line: 2, column: 7 });
    const consoleDiag = r.diagnostics.find((d) => d.message.includes('console'));
    expect(consoleDiag?.message).toContain('tools.log');
  });

  it('checks that the default export is a MemoryDesign, at the export', async () => {
    const r = await compileDesign(
      "import type { Hit } from 'memsteer/contract';\nconst x = 1;\n" +
        'export default { store: () => ({ units: [] }), retrieve: (): Hit[] => [], context: () => ({ text: 3, units: [] }) };\n',
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ line: 3, code: 'TS2322' });
    expect(r.diagnostics[0]!.message).toMatch(/not a MemoryDesign.*text/);
  });

  it('requires a default export', async () => {
    const r = await compileDesign("import type { MemoryDesign } from 'memsteer/contract';\nexport const d = 1;\n");
    expect(!r.ok && r.diagnostics.map((d) => d.code)).toEqual(['no-default-export']);
  });

  it('returns diagnostics for garbage instead of throwing', async () => {
    const r = await compileDesign('export default }}} {{{ ((( ');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.diagnostics.every((d) => d.line >= 1 && d.column >= 1 && d.code.startsWith('TS'))).toBe(true);
  });

  it('caches compiled programs on disk by hash and serves them after the memory cache is gone', async () => {
    const src = design(`${MINIMAL}\n// disk cache probe`);
    const first = await compileDesign(src, { cacheDir: tmp });
    expect(first.ok && !first.cached).toBe(true);
    expect(readdirSync(tmp).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    clearCompileCache();
    const second = await compileDesign(src, { cacheDir: tmp });
    expect(second.ok && second.cached).toBe(true);
    if (first.ok && second.ok) expect(second.program.js).toBe(first.program.js);
  });
});
