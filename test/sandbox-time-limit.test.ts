/**
 * A stage's time limit is judged on CPU time as well as the wall clock, so the same design gets the same outcome
 * on an idle and on a loaded machine. "Loaded" is simulated by a host tool that blocks its thread without using
 * CPU (what a descheduled process looks like from inside), never by timing the machine.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { compileDesign } from '../src/design/compile.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import type { HostTools } from '../src/isolate/sandbox-api.ts';
import { createSandbox } from '../src/isolate/sandbox-runner.ts';
import { LOAD_SLACK, startStageClock } from '../src/isolate/stage-clock.ts';

const RECORDS: SourceRecord[] = JSON.parse(readFileSync(new URL('./fixtures/designs/records-20.json', import.meta.url), 'utf8'));
const TINY = new URL('./fixtures/designs/good/tiny-bm25.ts', import.meta.url);

/** Blocks this thread for `ms` without using CPU. */
const sleep = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Uses `ms` of this process's CPU time. */
function burn(ms: number): void {
  const start = process.cpuUsage();
  for (;;) {
    const d = process.cpuUsage(start);
    if ((d.user + d.system) / 1000 >= ms) return;
  }
}

describe("a stage's clock", () => {
  it('is over its limit only when both the wall clock and the CPU time are past it', () => {
    const clock = startStageClock(40);
    expect(clock.over()).toBe(false);
    sleep(80);
    expect(clock.over()).toBe(false);
    burn(60);
    expect(clock.over()).toBe(true);
    expect(clock.used().cpuMs).toBeGreaterThanOrEqual(60);
  });

  it('is over its limit at LOAD_SLACK times the limit on the wall clock, whatever the CPU time', () => {
    const clock = startStageClock(20);
    expect(clock.capMs).toBe(20 * LOAD_SLACK);
    sleep(20 * LOAD_SLACK + 30);
    expect(clock.over()).toBe(true);
  });
});

describe('a sandbox stage on a loaded machine', () => {
  /** tiny-bm25 stores through bm25.index (here kept waiting `waitMs`) and then logs: a tool call after the wait. */
  async function storeWithSlowIndex(waitMs: number) {
    const compiled = await compileDesign(readFileSync(TINY, 'utf8'), { fileName: fileURLToPath(TINY) });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.diagnostics));
    const host = createHostTools();
    const waiting: HostTools = {
      ...host,
      bm25Index: (docs, options) => {
        sleep(waitMs);
        return host.bm25Index(docs, options);
      },
    };
    const created = await createSandbox(compiled.program, waiting, { storeTimeoutMs: 300 });
    if (!created.ok) throw new Error(created.failure.message);
    try {
      const stored = await created.sandbox.store(RECORDS);
      if (!stored.ok) return stored;
      return await created.sandbox.retrieve({ id: 'q', text: 'Biscuit obedience course ribbon' });
    } finally {
      created.sandbox.dispose();
    }
  }

  it('finishes when only the wall clock ran past the limit (the wall-clock rule failed it)', async () => {
    const r = await storeWithSlowIndex(500);
    expect(r.ok && r.value[0]!.unit).toBe('u-r17');
  });

  it('is stopped at the wall-clock cap', async () => {
    const r = await storeWithSlowIndex(300 * LOAD_SLACK + 200);
    expect(!r.ok && r.failure).toMatchObject({ stage: 'store', kind: 'timeout' });
  });
});
