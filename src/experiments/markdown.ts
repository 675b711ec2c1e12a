/** The table writer: results as Markdown (the JSON files hold the same tables plus the typed rows). */
import type { BenchConfig } from './bench-config.ts';
import { devLabel, type DevBenchmark } from './dev-subsets.ts';
import type { BenchFidelity, DesignRef, ExperimentResult, Metrics, PartScores, Scores, Table } from './schemas.ts';

/** A proportion as a percentage with one decimal; `–` when the metric does not apply. */
export function pct(x: number | null | undefined): string {
  return x === null || x === undefined ? '–' : (x * 100).toFixed(1);
}

/** A signed difference in percentage points. */
export function delta(a: number | null | undefined, b: number | null | undefined): string {
  if (a === null || a === undefined || b === null || b === undefined) return '–';
  const d = ((a - b) * 100).toFixed(1);
  // A difference that rounds to zero is shown as +0.0, never -0.0.
  return d.startsWith('-') && Number(d) !== 0 ? d : `+${d.replace(/^-/, '')}`;
}

/** The four headline cells: R@10, context recall, accuracy, F1. */
export function headline(m: Metrics): string[] {
  return [pct(m.recallAt10), pct(m.contextRecall), pct(m.accuracy), pct(m.f1)];
}

export const HEADLINE_COLUMNS = ['R@10', 'ctx recall', 'accuracy', 'F1'];

/** The columns {@link bySplit} puts before a row's metrics. */
export const SPLIT_COLUMNS = ['histories', 'n'];

/**
 * One design's scores as rows, development histories apart from held-out ones (a part with no question is left
 * out): `[prefix…, 'dev' | 'held-out', n, cells(part)…]`. Tables never pool the two.
 */
export function bySplit(prefix: readonly string[], s: Scores, cells: (p: PartScores) => string[]): string[][] {
  const rows: string[][] = [];
  if (s.split.dev) rows.push([...prefix, 'dev', String(s.split.dev.n), ...cells(s.split.dev)]);
  if (s.split.heldout) rows.push([...prefix, 'held-out', String(s.split.heldout.n), ...cells(s.split.heldout)]);
  return rows;
}

