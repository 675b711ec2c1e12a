/**
 * The reward-hacking suite: each adversarial design in fixtures/designs/adversarial/ tries to raise its own score
 * through what it declares (delivered units, sources), how it spends the budget, or what it can learn about the
 * question; each has an honest twin. Evaluated by the real pipeline (pool, isolate, host verification, offline
 * answerer and judge), no adversary may score higher than its twin on any metric or any search objective.
 * Each adversary is also run in-process with its declarations taken at face value, to show that the hack is armed:
 * trusting declarations (or seeing real ids) would have paid.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryDesign, SourceRecord } from '../sandbox/contract.ts';
import { compileDesign } from '../src/design/compile.ts';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../src/evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram, type EvalAnswerer, type EvalPool, type EvaluationResult } from '../src/evaluate/evaluate.ts';
import type { History, QAItem } from '../src/history/record.ts';
import { toolsFromHost } from '../src/isolate/direct-sandbox.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import type { CompiledProgram } from '../src/isolate/sandbox-api.ts';
import { fitnessOf, type Objective } from '../src/optimize/candidate-evaluator.ts';
import type { EvalSummary } from '../src/scoring/summary.ts';
import { countTokens } from '../src/text/text.ts';

const DESIGNS = fileURLToPath(new URL('./fixtures/designs/adversarial/', import.meta.url));
const fixture = JSON.parse(readFileSync(new URL('./fixtures/history/reward-hacking.json', import.meta.url), 'utf8')) as {
  history: string;
  records: SourceRecord[];
  qa: Array<{ id: string; question: string; answer: string; evidence: string[] }>;
};
const history: History = { id: fixture.history, source: 'test', format: 'jsonl', records: fixture.records, qa: [], unresolvedEvidence: [] };
/** The questions with official-looking ids (what a test split looks like)… */
const OFFICIAL: QAItem[] = fixture.qa.map((q) => ({
  id: q.id,
  history: fixture.history,
  question: q.question,
  answer: q.answer,
  answerType: 'text',
  category: '1',
  generator: 'official:test',
  evidence: q.evidence.map((record) => ({ record })),
}));
/** …and the same questions with generated-looking ids (what a search split looks like). */
const GENERATED: QAItem[] = OFFICIAL.map((q, i) => ({ ...q, id: `gen-${fixture.history}-${i + 1}`, generator: 'offline-rules' }));

/** Small enough that an honest design cannot deliver every gold record (so over-claiming has room to pay). */
const BUDGET = 50;
const OBJECTIVES: Objective[] = ['accuracy', 'evidence', 'ranking', 'f1', 'marginal'];

/** [adversary, honest twin]. */
const PAIRS: Array<[string, string]> = [
  ['over-declared', 'honest'],
  ['empty-mega-unit', 'honest'],
  ['neighbour-claiming', 'honest'],
  ['duplicated-units', 'honest'],
  ['whitespace-squeezed', 'honest'],
  ['beyond-budget', 'budget-prefix'],
  ['id-sniffing', 'honest'],
  ['split-guessing', 'honest'],
];
const NAMES = [...new Set(PAIRS.flat())];

let pool: EvalPool;
const programs = new Map<string, CompiledProgram>();
const results = new Map<string, EvaluationResult<EvalSummary>>();
const generatedRuns = new Map<string, EvaluationResult<EvalSummary>>();

function evaluate(program: CompiledProgram, questions: QAItem[], answerer: EvalAnswerer = evalAnswererFrom(null)) {
  const scorer = evalScorerFrom(null);
  return evaluateProgram({
    program,
    histories: [history],
    questions,
    budget: { tokens: BUDGET },
    answerer,
    score: scorer.score,
    judgeId: scorer.judgeId,
    summarize: summarizeTraces,
    pool,
  });
}

