/**
 * The option tables: one declaration per option gives the commander flag, the help's default and choices, the
 * parsing of typed text and the typed value; the shared defaults are the library's.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BENCH_OPTIONS } from '../src/cli/commands/bench.ts';
import { COMPARE_OPTIONS, compareOptionsFromFlags } from '../src/cli/commands/compare.ts';
import { EVAL_OPTIONS } from '../src/cli/commands/eval.ts';
import { GENERATE_OPTIONS } from '../src/cli/commands/generate.ts';
import { configFromFlags, OPTIMIZE_OPTIONS } from '../src/cli/commands/optimize.ts';
import { captureIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';
import { addOptions, optionTable, parseOptions } from '../src/cli/option-table.ts';
import { DEFAULT_CONTEXT_BUDGET, DEFAULT_GENERATE_ITEMS, DEFAULT_RNG_SEED, LIMITS } from '../src/config/run-options.ts';
import { CompareOptionsSchema } from '../src/optimize/compare.ts';
import { OptimizeConfigSchema } from '../src/optimize/run-optimize.ts';
import { DEFAULT_CONTEXT_BUDGET as RUNTIME_BUDGET } from '../src/runtime/create-memory.ts';

describe('option tables', () => {
  it('fill the shared defaults when a flag is absent', () => {
    const o = parseOptions(OPTIMIZE_OPTIONS, {});
    expect(o.contextBudget).toBe(DEFAULT_CONTEXT_BUDGET);
    expect(o.rngSeed).toBe(DEFAULT_RNG_SEED);
    expect(o.iterations).toBe(20);
    expect(o.feedback).toBe('stratified');
    expect(o.space).toBe('code');
    expect(o.testCategories).toEqual([]);
    expect(o.objective).toBeUndefined();
    expect(parseOptions(EVAL_OPTIONS, { history: 'h', design: 'd' }).budget).toBe(DEFAULT_CONTEXT_BUDGET);
    expect(parseOptions(GENERATE_OPTIONS, { history: 'h' }).n).toBe(DEFAULT_GENERATE_ITEMS);
    expect(parseOptions(COMPARE_OPTIONS, { history: 'h', supervision: 's' }).iterations).toBe(10);
    expect(parseOptions(BENCH_OPTIONS, {})).toMatchObject({ dataset: 'all', out: 'archive/bench', rngSeed: DEFAULT_RNG_SEED });
    expect(RUNTIME_BUDGET).toBe(DEFAULT_CONTEXT_BUDGET);
  });

  it('parse typed text and typed values alike', () => {
    const fromText = parseOptions(OPTIMIZE_OPTIONS, { iterations: '5', budgetDollars: '2.5', testCategories: '1, 2,,3', offline: true });
    const typed = parseOptions(OPTIMIZE_OPTIONS, { iterations: 5, budgetDollars: 2.5, testCategories: ['1', '2', '3'], offline: true });
    expect(fromText).toEqual(typed);
    expect(fromText.iterations).toBe(5);
    expect(fromText.testCategories).toEqual(['1', '2', '3']);
    expect(parseOptions(BENCH_OPTIONS, { budgets: '100, 200', rhelmTest: 'all' })).toMatchObject({ budgets: [100, 200], rhelmTest: null });
    expect(parseOptions(BENCH_OPTIONS, { rhelmTest: '7' }).rhelmTest).toBe(7);
  });

  it('refuse text a number cannot be, with the bounds in the message', () => {
    expect(() => parseOptions(OPTIMIZE_OPTIONS, { rngSeed: 'abc' })).toThrow(/--rng-seed "abc": expected a whole number$/);
    expect(() => parseOptions(OPTIMIZE_OPTIONS, { contextBudget: '' })).toThrow(/--context-budget "": expected a whole number from 1/);
    expect(() => parseOptions(GENERATE_OPTIONS, { history: 'h', n: '1e9' })).toThrow(
      new RegExp(`--n "1e9": expected a whole number from 1 to ${LIMITS.generateItems}`),
    );
    expect(() => parseOptions(GENERATE_OPTIONS, { history: 'h', val: '1' })).toThrow(/--val "1": expected a number ≥ 0 and < 1/);
    expect(() => parseOptions(OPTIMIZE_OPTIONS, { feedback: 'all' })).toThrow(
      /--feedback "all": expected one of stratified, diagnosis, random/,
    );
    expect(() => parseOptions(OPTIMIZE_OPTIONS, { select: 'best' })).toThrow(expect.objectContaining({ code: 'E_BAD_SELECT' }));
    expect(() => parseOptions(EVAL_OPTIONS, { design: 'd' })).toThrow(expect.objectContaining({ code: 'E_MISSING_FLAG' }));
    // One seed is a list of whole numbers too short for pooling: the message says what is missing.
    expect(() => parseOptions(COMPARE_OPTIONS, { history: 'h', supervision: 's', rngSeeds: '1' })).toThrow(
      /--rng-seeds "1": expected a comma-separated list of 2 or more whole numbers$/,
    );
  });

  it("map onto the library's config schemas unchanged", () => {
    const o = parseOptions(OPTIMIZE_OPTIONS, { history: 'h', supervision: 's', wallTime: '90', objective: 'f1', limit: '7' });
    const cfg = OptimizeConfigSchema.parse(configFromFlags(o));
    expect(cfg).toMatchObject({ wallTimeSeconds: 90, objective: 'f1', limit: 7, seed: 'seeds/base-bm25.ts' });
    expect(cfg).toEqual(OptimizeConfigSchema.parse({ ...cfg }));
    const c = CompareOptionsSchema.parse(
      compareOptionsFromFlags(parseOptions(COMPARE_OPTIONS, { history: 'h', supervision: 's' }), '/tmp/x'),
    );
    expect(c.contextBudget).toBe(DEFAULT_CONTEXT_BUDGET);
    expect(c).toMatchObject({ moves: 'case-driven', select: 'greedy' });
    // Structural search and the diversity strategy are chosen by flags, on optimize and on compare.
    const s = parseOptions(OPTIMIZE_OPTIONS, { history: 'h', supervision: 's', moves: 'mixed', select: 'map-elites:4:0.02' });
    expect(OptimizeConfigSchema.parse(configFromFlags(s))).toMatchObject({ moves: 'mixed', select: 'map-elites:4:0.02' });
    expect(OptimizeConfigSchema.parse(configFromFlags(o))).toMatchObject({ moves: 'case-driven', structuralShare: 0.5 });
    const share = parseOptions(OPTIMIZE_OPTIONS, { history: 'h', supervision: 's', moves: 'mixed', structuralShare: '0.25' });
    expect(OptimizeConfigSchema.parse(configFromFlags(share)).structuralShare).toBe(0.25);
    expect(() => parseOptions(OPTIMIZE_OPTIONS, { structuralShare: '2' })).toThrow(/--structural-share "2"/);
    const cs = parseOptions(COMPARE_OPTIONS, { history: 'h', supervision: 's', moves: 'structural', select: 'map-elites' });
    expect(CompareOptionsSchema.parse(compareOptionsFromFlags(cs, '/tmp/x'))).toMatchObject({ moves: 'structural', select: 'map-elites' });
    expect(() => parseOptions(OPTIMIZE_OPTIONS, { moves: 'ast' })).toThrow(
      /--moves "ast": expected one of case-driven, catalog, structural, mixed/,
    );
    expect(() => parseOptions(COMPARE_OPTIONS, { history: 'h', supervision: 's', select: 'map-elites:x' })).toThrow(
      expect.objectContaining({ code: 'E_BAD_SELECT' }),
    );
  });

  it('give commander its flags, choices and defaults, and refuse a key commander would store elsewhere', async () => {
    const io = captureIO();
    expect(await main(['node', 'memsteer', 'optimize', '--help'], io)).toBe(0);
    expect(io.stdout).toMatch(/--objective <name>[\s\S]*choices:\s+"accuracy",\s+"evidence",\s+"ranking",\s+"f1",\s+"marginal"/);
    expect(io.stdout).toMatch(/--context-budget <tokens>[\s\S]*default:\s+1000\)/);
    expect(io.stdout).toMatch(/--feedback <mode>[\s\S]*default:\s+stratified/);
    const wrong = optionTable({ budget: { flags: '--context-budget <n>', description: 'x', schema: z.number().optional() } });
    expect(() => addOptions(new Command('x'), wrong)).toThrow(/stored as contextBudget, not budget/);
  });
});
