import type { Command } from 'commander';
import Table from 'cli-table3';
import type { CliIO } from '../io.ts';
import { checkPaths } from '../check-paths.ts';
import * as common from '../common-options.ts';
import { loadCommandHistories } from '../history-warnings.ts';
import { addOptions, optionTable, parseOptions } from '../option-table.ts';
import { summarizeHistories, HistoriesSummarySchema, type HistoriesSummary } from '../../history/summary.ts';

const fmt = (n: number) => n.toLocaleString('en-US');
const day = (iso: string | undefined) => (iso ? iso.slice(0, 10) : '–');

function table(head: string[]): Table.Table {
  // No colours: the output goes to files and tests as often as to a terminal.
  return new Table({ head, style: { head: [], border: [], compact: true } });
}

/** Renders a summary as the tables `memsteer inspect` prints. */
export function renderSummary(source: string, s: HistoriesSummary): string {
  const kinds = Object.keys(s.total.recordsByKind);
  const cats = Object.keys(s.total.qa.byCategory);
  const out: string[] = [`${source}: ${fmt(s.total.histories)} ${s.total.histories === 1 ? 'history' : 'histories'}`];

  const main = table([
    'history',
    'records',
    ...kinds,
    'threads',
    'first',
    'last',
    'tokens',
    'tok/rec',
    'QA',
    'evidence refs',
    'unresolved',
  ]);
  const row = (
    id: string,
    x: Pick<HistoriesSummary['total'], 'records' | 'recordsByKind' | 'threads' | 'time' | 'tokens' | 'qa'> & {
      evidence: { refs: number; unresolved: number };
    },
  ) => [
    id,
    fmt(x.records),
    ...kinds.map((k) => fmt(x.recordsByKind[k] ?? 0)),
    fmt(x.threads),
    day(x.time.first),
    day(x.time.last),
    fmt(x.tokens.total),
    x.tokens.meanPerRecord.toFixed(1),
    fmt(x.qa.total),
    fmt(x.evidence.refs),
    fmt(x.evidence.unresolved),
  ];
  for (const h of s.histories) main.push(row(h.id, h));
  if (s.histories.length > 1) main.push(row('total', s.total));
  out.push(main.toString());

  if (cats.length) {
    const qa = table(['QA by category', ...cats, 'total']);
    for (const h of s.histories) qa.push([h.id, ...cats.map((c) => fmt(h.qa.byCategory[c] ?? 0)), fmt(h.qa.total)]);
    if (s.histories.length > 1) qa.push(['total', ...cats.map((c) => fmt(s.total.qa.byCategory[c] ?? 0)), fmt(s.total.qa.total)]);
    out.push(qa.toString());
    const e = s.total.evidence;
    out.push(
      `evidence: ${fmt(e.refs)} references, ${fmt(e.resolved)} resolved ` +
        `(${fmt(e.links)} record links; ${fmt(e.approximate)} through a fallback match), ${fmt(e.unresolved)} unresolved`,
    );
  } else {
    out.push('no official QA in this source');
  }
  if (s.total.evidence.unresolvedList.length) {
    const un = table(['history', 'question', 'reference', 'why it does not resolve']);
    for (const u of s.total.evidence.unresolvedList) un.push([u.history, u.qa, u.ref, u.reason]);
    out.push('unresolved evidence:', un.toString());
  }
  if (s.total.warnings.length) {
    const w = table(['history', 'warning', 'count', 'what was lost']);
    for (const x of s.total.warnings) w.push([x.history, x.code, fmt(x.count), x.message]);
    out.push('warnings (degraded input):', w.toString());
  }
  return `${out.join('\n')}\n`;
}

/** `memsteer inspect`'s options, each declared once (see option-table.ts). */
export const INSPECT_OPTIONS = optionTable({ strict: common.strict, json: { ...common.json, description: 'print the summary as JSON' } });

/** `memsteer inspect <source> [--json]`: what a history source holds, per history and in total. */
export function register(program: Command, io: CliIO): void {
  const command = program
    .command('inspect')
    .description('Load a history source and show its records, threads, time span, tokens, QA and evidence resolution')
    .argument(
      '<source>',
      'history source: <format>:<path>[#<history>[,…]] (format: jsonl, locomo, rhelm, longmemeval, memorybank; detected when left out)',
    );
  addOptions(command, INSPECT_OPTIONS).action(async (source: string, raw: Record<string, unknown>) => {
    const opts = parseOptions(INSPECT_OPTIONS, raw);
    checkPaths([{ flag: '<source>', value: source, role: 'source' }]);
    const histories = await loadCommandHistories(source, io, { strict: opts.strict });
    const summary = HistoriesSummarySchema.parse(summarizeHistories(histories));
    io.out(opts.json ? `${JSON.stringify(summary, null, 2)}\n` : renderSummary(source, summary));
  });
}
