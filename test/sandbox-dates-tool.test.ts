import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MemoryDesign, SourceRecord } from '../sandbox/contract.ts';
import { compileDesign } from '../src/design/compile.ts';
import { directSandboxFactory } from '../src/isolate/direct-sandbox.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import type { Sandbox } from '../src/isolate/sandbox-api.ts';
import { createSandbox } from '../src/isolate/sandbox-runner.ts';
import dateStamps from './fixtures/designs/good/date-stamps.ts';

const DESIGN_URL = new URL('./fixtures/designs/good/date-stamps.ts', import.meta.url);

const RECORDS: SourceRecord[] = [
  { id: 'r1', kind: 'turn', text: 'I ran a charity race last Saturday.', time: '2023-05-08T13:56:00' },
  { id: 'r2', kind: 'turn', text: 'We moved here two weeks ago, on 20 April 2023.', time: '2023-05-08' },
  // No time: "yesterday" has nothing to resolve against and is not a date; the year is.
  { id: 'r3', kind: 'note', text: 'Back from Lisbon yesterday, my first trip since 2019.' },
];
const QUESTION = { id: 'q', text: 'What did I do last weekend and next Friday?', date: '2023-05-10' };

const EXPECTED_CONTEXT = [
  'asked: last weekend=2023-05-07@14-26; next Friday=2023-05-19@31-42',
  'r1: last Saturday=2023-05-06',
  'r2: two weeks ago=2023-04-24; 20 April 2023=2023-04-20',
  'r3: 2019=2019',
].join('\n');

async function isolated(): Promise<Sandbox> {
  const compiled = await compileDesign(readFileSync(DESIGN_URL, 'utf8'));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.diagnostics));
  const created = await createSandbox(compiled.program, createHostTools(), {});
  if (!created.ok) throw new Error(JSON.stringify(created.failure));
  return created.sandbox;
}

async function inProcess(design: MemoryDesign = dateStamps): Promise<Sandbox> {
  const factory = directSandboxFactory(design, createHostTools);
  const created = await factory.createSandbox(undefined as never, factory.createHostTools({}), {});
  if (!created.ok) throw new Error(JSON.stringify(created.failure));
  return created.sandbox;
}

describe.each([
  ['in the sandbox', isolated],
  ['in process', () => inProcess()],
])('tools.text.dates %s', (_where, make) => {
  it('resolves each record against its own time and the question against its date, metered per call', async () => {
    const sandbox = await make();
    const stored = await sandbox.store(RECORDS);
    expect(stored.ok && stored.toolCalls).toEqual({ 'text.dates': 3 });
    const hits = await sandbox.retrieve(QUESTION);
    if (!hits.ok) throw new Error(hits.failure.message);
    const ctx = await sandbox.context(QUESTION, hits.value, { tokens: 500 });
    if (!ctx.ok) throw new Error(ctx.failure.message);
    expect(ctx.value.text).toBe(EXPECTED_CONTEXT);
    expect(ctx.toolCalls).toEqual({ 'text.dates': 1 });
    sandbox.dispose();
  });

  it('fails the stage with a message naming the tool when the reference is not an ISO date', async () => {
    const sandbox = await make();
    const stored = await sandbox.store([{ ...RECORDS[0]!, time: 'last spring' }]);
    expect(stored.ok).toBe(false);
    if (stored.ok) return;
    expect(stored.failure.kind).toBe('throw');
    expect(stored.failure.message).toContain("text.dates: 'last spring' is not an ISO date");
    sandbox.dispose();
  });
});
