/**
 * The `add` contract for the seeds that have it, and for base-bm25 after each offline mutation block: `store(first)`
 * then `add(rest)` must give the memory `store(all)` gives (same unit provenance, same hits, same context).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Question, SourceRecord } from '../sandbox/contract.ts';
import { applyAndCheck } from '../src/design/apply-edits.ts';
import { compileDesign } from '../src/design/compile.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import type { Sandbox } from '../src/isolate/sandbox-api.ts';
import { createSandbox } from '../src/isolate/sandbox-runner.ts';
import { MUTATION_OPERATORS } from '../src/optimize/proposers/mutation-catalog.ts';
import { declaredNames } from '../src/optimize/proposers/offline-mutation.ts';

const root = join(import.meta.dirname, '..');
const records = JSON.parse(readFileSync(join(root, 'test/fixtures/designs/records-20.json'), 'utf8')) as SourceRecord[];
// Threads, so that session- and window-based blocks have neighbours to find.
const threaded = records.map((r) => ({ ...r, thread: r.time!.slice(0, 10) }));
const QUESTIONS: Question[] = [
  { id: 'q1', text: 'What is the name of the golden retriever puppy?' },
  { id: 'q2', text: 'Where is Ana moving in June 2023?' },
  { id: 'q3', text: 'What did the physiotherapist say about the knee?' },
  { id: 'q4', text: 'Which road bike did she buy?' },
];

async function sandboxOf(source: string): Promise<Sandbox> {
  const compiled = await compileDesign(source);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.diagnostics.slice(0, 3)));
  const created = await createSandbox(compiled.program, createHostTools());
  if (!created.ok) throw new Error(created.failure.message);
  return created.sandbox;
}

/** Units, hits and contexts of a memory, for comparison. */
async function observe(s: Sandbox) {
  const units = await s.memoryUnits();
  const out: unknown[] = [units.ok ? units.value : units.failure];
  for (const q of QUESTIONS) {
    const hits = await s.retrieve(q);
    if (!hits.ok) throw new Error(hits.failure.message);
    const ctx = await s.context(q, hits.value, { tokens: 120 });
    if (!ctx.ok) throw new Error(ctx.failure.message);
    out.push(hits.value, ctx.value);
  }
  return out;
}

async function expectAddEquivalent(source: string): Promise<void> {
  const whole = await sandboxOf(source);
  const grown = await sandboxOf(source);
  try {
    expect(grown.incremental).toBe(true);
    expect((await whole.store(threaded)).ok).toBe(true);
    expect((await grown.store(threaded.slice(0, 6))).ok).toBe(true);
    for (const [a, b] of [
      [6, 7],
      [7, 13],
      [13, 20],
    ] as const) {
      const r = await grown.add(threaded.slice(a, b));
      if (!r.ok) throw new Error(r.failure.message);
    }
    expect(await observe(grown)).toEqual(await observe(whole));
  } finally {
    whole.dispose();
    grown.dispose();
  }
}

describe('store(first) + add(rest) ≡ store(all)', () => {
  it.each(['base-bm25.ts', 'hybrid-rrf.ts', 'refine-probe.ts'])('seeds/%s', async (file) => {
    await expectAddEquivalent(readFileSync(join(root, 'seeds', file), 'utf8'));
  });

  it.each(MUTATION_OPERATORS.map((op) => op.name))('base-bm25 after the %s block', async (name) => {
    const seed = readFileSync(join(root, 'seeds/base-bm25.ts'), 'utf8');
    const op = MUTATION_OPERATORS.find((o) => o.name === name)!;
    const names = declaredNames(seed);
    const edits = op.edits(
      (n) => names.has(n),
      (m) => seed.includes(m),
    );
    const checked = await applyAndCheck(seed, edits, compileDesign);
    if (!checked.ok) throw new Error(JSON.stringify(checked));
    await expectAddEquivalent(checked.source);
  });
});
