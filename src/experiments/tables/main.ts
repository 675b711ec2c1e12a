/**
 * The main table: Base-BM25 vs the design optimized with generated supervision vs the design optimized with
 * official QA (the Official-QA reference), tested on each dataset's official QA.
 */
import { DATASETS } from '../bench-config.ts';
import { BASE_REF, cellRef, type BenchContext } from '../context.ts';
import {
  FIDELITY_NOTE,
  HEADLINE_COLUMNS,
  SPLIT_COLUMNS,
  bySplit,
  devNote,
  fidelityTable,
  headline,
  pct,
  sameDesignNote,
} from '../markdown.ts';
import { MainResultSchema, type MainResult, type MainRow, type Table } from '../schemas.ts';
import { officialSupervision, splitCounts } from '../supervision-sets.ts';

export async function runMainExperiment(ctx: BenchContext): Promise<MainResult> {
  const started = performance.now();
  const rows: MainRow[] = [];
  for (const { id: dataset } of ctx.config.datasets) {
    const info = DATASETS[dataset];
    const histories = await ctx.histories(dataset);
    const generated = await ctx.generated(histories);
    const gen = await ctx.cell({ name: `${dataset}-main-generated`, dataset, supervision: generated });
    const official = officialSupervision(histories, {
      categories: info.testCategories,
      valShare: ctx.config.valShare,
      dropDates: info.dropOfficialDates,
    });
    const off = await ctx.cell({ name: `${dataset}-main-official-qa`, dataset, supervision: official });

    ctx.step(`${info.label}: official QA of Base-BM25 and both optimized designs`);
    const base = await ctx.evaluate(`${dataset} base-bm25`, dataset, ctx.baseSource, histories);
    const genTest = await ctx.evaluate(`${dataset} generated`, dataset, gen.bestSource, histories);
    const offTest = await ctx.evaluate(`${dataset} official-qa`, dataset, off.bestSource, histories);
    const n = histories.length;
    const ref = async (cell: typeof gen) =>
      ctx.config.fidelity ? { ...cellRef(cell), fidelity: await ctx.fidelity(cell, dataset, histories) } : cellRef(cell);
    const genRef = await ref(gen);
    const offRef = await ref(off);
    rows.push(
      {
        dataset,
        method: 'base-bm25',
        label: 'Base-BM25',
        histories: n,
        supervision: { kind: 'none', train: 0, val: 0 },
        design: BASE_REF,
        test: base.scores,
      },
      {
        dataset,
        method: 'generated',
        label: 'MemSteer (generated supervision)',
        histories: n,
        supervision: { kind: 'generated', ...splitCounts(generated) },
        design: genRef,
        test: genTest.scores,
      },
      {
        dataset,
        method: 'official-qa',
        label: 'Official-QA (reference)',
        histories: n,
        supervision: { kind: 'official', ...splitCounts(official) },
        design: offRef,
        test: offTest.scores,
      },
    );
  }
  return MainResultSchema.parse({
    experiment: 'main',
    title: 'Main: Base-BM25 vs generated supervision vs Official-QA',
    notes: [
      ...mainNotes(ctx),
      ...(ctx.config.fidelity ? [FIDELITY_NOTE] : []),
      ...ctx.config.datasets.flatMap(
        (d) =>
          sameDesignNote(
            DATASETS[d.id].label,
            rows.filter((r) => r.dataset === d.id && r.method !== 'base-bm25').map((r) => ({ label: r.label, program: r.design.program })),
          ) ?? [],
      ),
    ],
    tables: [
      ...mainTables(rows),
      ...[...new Set(rows.map((r) => r.dataset))].flatMap(
        (d) =>
          fidelityTable(
            `${DATASETS[d].label}: supervision fidelity of each optimized row's run`,
            rows.filter((r) => r.dataset === d && r.design.run),
          ) ?? [],
      ),
    ],
    seconds: (performance.now() - started) / 1000,
    rows,
  });
}

