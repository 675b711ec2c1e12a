import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import Table from 'cli-table3';
import { join, resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { writeReport } from '../../report/index.ts';
import { z } from 'zod';
import { ConfigError } from '../../errors.ts';
import { computeFidelity, fidelityHistorySource, type FidelityProgress } from '../../experiments/fidelity.ts';
import type { FidelityReport } from '../../experiments/fidelity-schema.ts';
import {
  contradictedRows,
  decisionMoveRows,
  MOVE_SHARES,
  moveShareRows,
  decisionsSummary,
  formatCeiling,
  formatCorrelation,
  formatRegret,
  formatSplitHalf,
  formatTauInterval,
} from '../../report/fidelity-html.ts';
import { checkPaths, tablePathChecks } from '../check-paths.ts';
import * as common from '../common-options.ts';
import { loadCommandHistories } from '../history-warnings.ts';
import { addOptions, flagName, optionTable, parseOptions, type OptionsInput } from '../option-table.ts';

/** `memsteer report`'s options, each declared once (see option-table.ts). */
export const REPORT_OPTIONS = optionTable({
  out: {
    flags: '--out <file>',
    description: 'where to write the page (default <run>/report.html)',
    schema: z.string().min(1).optional(),
  },
  fidelity: {
    flags: '--fidelity',
    description: 'evaluate every scored candidate on official questions and compare the rankings (writes <run>/fidelity.json)',
    schema: z.boolean().default(false),
  },
  history: {
    ...common.optionalHistory,
    description: "with --fidelity: the history source of the official questions (default: the run's)",
  },
  questions: {
    flags: '--questions <official|file>',
    description: "with --fidelity: 'official' (the histories' own QA) or a QA file to rank the candidates by instead",
    schema: z.string().min(1).default('official'),
    path: 'file',
    notPaths: ['official'],
  },
  categories: {
    flags: '--categories <list>',
    description: "with --fidelity: official categories, comma-separated (default: the run's test categories)",
    schema: z.array(z.string()).optional(),
  },
  excludeDev: {
    flags: '--exclude-dev',
    description: 'with --fidelity: leave out the development histories (src/experiments/dev-subsets.ts)',
    schema: z.boolean().default(false),
  },
  jobs: { ...common.jobs, description: 'with --fidelity: sandbox processes (default: one per core)' },
  strict: common.strict,
  json: { ...common.json, description: 'print the report path (and with --fidelity the fidelity report) as JSON' },
});

/** The flags that only mean something with `--fidelity`. */
const FIDELITY_ONLY = ['history', 'categories', 'excludeDev', 'jobs', 'strict'] as const;

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '–' : (x * 100).toFixed(1));

/** The fidelity report as terminal text: the agreement per official metric, then every candidate. */
export function renderFidelity(f: FidelityReport): string {
  const lines = [
    `fidelity of ${f.run}: ${f.distinct} distinct candidates (${f.candidates.length} scored programs) on ${f.questionCount} ` +
      `${f.questions === 'official' ? 'official' : f.questions} questions` +
      `${f.categories.length ? ` (categories ${f.categories.join(',')})` : ''}, ` +
      `${f.histories.length} ${f.histories.length === 1 ? 'history' : 'histories'}` +
      `${f.devHistories.length ? ` (development: ${f.devHistories.join(', ')})` : ''}`,
  ];
  const summary = new Table({
    head: ['official metric', 'n', 'Kendall τ-b', 'Spearman ρ', 'regret', 'validation picks', 'official best'],
    style: { head: [], border: [], compact: true },
  });
  for (const [label, a] of [
    ['context recall', f.contextRecall],
    ['R@10', f.recallAt10],
  ] as const) {
    const r = a.regret;
    summary.push([
      label,
      String(a.n),
      formatCorrelation(a.kendallTauB),
      formatCorrelation(a.spearman),
      formatRegret(a),
      r ? `${r.chosen} (${pct(r.chosenOfficial)})${r.tiedAtTop > 1 ? ` [${r.tiedAtTop} tied]` : ''}` : '–',
      r ? `${r.bestOfficial} (${pct(r.bestOfficialScore)})` : '–',
    ]);
  }
  lines.push(summary.toString());
  // How far the rankings themselves are reproducible: a val–official τ-b above the official split-half one is not to be expected.
  if (f.reliability)
    lines.push(
      'split-half reliability of the context-recall ranking (τ-b between two random halves of the questions, mean [p10, p90]): ' +
        `official ${formatSplitHalf(f.reliability.official)}; validation ${formatSplitHalf(f.reliability.validation)}`,
    );
  if (f.tauInterval) lines.push(`validation–official τ-b by context recall, 95% bootstrap interval: ${formatTauInterval(f.tauInterval)}`);
  if (f.officialCeiling)
    lines.push(
      'most any validation set could reach against these official questions (τ-b between their ranking and their ' +
        `bootstrap resamples', mean [p10, p90]): ${formatCeiling(f.officialCeiling)}`,
    );
  if (f.byTemplate?.length) {
    const g = new Table({
      head: ['validation template', 'items', 'Kendall τ-b', 'Spearman ρ'],
      style: { head: [], border: [], compact: true },
    });
    for (const a of f.byTemplate) g.push([a.group, String(a.items), formatCorrelation(a.kendallTauB), formatCorrelation(a.spearman)]);
    lines.push("each validation template's own ranking of the candidates against the official context recall:", g.toString());
  }
  if (f.decisions?.decisions.length) {
    lines.push(`${decisionsSummary(f.decisions)}:`);
    const table = (part: { head: string[]; rows: string[][] }) => {
      const d = new Table({ head: part.head, style: { head: [], border: [], compact: true } });
      for (const r of part.rows) d.push(r);
      return d.toString();
    };
    for (const part of [decisionMoveRows(f.decisions), contradictedRows(f.decisions)]) if (part.rows.length) lines.push(table(part));
    for (const which of ['validation', 'official'] as const) {
      const shares = moveShareRows(f.decisions, which);
      if (shares.rows.length) lines.push(`${MOVE_SHARES[which].note}:`, table(shares));
    }
  }
  const t = new Table({
    head: ['program', 'iter', 'status', 'val fitness', 'official ctx recall', 'official R@10', ''],
    style: { head: [], border: [], compact: true },
  });
  for (const c of f.candidates) {
    const marks = [
      c.id === f.contextRecall.regret?.chosen ? 'validation pick' : '',
      c.id === f.contextRecall.regret?.bestOfficial ? 'official best' : '',
      c.id === f.runBest ? 'run best' : '',
    ].filter(Boolean);
    const note = c.sameAs ? `= ${c.sameAs}` : (c.error ?? marks.join(', '));
    t.push([c.id, String(c.iteration), c.status, pct(c.valFitness), pct(c.official?.contextRecall), pct(c.official?.recallAt10), note]);
  }
  lines.push(t.toString());
  if (f.runBestRegret !== null && f.runBest !== f.contextRecall.regret?.chosen)
    lines.push(`the run's own best (${f.runBest}) has official context-recall regret ${(f.runBestRegret * 100).toFixed(1)} pts`);
  return `${lines.join('\n')}\n`;
}

