import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { compileDesign } from '../src/design/compile.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import { createSandbox } from '../src/isolate/sandbox-runner.ts';
import type { Sandbox, SandboxLimits } from '../src/isolate/sandbox-api.ts';

const RECORDS: SourceRecord[] = JSON.parse(readFileSync(new URL('./fixtures/designs/records-20.json', import.meta.url), 'utf8'));
const hostile = (name: string): URL => new URL(`./fixtures/designs/hostile/${name}.ts`, import.meta.url);
const LIMITS: Partial<SandboxLimits> = { memoryMb: 64, storeTimeoutMs: 1500, callTimeoutMs: 500 };

async function load(url: URL, limits: Partial<SandboxLimits> = LIMITS): Promise<Sandbox> {
  const compiled = await compileDesign(readFileSync(url, 'utf8'), { fileName: fileURLToPath(url) });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.diagnostics));
  const created = await createSandbox(compiled.program, createHostTools(), limits);
  if (!created.ok) throw new Error(JSON.stringify(created.failure));
  return created.sandbox;
}

/** The good design still works after `sandbox` misbehaved: nothing leaked into the host or the next isolate. */
async function nextSandboxWorks(): Promise<void> {
  const good = await load(new URL('./fixtures/designs/good/tiny-bm25.ts', import.meta.url));
  expect((await good.store(RECORDS)).ok).toBe(true);
  const hits = await good.retrieve({ id: 'q', text: 'Biscuit obedience course ribbon' });
  expect(hits.ok && hits.value[0]!.unit).toBe('u-r17');
  good.dispose();
}

const q = (text: string) => ({ id: text, text });

describe('hostile designs contained in-process', () => {
  it('an infinite loop in store times out and leaves the isolate usable', async () => {
    const s = await load(hostile('loop-store'));
    const r = await s.store(RECORDS);
    expect(!r.ok && r.failure).toMatchObject({ stage: 'store', kind: 'timeout' });
    expect(s.alive).toBe(true);
    const after = await s.retrieve(q('x'));
    expect(!after.ok && after.failure.kind).toBe('malformed'); // no memory: store never succeeded
    s.dispose();
  });

  it('an infinite loop in retrieve times out; the memory survives for the next question', async () => {
    const s = await load(hostile('loop-retrieve'));
    expect((await s.store(RECORDS)).ok).toBe(true);
    const r = await s.retrieve(q('x'));
    expect(!r.ok && r.failure).toMatchObject({ stage: 'retrieve', kind: 'timeout' });
    const units = await s.memoryUnits();
    expect(units.ok && units.value.length).toBe(20);
    s.dispose();
  });

  it('a promise that never settles is ended by the watchdog, which disposes the isolate', async () => {
    const s = await load(hostile('await-forever'));
    expect((await s.store(RECORDS)).ok).toBe(true);
    const r = await s.retrieve(q('x'));
    expect(!r.ok && r.failure).toMatchObject({ stage: 'retrieve', kind: 'timeout' });
    expect(!r.ok && r.failure.message).toMatch(/watchdog/);
    expect(s.alive).toBe(false);
    const next = await s.retrieve(q('y'));
    expect(!next.ok && next.failure.kind).toBe('crash');
    s.dispose();
  });

  it('a loop in code resumed after an await times out', async () => {
    const s = await load(hostile('loop-after-await'));
    expect((await s.store(RECORDS)).ok).toBe(true);
    const r = await s.retrieve(q('x'));
    expect(!r.ok && r.failure).toMatchObject({ stage: 'retrieve', kind: 'timeout' });
    s.dispose();
  });

  it('an ArrayBuffer bomb is refused by the allocator and reported as memory', async () => {
    const s = await load(hostile('arraybuffer-bomb'));
    const r = await s.store(RECORDS);
    expect(!r.ok && r.failure).toMatchObject({ stage: 'store', kind: 'memory' });
    s.dispose();
    await nextSandboxWorks();
  });

  it('finds no process, require, fetch, timers or dynamic import; random is seeded and the clock fixed', async () => {
    const s = await load(hostile('reach-out'), { ...LIMITS, seed: 42, now: Date.UTC(2030, 0, 1) });
    const r = await s.store(RECORDS);
    expect(r.ok).toBe(true);
    const found = Object.fromEntries(r.log.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]));
    for (const name of [
      'process',
      'require',
      'fetch',
      'Buffer',
      'setTimeout',
      'setInterval',
      'WebAssembly',
      'SharedArrayBuffer',
      'Atomics',
      'module',
    ]) {
      expect(found[name], name).toBe('undefined');
    }
    expect(found.eval).toBe('undefined/undefined');
    expect(found.import).toBe('rejected');
    expect(found.now).toBe(`${Date.UTC(2030, 0, 1)}:2030-01-01T00:00:00.000Z`);
    const again = await load(hostile('reach-out'), { ...LIMITS, seed: 42, now: Date.UTC(2030, 0, 1) });
    expect((await again.store(RECORDS)).log).toEqual(r.log);
    s.dispose();
    again.dispose();
  });

  it('prototype tampering stays inside its isolate: results valid, host and next sandbox unaffected', async () => {
    const s = await load(hostile('prototype-tamper'));
    expect((await s.store(RECORDS)).ok).toBe(true);
    const hits = await s.retrieve(q('x'));
    expect(hits.ok && hits.value).toEqual([
      { unit: 'r01', score: 2 },
      { unit: 'r02', score: 1 },
    ]);
    if (!hits.ok) return;
    const ctx = await s.context(q('x'), hits.value, { tokens: 100 });
    expect(ctx.ok && ctx.value.units).toEqual(['r01', 'r02']);
    s.dispose();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const list: number[] = [];
    list.push(1);
    expect(list).toEqual([1]);
    expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
    await nextSandboxWorks();
  });

  it('a 50 MB context is malformed, not copied to the host', async () => {
    const s = await load(hostile('huge-return'), { ...LIMITS, memoryMb: 256 });
    expect((await s.store(RECORDS)).ok).toBe(true);
    const hits = await s.retrieve(q('x'));
    if (!hits.ok) throw new Error(hits.failure.message);
    const ctx = await s.context(q('x'), hits.value, { tokens: 100 });
    expect(!ctx.ok && ctx.failure).toMatchObject({ stage: 'context', kind: 'malformed' });
    expect(!ctx.ok && ctx.failure.message).toMatch(/over the 8000000 limit/);
    expect(s.alive).toBe(true);
    s.dispose();
  });

  it('throwing non-Errors (42, null, {}) is reported as throw with a description', async () => {
    const s = await load(hostile('throw-non-errors'));
    const stored42 = await s.store([...RECORDS, { id: 'x', kind: 'note', text: 'throw 42' }]);
    expect(!stored42.ok && stored42.failure).toEqual({ stage: 'store', kind: 'throw', message: 'threw a non-Error number: 42' });
    expect((await s.store(RECORDS)).ok).toBe(true);
    const r = await s.retrieve(q('x'));
    expect(!r.ok && r.failure).toEqual({ stage: 'retrieve', kind: 'throw', message: 'threw null' });
    const c = await s.context(q('x'), [], { tokens: 10 });
    expect(!c.ok && c.failure).toEqual({ stage: 'context', kind: 'throw', message: 'threw a non-Error object: {}' });
    s.dispose();
  });

  it('unbounded recursion is a throw (RangeError), and the isolate stays usable', async () => {
    const s = await load(hostile('stack-overflow'));
    expect((await s.store(RECORDS)).ok).toBe(true);
    const r = await s.retrieve(q('x'));
    expect(!r.ok && r.failure).toEqual({ stage: 'retrieve', kind: 'throw', message: 'RangeError: Maximum call stack size exceeded' });
    expect((await s.memoryUnits()).ok).toBe(true);
    s.dispose();
  });

  it('reports malformed shapes: NaN scores, unknown units, throwing getters, bad sources, non-memory', async () => {
    const s = await load(hostile('malformed-results'));
    expect((await s.store(RECORDS)).ok).toBe(true);
    const expectMalformed = async (text: string, pattern: RegExp): Promise<void> => {
      const r = await s.retrieve(q(text));
      expect(!r.ok && r.failure.kind, text).toBe('malformed');
      if (!r.ok) expect(r.failure.message).toMatch(pattern);
    };
    await expectMalformed('nan', /score must be a finite number/);
    await expectMalformed('unknown', /"no-such-unit" is not a unit id/);
    await expectMalformed('getter', /getter/);
    const ok = await s.retrieve(q('fine'));
    expect(ok.ok).toBe(true);
    const textNumber = await s.context(q('text-number'), [], { tokens: 10 });
    expect(!textNumber.ok && textNumber.failure).toMatchObject({
      stage: 'context',
      kind: 'malformed',
      message: 'context.text must be a string',
    });
    const badSources = await s.store([...RECORDS, { id: 'y', kind: 'note', text: 'bad sources' }]);
    expect(!badSources.ok && badSources.failure.message).toMatch(/"no-such-record" is not the id of a stored record/);
    const notMemory = await s.store([...RECORDS, { id: 'z', kind: 'note', text: 'not memory' }]);
    expect(!notMemory.ok && notMemory.failure.kind).toBe('malformed');
    s.dispose();
  });
});