/** A table title's note on which histories are the development subset of `dataset`. */
export function devNote(dataset: DevBenchmark): string {
  return `dev = ${devLabel(dataset)}, held-out = the others`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * A note saying which rows share a design (same program content hash), computed from the rows so the text
 * always matches the numbers; null when every row has its own design.
 */
export function sameDesignNote(scope: string, rows: ReadonlyArray<{ label: string; program: string }>): string | null {
  const byHash = new Map<string, string[]>();
  for (const r of rows) {
    const hash = r.program.replace(/^i\d+-/, '');
    byHash.set(hash, [...(byHash.get(hash) ?? []), r.label]);
  }
  const groups = [...byHash.values()].filter((g) => g.length > 1);
  if (!groups.length) return null;
  const list = (g: string[]) => (g.length === 2 ? `${g[0]} and ${g[1]}` : `${g.slice(0, -1).join(', ')} and ${g.at(-1)}`);
  return `${scope}: ${groups.map((g) => `${list(g)} ended at the same design`).join('; ')}, so their test scores are identical.`;
}

/** A design's short content hash (12 hex digits): from its recorded sha256, else from its program id. */
export function designHash(design: DesignRef): string {
  return design.contentHash ? design.contentHash.slice(0, 12) : design.program.replace(/^i\d+-/, '');
}

/**
 * Per row, the label of the first earlier row that tested the same design (same content hash), or `–`: the
 * "same design as" column that says whether an ablation's arms really differ.
 */
export function sameDesignAs(rows: ReadonlyArray<{ label: string; design: DesignRef }>): string[] {
  return rows.map((r, i) => rows.slice(0, i).find((x) => designHash(x.design) === designHash(r.design))?.label ?? '–');
}

/** τ or ρ with two decimals, `–` when undefined. */
const corr = (x: number | null) => (x === null ? '–' : x.toFixed(2));
/** Regret in percentage points. */
const regretPts = (a: BenchFidelity['contextRecall']) => (a.regret ? (a.regret.regret * 100).toFixed(1) : '–');

/** Columns of {@link fidelityTable}. */
export const FIDELITY_COLUMNS = [
  'histories',
  'questions',
  'candidates',
  'τ-b ctx recall',
  'ρ ctx recall',
  'regret ctx recall',
  'ceiling τ-b ctx recall',
  'decisions confirmed / contradicted / unclear',
  'τ-b R@10',
  'ρ R@10',
  'regret R@10',
];

/**
 * The fidelity table of an experiment: per optimized row, how well its run's validation ranked every candidate on
 * the row's official questions. Null when no row has fidelity (the bench ran without `--fidelity`).
 */
export function fidelityTable(title: string, rows: ReadonlyArray<{ label: string; design: DesignRef }>): Table | null {
  const withF = rows.filter((r) => r.design.fidelity);
  if (!withF.length) return null;
  return {
    title,
    columns: ['row', 'design', ...FIDELITY_COLUMNS],
    rows: withF.map((r) => {
      const f = r.design.fidelity!;
      return [
        r.label,
        r.design.program,
        f.part === 'dev' ? `dev (${f.histories})` : `held-out (${f.histories})`,
        String(f.questions),
        f.distinct === f.candidates ? String(f.candidates) : `${f.distinct} distinct of ${f.candidates}`,
        corr(f.contextRecall.kendallTauB),
        corr(f.contextRecall.spearman),
        regretPts(f.contextRecall),
        corr(f.ceiling ?? null),
        f.decisions ? `${f.decisions.agree} / ${f.decisions.disagree} / ${f.decisions.unclear}` : '–',
        corr(f.recallAt10.kendallTauB),
        corr(f.recallAt10.spearman),
        regretPts(f.recallAt10),
      ];
    }),
  };
}

/** The note under a fidelity table: what its numbers are. */
export const FIDELITY_NOTE =
  "Fidelity: every candidate of the row's run that compiled and got a validation score, evaluated on the official questions " +
  'after the search (the search never saw them), over the held-out histories (dev only when the row has no other). ' +
  'τ-b and ρ compare the ranking by validation fitness with the official context recall (R@10); regret = the best official ' +
  'score of any candidate minus that of the highest-validation candidate, in points. Ceiling = the most τ-b by context recall ' +
  'any validation set could reach against these official questions (τ-b between their ranking and their bootstrap resamples). ' +
  "Decisions = the run's kept and dropped proposals against their parents, replayed on official context recall: confirmed, " +
  'contradicted, or unclear (the official change within 1.96 paired standard errors). ' +
  'Candidates with the same source count once. ' +
  "Each run's fidelity.json holds the per-candidate numbers.";

/** One GitHub-flavoured Markdown table (numbers right-aligned). */
export function markdownTable(t: Table): string {
  const numeric = t.columns.map((_, i) => t.rows.length > 0 && t.rows.every((r) => /^[-+–]?[\d.]*$/.test(r[i] ?? '')));
  const lines = [
    `| ${t.columns.map(cell).join(' | ')} |`,
    `| ${numeric.map((n) => (n ? '---:' : '---')).join(' | ')} |`,
    ...t.rows.map((r) => `| ${t.columns.map((_, i) => cell(r[i] ?? '')).join(' | ')} |`),
  ];
  return lines.join('\n');
}

/** An experiment's Markdown file: its tables, then its notes. */
export function experimentMarkdown(r: ExperimentResult): string {
  const parts = [`## ${r.title}`, ''];
  for (const t of r.tables) parts.push(`### ${t.title}`, '', markdownTable(t), '');
  if (r.notes.length) parts.push('Notes:', '', ...r.notes.map((n) => `- ${n}`), '');
  parts.push(`_${r.seconds.toFixed(0)} s in this bench run._`, '');
  return parts.join('\n');
}

/** The combined README: how the bench was run, then every experiment's section. */
export function readmeMarkdown(results: readonly ExperimentResult[], config: BenchConfig, seconds: number): string {
  const parts = [
    '# memsteer bench (offline)',
    '',
    'Offline versions of the MemSteer tables: rule-based supervision generator, offline mutation proposer, ' +
      'extractive reader as the fixed answerer, token-F1 judge (correct when F1 ≥ 0.5), ' +
      'objective = context recall of gold evidence on validation items. Numbers are percentages.',
    '',
    `Development histories (the only ones calibration scripts read; see the README's "Development subsets"): ` +
      `${config.datasets.map((d) => `${d.id} ${devLabel(d.id)}`).join('; ')}. ` +
      (config.excludeDev
        ? 'This bench ran with --exclude-dev: they were left out of every experiment (supervision, searches and tests), ' +
          'so every row is held-out.'
        : 'Every table reports them (dev) apart from the held-out histories.'),
    '',
    `Datasets: ${config.datasets.map((d) => `${d.id} (\`${d.source}\`)`).join(', ')}. ` +
      `${config.iterations} iterations per optimization run, RNG seed ${config.rngSeed}, ` +
      `context budget ${config.contextBudget} tokens, ${config.perHistory} generated items per history ` +
      `(validation share ${config.valShare}). Total wall time ${(seconds / 60).toFixed(1)} min.`,
    '',
    ...results.map((r) => `- [${r.title}](${r.experiment}.md) (${r.experiment}.json)`),
    '',
    'Behind every optimized row (`design.run` = `work/runs/<run>`): [artefacts/<run>/](artefacts/README.md) holds the ' +
      "run's best design, its manifest and the seed's and best design's validation scores.",
    '',
    ...results.map(experimentMarkdown),
  ];
  return parts.join('\n');
}
