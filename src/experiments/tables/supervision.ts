/**
 * Supervision ablations: the offline generator with and without its checks, and training budgets of 100 / 200 /
 * 400 items judged on one validation set; each arm's optimized design is tested on official QA.
 */
import { DATASETS } from '../bench-config.ts';
import { cellRef, type BenchContext } from '../context.ts';
import {
  FIDELITY_NOTE,
  HEADLINE_COLUMNS,
  SPLIT_COLUMNS,
  bySplit,
  designHash,
  devNote,
  fidelityTable,
  headline,
  pct,
  sameDesignAs,
  sameDesignNote,
} from '../markdown.ts';
import { SupervisionResultSchema, type SupervisionResult, type SupervisionRow, type Table } from '../schemas.ts';
import { budgetSubset, splitCounts } from '../supervision-sets.ts';
import { ablationSetup } from './ablation-setup.ts';

export async function runSupervisionExperiment(ctx: BenchContext): Promise<SupervisionResult> {
  const started = performance.now();
  const rows: SupervisionRow[] = [];
  const setups: string[] = [];
  const skipped: string[] = [];
  for (const { id: dataset } of ctx.config.datasets) {
    const setup = await ablationSetup(ctx, dataset);
    setups.push(setup.describe);
    const { histories } = setup;
    const checked = await ctx.generated(histories, setup.spec);
    const unchecked = await ctx.generated(histories, { ...setup.spec, checks: false });
    const arms: Array<{ variant: string; checks: boolean; items: typeof checked; name: string }> = [
      { variant: 'with checks (all training items)', checks: true, items: checked, name: `${dataset}-ablation-checks` },
      { variant: 'without checks (all training items)', checks: false, items: unchecked, name: `${dataset}-ablation-no-checks` },
    ];
    const available = splitCounts(checked).train;
    for (const b of ctx.config.budgets) {
      if (b >= available) {
        skipped.push(
          `${DATASETS[dataset].label} budget ${b}: only ${available} training items were generated, ` +
            'so it equals the "all training items" arm',
        );
        continue;
      }
      arms.push({ variant: `budget ${b}`, checks: true, items: budgetSubset(checked, b), name: `${dataset}-ablation-budget-${b}` });
    }
    for (const arm of arms) {
      const cell = await ctx.cell({ name: arm.name, dataset, supervision: arm.items });
      const test = await ctx.evaluate(`${dataset} ${arm.variant}`, dataset, cell.bestSource, histories);
      const counts = splitCounts(arm.items);
      rows.push({
        dataset,
        variant: arm.variant,
        checks: arm.checks,
        trainItems: counts.train,
        valItems: counts.val,
        design: ctx.config.fidelity ? { ...cellRef(cell), fidelity: await ctx.fidelity(cell, dataset, histories) } : cellRef(cell),
        test: test.scores,
      });
    }
  }
  const c = ctx.config;
  return SupervisionResultSchema.parse({
    experiment: 'supervision',
    title: 'Supervision ablations: generator checks and training budget',
    notes: [
      ...setups,
      'without checks = the offline generator with its programmatic plan checks, question checks and offline blind ' +
        'reader turned off (generateSupervision `checks: false`): every templated candidate whose quotes locate in ' +
        'their records is kept, spans still recorded, same target count, de-duplication and type caps unchanged.',
      'budget B = the first B training items of the checked set in hash order, with the full validation ' +
        'set of the checked set, so every budget is judged on the same validation items. "best val" of the ' +
        'unchecked arm is on its own (unchecked) validation items and is not comparable with the others.',
      `Every arm: Base-BM25 evolved for ${c.iterations} iterations, same RNG seed; ` +
        `test = official QA of the ablation histories (${c.datasets.map((d) => ctx.testNote(d.id)).join('; ')}).`,
      ...skipped.map((s) => `Skipped: ${s}.`),
      ...sameDesignNotes(rows),
      ...(c.fidelity ? [FIDELITY_NOTE] : []),
      'Offline, the case-driven proposer reads the training split itself (its failure cases, the lexical bridges it mines, ' +
        'the ranking it fits), so arms with different training sets can walk different paths; acceptance is on validation.',
    ],
    tables: [
      ...supervisionTables(rows),
      ...[...new Set(rows.map((r) => r.dataset))].flatMap(
        (d) =>
          fidelityTable(
            `${DATASETS[d].label}: supervision fidelity of each arm's run`,
            rows.filter((r) => r.dataset === d).map((r) => ({ label: r.variant, design: r.design })),
          ) ?? [],
      ),
    ],
    seconds: (performance.now() - started) / 1000,
    rows,
  });
}

function sameDesignNotes(rows: readonly SupervisionRow[]): string[] {
  return [...new Set(rows.map((r) => r.dataset))].flatMap(
    (d) =>
      sameDesignNote(
        DATASETS[d].label,
        rows.filter((r) => r.dataset === d).map((r) => ({ label: r.variant, program: r.design.program })),
      ) ?? [],
  );
}

function supervisionTables(rows: readonly SupervisionRow[]): Table[] {
  return [...new Set(rows.map((r) => r.dataset))].map((dataset) => {
    const rs = rows.filter((r) => r.dataset === dataset);
    const same = sameDesignAs(rs.map((r) => ({ label: r.variant, design: r.design })));
    const locomo = dataset === 'locomo';
    return {
      title:
        `${DATASETS[dataset].label}: official test of each arm's optimized design ` +
        `(${rs[0]?.test.n ?? 0} questions; ${devNote(dataset)})`,
      columns: [
        'supervision',
        'design',
        'design hash',
        'same design as',
        'train / val items',
        'best val',
        ...SPLIT_COLUMNS,
        ...HEADLINE_COLUMNS,
        ...(locomo ? ['LoCoMo F1'] : []),
      ],
      rows: rs.flatMap((r, i) =>
        bySplit(
          [r.variant, r.design.program, designHash(r.design), same[i]!, `${r.trainItems} / ${r.valItems}`, pct(r.design.valFitness)],
          r.test,
          (p) => [...headline(p), ...(locomo ? [pct(p.locomoF1)] : [])],
        ),
      ),
    };
  });
}