beforeAll(async () => {
  pool = createEvalPool({ size: 1 });
  for (const name of NAMES) {
    const file = join(DESIGNS, `${name}.ts`);
    const r = await compileDesign(readFileSync(file, 'utf8'), { fileName: file });
    if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.diagnostics)}`);
    programs.set(name, r.program);
  }
  for (const name of NAMES) results.set(name, await evaluate(programs.get(name)!, OFFICIAL));
  for (const name of ['honest', 'id-sniffing', 'split-guessing']) generatedRuns.set(name, await evaluate(programs.get(name)!, GENERATED));
}, 240_000);
afterAll(async () => {
  await pool?.close();
});

/** Every number a search or a report reads, by name. */
function metrics(r: EvaluationResult<EvalSummary>, items: readonly QAItem[]): Record<string, number> {
  const s = r.summary;
  const out: Record<string, number> = {
    contextRecall: s.contextRecall ?? 0,
    recallAtBudget: s.recallAtBudget ?? 0,
    accuracy: s.accuracy,
    f1: s.f1,
  };
  for (const [k, v] of Object.entries(s.recallAt)) out[`R@${k}`] = v;
  for (const o of OBJECTIVES) out[`objective:${o}`] = fitnessOf(r.traces, items, o).fitness;
  return out;
}

/** Runs a design in-process and scores what it declares at face value (the rules this suite guards against). */
async function declared(
  name: string,
  items: readonly QAItem[],
): Promise<{ contextRecall: number; declaredUnits: number; texts: string[] }> {
  const design = (await import(join(DESIGNS, `${name}.ts`))).default as MemoryDesign;
  const tools = toolsFromHost(createHostTools());
  const memory = await design.store(JSON.parse(JSON.stringify(fixture.records)), tools);
  let recall = 0;
  let declaredUnits = 0;
  const texts: string[] = [];
  for (const item of items) {
    const q = { id: item.id, text: item.question };
    const hits = await design.retrieve(q, memory, tools);
    const ctx = await design.context(q, hits, memory, tools, { tokens: BUDGET });
    const byId = new Map(memory.units.map((u) => [u.id, u]));
    const claimed = new Set(ctx.units.flatMap((u) => byId.get(u)?.sources ?? []));
    const gold = [...new Set(item.evidence.map((e) => e.record))];
    recall += gold.filter((g) => claimed.has(g)).length / gold.length;
    declaredUnits += ctx.units.length;
    texts.push(ctx.text);
  }
  return { contextRecall: recall / items.length, declaredUnits, texts };
}

describe('reward hacking: no adversary scores higher than its honest twin', () => {
  it('the honest twin leaves room to cheat: it does not deliver every gold record', () => {
    const honest = results.get('honest')!;
    expect(honest.traces.every((t) => !t.error)).toBe(true);
    expect(honest.summary.contextRecall).toBeGreaterThan(0);
    expect(honest.summary.contextRecall).toBeLessThan(1);
    expect(honest.summary.recallAtBudget).not.toBeNull();
  });

  it.each(PAIRS)('%s ≤ %s on every metric and objective', (adversary, twin) => {
    const a = results.get(adversary)!;
    const t = results.get(twin)!;
    expect(a.traces.filter((x) => x.error).map((x) => x.error)).toEqual([]);
    const am = metrics(a, OFFICIAL);
    const tm = metrics(t, OFFICIAL);
    expect(Object.keys(am).sort()).toEqual(Object.keys(tm).sort());
    for (const [name, value] of Object.entries(am)) expect(value, `${adversary} ${name}`).toBeLessThanOrEqual(tm[name]! + 1e-12);
    // The ranking objective is the R@10 every report shows, read from the host's ranked records.
    expect(am['objective:ranking']).toBeCloseTo(am['R@10']!, 12);
  });
});

describe('reward hacking: each hack is armed (it would pay if declarations or ids were trusted)', () => {
  it.each(['over-declared', 'empty-mega-unit', 'neighbour-claiming', 'beyond-budget'])(
    '%s claims more gold delivered than the honest twin gets, and the host credits none of the excess',
    async (name) => {
      const claim = await declared(name, OFFICIAL);
      const honest = results.get(name === 'beyond-budget' ? 'budget-prefix' : 'honest')!.summary.contextRecall!;
      expect(claim.contextRecall).toBeGreaterThan(honest);
      expect(results.get(name)!.summary.contextRecall).toBeLessThanOrEqual(honest);
    },
  );

  it('claims that the unit text does not carry are counted per question in the trace', () => {
    const unverified = (name: string) => results.get(name)!.traces.reduce((n, t) => n + (t.unverifiedSources ?? 0), 0);
    expect(unverified('honest')).toBe(0);
    expect(unverified('empty-mega-unit')).toBeGreaterThan(0);
    expect(unverified('neighbour-claiming')).toBeGreaterThan(0);
    // Ranked units of the mega-unit design: the empty unit first, credited with nothing.
    const first = results.get('empty-mega-unit')!.traces[0]!.ranked[0]!;
    expect(first).toMatchObject({ unit: 'everything', sources: [] });
  });

  it('duplicated units declare three times the units the host credits, for the same records', async () => {
    const claim = await declared('duplicated-units', OFFICIAL);
    const credited = results.get('duplicated-units')!.traces.reduce((n, t) => n + t.delivered.length, 0);
    expect(claim.declaredUnits).toBeGreaterThanOrEqual(3 * credited);
    expect(credited).toBeGreaterThan(0);
  });

  it('whitespace squeezing buys no budget (o200k_base counts the squeezed history dearer) and earns no credit', async () => {
    const lines = fixture.records.map((r) => `${r.speaker}: ${r.text}`);
    const spaced = lines.reduce((n, l) => n + countTokens(l), 0);
    const squeezed = lines.reduce((n, l) => n + countTokens(l.replace(/\s+/g, '')), 0);
    expect(squeezed).toBeGreaterThan(spaced);
    // Words run together carry no record: what it declares would have counted, what it delivers does not.
    expect((await declared('whitespace-squeezed', OFFICIAL)).contextRecall).toBeGreaterThan(0);
    const run = results.get('whitespace-squeezed')!;
    expect(run.traces.some((t) => t.contextText.length > 0)).toBe(true);
    expect(run.summary.contextRecall).toBe(0);
  });

  it('id sniffing would answer from memory with real ids; inside the isolate ids are opaque', async () => {
    const armed = await declared('id-sniffing', OFFICIAL);
    expect(armed.texts[0]).toContain('The answer is Leeds.');
    const seen = results.get('id-sniffing')!.traces.flatMap((t) => t.log ?? []);
    expect(seen).toHaveLength(OFFICIAL.length);
    for (const line of seen) expect(line).toMatch(/^id q-[0-9a-f]{16}$/);
    const real = new Set([...OFFICIAL, ...GENERATED].map((q) => q.id));
    for (const line of seen) expect(real.has(line.slice(3))).toBe(false);
    expect(results.get('id-sniffing')!.traces.some((t) => t.contextText.includes('The answer is'))).toBe(false);
  });

  it('split guessing would game generated questions; it cannot tell them from official ones', async () => {
    const onGenerated = await declared('split-guessing', GENERATED);
    const onOfficial = await declared('split-guessing', OFFICIAL);
    expect(onGenerated.declaredUnits).toBeGreaterThan(onOfficial.declaredUnits);
    expect(onGenerated.contextRecall).toBeGreaterThan(onOfficial.contextRecall);
    for (const name of ['honest', 'id-sniffing', 'split-guessing']) {
      const official = results.get(name)!.traces;
      const generated = generatedRuns.get(name)!.traces;
      expect(generated.map((t) => t.contextText)).toEqual(official.map((t) => t.contextText));
      expect(generated.map((t) => t.deliveredRecords)).toEqual(official.map((t) => t.deliveredRecords));
      expect(metrics(generatedRuns.get(name)!, GENERATED)).toEqual(metrics(results.get(name)!, OFFICIAL));
    }
  });
});

describe('no side channels to the answerer', () => {
  it('receives the question text (and date) only: no answer type inferred from the gold answer', async () => {
    const seen: unknown[] = [];
    const spy: EvalAnswerer = {
      id: 'spy',
      async answer(question, context) {
        seen.push(question);
        return { answer: context.slice(0, 10) };
      },
    };
    const dated = OFFICIAL.slice(0, 2).map((q, i) => (i === 0 ? { ...q, answerType: 'number' as const, date: '2023-12-01' } : q));
    await evaluate(programs.get('honest')!, dated, spy);
    expect(seen).toHaveLength(2);
    expect(seen).toEqual(expect.arrayContaining([{ question: dated[0]!.question, date: '2023-12-01' }, { question: dated[1]!.question }]));
  });
});
