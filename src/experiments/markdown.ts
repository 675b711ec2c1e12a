/** The table writer: results as Markdown (the JSON files hold the same tables plus the typed rows). */
import type { BenchConfig } from './bench-config.ts';
import { devLabel, type DevBenchmark } from './dev-subsets.ts';
import type { ExperimentResult, Metrics, PartScores, Scores, Table } from './schemas.ts';

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
      'Every table reports them (dev) apart from the held-out histories.',
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
