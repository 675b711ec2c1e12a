/**
 * Transfer (RHELM): a design optimized on some personas, applied frozen to the others, then optimized further
 * on each target persona with supervision generated from that persona's own history.
 */
import type { QuestionTrace } from '../../scoring/trace.ts';
import { BASE_REF, cellRef, type BenchContext } from '../context.ts';
import { HEADLINE_COLUMNS, SPLIT_COLUMNS, bySplit, delta, devNote, headline } from '../markdown.ts';
import { TransferResultSchema, type PartScores, type TransferResult, type TransferRow } from '../schemas.ts';
import { scoresFromTraces } from '../scores.ts';
import { splitCounts } from '../supervision-sets.ts';

const ALL = 'all targets';

export async function runTransferExperiment(ctx: BenchContext): Promise<TransferResult> {
  const started = performance.now();
  const done = (r: Omit<TransferResult, 'experiment' | 'title' | 'seconds' | 'tables'> & { tables?: TransferResult['tables'] }) =>
    TransferResultSchema.parse({
      experiment: 'transfer',
      title: 'Transfer across RHELM personas',
      seconds: (performance.now() - started) / 1000,
      tables: r.tables ?? [],
      ...r,
    });
  if (!ctx.config.datasets.some((d) => d.id === 'rhelm')) {
    return done({ notes: ['Not run: transfer needs the RHELM dataset (--dataset rhelm or all).'], sources: [], targets: [], rows: [] });
  }
  const histories = await ctx.histories('rhelm');
  if (histories.length < 2) {
    return done({
      notes: [`Not run: transfer needs at least two personas; the RHELM source has ${histories.length}.`],
      sources: [],
      targets: [],
      rows: [],
    });
  }
  const k = Math.min(ctx.config.transferSources, histories.length - 1);
  const sources = histories.slice(0, k);
  const targets = histories.slice(k);
  const generated = await ctx.generated(histories);
  const sourceIds = new Set(sources.map((h) => h.id));
  const sourceSup = generated.filter((q) => sourceIds.has(q.history));
  const src = await ctx.cell({ name: 'rhelm-transfer-source', dataset: 'rhelm', supervision: sourceSup });

  ctx.step(`official QA of the ${targets.length} target personas: Base-BM25 and the frozen source design`);
  const base = await ctx.evaluate('targets base-bm25', 'rhelm', ctx.baseSource, targets);
  const frozen = await ctx.evaluate('targets frozen', 'rhelm', src.bestSource, targets);

  const rows: TransferRow[] = [];
  const continuedTraces: QuestionTrace[] = [];
  const pooledSup = { train: 0, val: 0 };
  const frozenRef = { ...cellRef(src) };
  for (const t of targets) {
    const own = generated.filter((q) => q.history === t.id);
    const cont = await ctx.cell({
      name: `rhelm-transfer-continue-${t.id}`,
      dataset: 'rhelm',
      supervision: own,
      seedSource: src.bestSource,
    });
    const test = await ctx.evaluate(`${t.id} continued`, 'rhelm', cont.bestSource, [t]);
    const traces = test.byHistory.get(t.id)!;
    continuedTraces.push(...traces);
    const counts = splitCounts(own);
    pooledSup.train += counts.train;
    pooledSup.val += counts.val;
    rows.push(
      {
        persona: t.id,
        stage: 'base-bm25',
        supervision: { kind: 'none', train: 0, val: 0 },
        design: BASE_REF,
        test: scoresFromTraces(base.byHistory.get(t.id)!),
      },
      {
        persona: t.id,
        stage: 'frozen',
        supervision: { kind: 'generated', ...splitCounts(sourceSup) },
        design: frozenRef,
        test: scoresFromTraces(frozen.byHistory.get(t.id)!),
      },
      {
        persona: t.id,
        stage: 'continued',
        supervision: { kind: 'generated', ...counts },
        design: cellRef(cont),
        test: scoresFromTraces(traces),
      },
    );
  }
  rows.push(
    { persona: ALL, stage: 'base-bm25', supervision: { kind: 'none', train: 0, val: 0 }, design: BASE_REF, test: base.scores },
    {
      persona: ALL,
      stage: 'frozen',
      supervision: { kind: 'generated', ...splitCounts(sourceSup) },
      design: frozenRef,
      test: frozen.scores,
    },
    {
      persona: ALL,
      stage: 'continued',
      supervision: { kind: 'generated', ...pooledSup },
      design: { program: 'per persona', run: null, valFitness: null, accepted: null, proposals: null },
      test: scoresFromTraces(continuedTraces),
    },
  );

  const c = ctx.config;
  return done({
    notes: [
      `Source personas (design optimized on their generated supervision, ${c.perHistory} items each): ` +
        `${sources.map((h) => h.id).join(', ')}. Targets: ${targets.map((h) => h.id).join(', ')}. Personas are taken in name order.`,
      "frozen = the source run's best design applied unchanged to each target persona. continued = a " +
        'new search per target persona, seeded with the frozen design and steered by supervision ' +
        "generated from that persona's own history only (one run per persona, not all targets together).",
      `Every run: ${c.iterations} iterations of the offline mutation proposer, objective = context recall on validation ` +
        `items. Test = each target persona's official QA (${ctx.testNote('rhelm')}); "${ALL}" pools their questions.`,
      'Δ columns: percentage points against Base-BM25 on the same questions.',
      `"${ALL}" rows pool the targets of one part only: development personas (dev) and held-out personas are never pooled together.`,
    ],
    sources: sources.map((h) => h.id),
    targets: targets.map((h) => h.id),
    rows,
    tables: [
      {
        title: `Target personas: Base-BM25 → frozen transfer → continued on the persona's own supervision (${devNote('rhelm')})`,
        columns: ['target persona', 'stage', 'design', ...SPLIT_COLUMNS, ...HEADLINE_COLUMNS, 'Δ R@10', 'Δ F1'],
        rows: rows.flatMap((r) => {
          const b = rows.find((x) => x.persona === r.persona && x.stage === 'base-bm25')!;
          const baseOf = (p: PartScores) => (p === r.test.split.dev ? b.test.split.dev : b.test.split.heldout);
          return bySplit([r.persona, r.stage, r.design.program], r.test, (p) => [
            ...headline(p),
            delta(p.recallAt10, baseOf(p)?.recallAt10),
            delta(p.f1, baseOf(p)?.f1),
          ]);
        }),
      },
    ],
  });
}
