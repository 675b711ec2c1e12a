/**
 * Feedback ablations: what the proposer is shown about the parent's training failures, with the same supervision,
 * seed and iterations: random failure samples (no diagnosis), the diagnosis with failures sampled in proportion,
 * and the diagnosis with failure-stratified sampling (the default).
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
import { FeedbackResultSchema, type FeedbackResult, type FeedbackRow, type Table } from '../schemas.ts';
import { ablationSetup } from './ablation-setup.ts';

const MODES = [
  { mode: 'random', label: 'random failure samples (no diagnosis)' },
  { mode: 'diagnosis', label: 'diagnosis' },
  { mode: 'stratified', label: 'diagnosis + stratified sampling' },
] as const;

export async function runFeedbackExperiment(ctx: BenchContext): Promise<FeedbackResult> {
  const started = performance.now();
  const rows: FeedbackRow[] = [];
  const setups: string[] = [];
  for (const { id: dataset } of ctx.config.datasets) {
    const setup = await ablationSetup(ctx, dataset);
    setups.push(setup.describe);
    const supervision = await ctx.generated(setup.histories, setup.spec);
    for (const m of MODES) {
      // The stratified arm is the supervision ablation's "with checks" run (same supervision, seed and settings).
      const cell = await ctx.cell({ name: `${dataset}-feedback-${m.mode}`, dataset, supervision, feedback: m.mode });
      const test = await ctx.evaluate(`${dataset} feedback ${m.mode}`, dataset, cell.bestSource, setup.histories);
      const design = ctx.config.fidelity
        ? { ...cellRef(cell), fidelity: await ctx.fidelity(cell, dataset, setup.histories) }
        : cellRef(cell);
      rows.push({ dataset, mode: m.mode, label: m.label, design, test: test.scores });
    }
  }
  const c = ctx.config;
  return FeedbackResultSchema.parse({
    experiment: 'feedback',
    title: 'Feedback ablations: random failures vs diagnosis vs diagnosis + stratified sampling',
    notes: [
      ...setups,
      `Same supervision, RNG seed and ${c.iterations} iterations for every mode; ` +
        `test = official QA of the same histories (${c.datasets.map((d) => ctx.testNote(d.id)).join('; ')}).`,
      "What differs offline: the offline mutation proposer reads only the diagnosis's failure-category counts " +
        '(storage / retrieval / answering), never the failure cases. ' +
        'random = the proposer gets no diagnosis (only randomly sampled failures, which it ignores), ' +
        'so it works through the targets in fixed pipeline order (storage → retrieval → answering) ' +
        'with operators drawn at random within a target, instead of targeting the most frequent failure category.',
      ...[...new Set(rows.map((r) => r.dataset))].flatMap(
        (d) =>
          sameDesignNote(
            DATASETS[d].label,
            rows.filter((r) => r.dataset === d).map((r) => ({ label: r.mode, program: r.design.program })),
          ) ?? [],
      ),
      ...(c.fidelity ? [FIDELITY_NOTE] : []),
      'diagnosis (failures sampled in proportion to their frequency) and diagnosis + stratified ' +
        '(failures sampled per category) hand the offline proposer the same counts, ' +
        'so offline they make the same proposals and reach the same design; ' +
        'they differ only for an LLM proposer, which reads the cases.',
    ],
    tables: [
      ...feedbackTables(rows),
      ...[...new Set(rows.map((r) => r.dataset))].flatMap(
        (d) =>
          fidelityTable(
            `${DATASETS[d].label}: supervision fidelity of each mode's run`,
            rows.filter((r) => r.dataset === d),
          ) ?? [],
      ),
    ],
    seconds: (performance.now() - started) / 1000,
    rows,
  });
}

function feedbackTables(rows: readonly FeedbackRow[]): Table[] {
  return [...new Set(rows.map((r) => r.dataset))].map((dataset) => {
    const rs = rows.filter((r) => r.dataset === dataset);
    const same = sameDesignAs(rs);
    return {
      title: `${DATASETS[dataset].label}: official test by feedback mode (${rs[0]?.test.n ?? 0} questions; ${devNote(dataset)})`,
      columns: [
        'feedback',
        'design',
        'design hash',
        'same design as',
        'accepted / proposals',
        'best val',
        ...SPLIT_COLUMNS,
        ...HEADLINE_COLUMNS,
      ],
      rows: rs.flatMap((r, i) =>
        bySplit(
          [
            r.label,
            r.design.program,
            designHash(r.design),
            same[i]!,
            `${r.design.accepted ?? 0} / ${r.design.proposals ?? 0}`,
            pct(r.design.valFitness),
          ],
          r.test,
          headline,
        ),
      ),
    };
  });
}