/** `memsteer report`: the HTML page, after computing fidelity when asked. Returns the fidelity report when computed. */
export async function runReportCommand(run: string, input: OptionsInput<typeof REPORT_OPTIONS>, io: CliIO): Promise<FidelityReport | null> {
  const opts = parseOptions(REPORT_OPTIONS, input);
  const out = opts.out ?? join(resolve(run), 'report.html');
  if (!opts.fidelity) {
    const defaults = parseOptions(REPORT_OPTIONS, {});
    const stray = [...FIDELITY_ONLY, 'questions' as const].find((k) => JSON.stringify(opts[k]) !== JSON.stringify(defaults[k]));
    if (stray) throw new ConfigError('E_BAD_FLAG', `${flagName(REPORT_OPTIONS[stray])} needs --fidelity`);
  }
  checkPaths([
    { flag: '<run>', value: run, role: 'run' },
    { flag: '--out', value: out, role: 'out-file' },
    ...tablePathChecks(REPORT_OPTIONS, opts),
  ]);
  let fidelity: FidelityReport | null = null;
  if (opts.fidelity) {
    // Loaded here so their warnings (or the --strict refusal) come before any evaluation.
    const history = fidelityHistorySource(resolve(run), opts.history);
    const histories = await loadCommandHistories(history, io, {
      strict: opts.strict,
      ...(opts.questions !== 'official' ? { questions: opts.questions } : {}),
    });
    const bar = io.interactive
      ? new cliProgress.SingleBar(
          {
            format: 'fidelity {bar} candidate {candidate}/{candidates} {program} | {value}/{total} questions',
            stream: { write: (s: string) => io.err(s), isTTY: true } as unknown as NodeJS.WritableStream,
            hideCursor: true,
            clearOnComplete: true,
          },
          cliProgress.Presets.shades_classic,
        )
      : null;
    let started = '';
    const onProgress = (p: FidelityProgress) => {
      if (!bar) {
        if (p.done === 0 && !opts.json) io.err(`fidelity: candidate ${p.candidate}/${p.candidates} ${p.program} (${p.total} questions)\n`);
        return;
      }
      if (started !== p.program) {
        started = p.program;
        bar.start(p.total, p.done, { candidate: p.candidate, candidates: p.candidates, program: p.program });
      } else bar.update(p.done);
    };
    try {
      fidelity = await computeFidelity(run, {
        history,
        histories,
        questions: opts.questions === 'official' ? 'official' : resolve(opts.questions),
        ...(opts.categories ? { categories: opts.categories } : {}),
        excludeDev: opts.excludeDev,
        ...(opts.jobs ? { jobs: opts.jobs } : {}),
        onProgress,
      });
    } finally {
      bar?.stop();
    }
  }
  const { path, bytes } = await writeReport(run, out);
  if (opts.json) {
    io.out(`${JSON.stringify({ report: { path, bytes }, fidelity }, null, 2)}\n`);
    return fidelity;
  }
  if (fidelity) io.out(renderFidelity(fidelity));
  io.out(`report: ${path} (${(bytes / 1024).toFixed(0)} KiB); open it in a browser, no network needed\n`);
  return fidelity;
}

/** `memsteer report <run> [--out report.html] [--fidelity …]`: the run as one self-contained HTML page. */
export function register(program: Command, io: CliIO): void {
  const command = program
    .command('report <run>')
    .description(
      'Write an optimization run as one self-contained HTML page (fitness, lineage, failures, diffs, scores, cost); ' +
        '--fidelity also ranks every candidate on official questions against its validation fitness',
    );
  addOptions(command, REPORT_OPTIONS).action(async (run: string, raw: Record<string, unknown>) => {
    await runReportCommand(run, raw, io);
  });
}