function mainNotes(ctx: BenchContext): string[] {
  const c = ctx.config;
  return [
    `Test = official QA of every ${c.excludeDev ? 'held-out history (--exclude-dev: the development ones are left out)' : 'history'}. ` +
      `${ctx.config.datasets.map((d) => ctx.testNote(d.id)).join('. ')}.`,
    `MemSteer: Base-BM25 evolved for ${c.iterations} iterations by the offline mutation proposer, ` +
      `steered by ${c.perHistory} offline-generated items per history (train/val split by bundle, ` +
      `validation share ${c.valShare}); the design with the best validation score is tested.`,
    'Official-QA is a reference, not a fair comparison: it trains on the official items themselves (split into train/val ' +
      `by a hash of the id, validation share ${c.valShare}) and is tested on the same items. RHELM's official training ` +
      'items drop their question dates (one memory build per persona instead of one per date); the test keeps them.',
    'Per-category columns: LoCoMo official F1 (LoCoMo), token F1 per RHELM question type. ' +
      'Accuracy = token F1 ≥ 0.5 against the reference answer (offline judge); the extractive ' +
      'reader is the fixed answerer, so accuracy and F1 move less than retrieval metrics.',
    'design = the program id in its run (`i<iteration>-<content hash>`): two rows with the same hash are the same design. ' +
      '"best val" is the search objective on that run\'s own validation items (generated or official), ' +
      'so it is not comparable across rows.',
    'The search objective offline is context recall of gold evidence on validation items, so R@10 and context recall are the ' +
      'metrics the search optimizes; accuracy and F1 follow only as far as the extractive reader can use the better context.',
  ];
}

function mainTables(rows: readonly MainRow[]): Table[] {
  const tables: Table[] = [];
  for (const dataset of [...new Set(rows.map((r) => r.dataset))]) {
    const info = DATASETS[dataset];
    const rs = rows.filter((r) => r.dataset === dataset);
    const n = rs[0]?.test.n ?? 0;
    const locomo = dataset === 'locomo';
    const histories = rs[0]?.histories ?? 0;
    const historyWord = histories === 1 ? 'history' : 'histories';
    tables.push({
      title: `${info.label}: official test (${histories} ${historyWord}, ${n} questions; ${devNote(dataset)})`,
      columns: [
        'method',
        'design',
        'train / val items',
        'best val',
        ...SPLIT_COLUMNS,
        ...HEADLINE_COLUMNS,
        ...(locomo ? ['LoCoMo F1'] : []),
      ],
      rows: rs.flatMap((r) =>
        bySplit(
          [
            r.label,
            r.design.program,
            r.supervision.kind === 'none' ? '–' : `${r.supervision.train} / ${r.supervision.val}`,
            pct(r.design.valFitness),
          ],
          r.test,
          (p) => [...headline(p), ...(locomo ? [pct(p.locomoF1)] : [])],
        ),
      ),
    });
    const cats = [...new Set(rs.flatMap((r) => Object.keys(r.test.perCategory)))].sort();
    const metric = info.categoryMetric;
    const metricName = metric === 'locomoF1' ? 'LoCoMo F1' : 'F1';
    tables.push({
      title: `${info.label}: ${metricName} per ${locomo ? 'category' : 'question type'} (${devNote(dataset)})`,
      columns: ['method', ...SPLIT_COLUMNS, ...cats.map((c) => info.categoryNames[c] ?? c)],
      rows: rs.flatMap((r) => bySplit([r.label], r.test, (p) => cats.map((c) => pct(p.perCategory[c]?.[metric] ?? null)))),
    });
    tables.push({
      title: `${info.label}: evidence R@10 per ${locomo ? 'category' : 'question type'} (${devNote(dataset)})`,
      columns: ['method', ...SPLIT_COLUMNS, ...cats.map((c) => info.categoryNames[c] ?? c)],
      rows: rs.flatMap((r) => bySplit([r.label], r.test, (p) => cats.map((c) => pct(p.perCategory[c]?.recallAt10 ?? null)))),
    });
  }
  return tables;
}