/**
 * Growing a Map, a Set or an object's keys, or doubling a flattened string, can hit V8's fatal OOM inside
 * the isolate, which aborts the whole process despite memoryLimit. These run in a child process: the
 * child either reports a contained failure or dies, and this process must survive either way.
 */
describe('hostile designs that may kill their process (run in a child)', () => {
  const child = fileURLToPath(new URL('./fixtures/designs/run-design-child.ts', import.meta.url));
  const runChild = (name: string, storeMs = 3000) => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', child, fileURLToPath(hostile(name))], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, MEMSTEER_TEST_MEMORY_MB: '64', MEMSTEER_TEST_STORE_MS: String(storeMs) },
    });
    const lines = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { step: string; ok?: boolean; alive?: boolean; failure?: { kind: string; message: string } });
    return { run, lines };
  };

  it('array growth hits the heap limit and is reported as memory; the isolate is disposed', () => {
    // A generous store timeout: on a loaded machine the heap limit must still be what stops it, not the clock.
    const { run, lines } = runChild('array-bomb', 30_000);
    expect(run.status).toBe(0);
    expect(lines.find((l) => l.step === 'store')?.failure).toEqual({
      stage: 'store',
      kind: 'memory',
      message: 'Isolate was disposed during execution due to memory limit',
    });
    expect(lines.find((l) => l.step === 'done')?.alive).toBe(false);
  });

  for (const name of ['map-bomb', 'set-bomb', 'object-keys-bomb', 'string-doubling']) {
    it(`${name}: never succeeds; the test process survives`, () => {
      const { run, lines } = runChild(name);
      const store = lines.find((l) => l.step === 'store');
      if (run.status === 0) {
        // Contained: the store failed with a resource kind.
        expect(store?.ok).toBe(false);
        expect(['memory', 'timeout']).toContain(store?.failure?.kind);
      } else {
        // Killed by V8's fatal OOM (SIGABRT) before it could report anything.
        expect(run.signal ?? run.status).toBeTruthy();
        expect(store).toBeUndefined();
        expect(run.stderr).toMatch(/heap|memory/i);
      }
    });
  }
});
