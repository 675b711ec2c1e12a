import type { Command } from 'commander';
import Table from 'cli-table3';
import { resolve } from 'node:path';
import type { CliIO } from '../io.ts';
import { checkPaths } from '../check-paths.ts';
import * as common from '../common-options.ts';
import { addOptions, optionTable, parseOptions } from '../option-table.ts';
import { openArchive, readRunLock } from '../../archive/index.ts';
import type { ProgramRecord } from '../../archive/schemas.ts';

const pct = (x: number | undefined) => (x === undefined ? '–' : (x * 100).toFixed(1));

/** Lineage as an indented tree: each program under its parent, in creation order. */
export function renderLineage(programs: readonly ProgramRecord[]): string {
  const children = new Map<string | null, ProgramRecord[]>();
  for (const p of programs) {
    const list = children.get(p.parent) ?? [];
    list.push(p);
    children.set(p.parent, list);
  }
  const lines: string[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const p of children.get(parent) ?? []) {
      const mark =
        p.status === 'accepted' ? '✓' : p.status === 'rejected' ? '✗' : p.status === 'invalid' || p.status === 'failed' ? '!' : '·';
      lines.push(`${'  '.repeat(depth)}${mark} ${p.id} ${pct(p.scores?.value)} ${p.proposer ?? ''}`);
      walk(p.id, depth + 1);
    }
  };
  walk(null, 0);
  return lines.join('\n');
}

/** `memsteer archive`'s options, each declared once (see option-table.ts). */
export const ARCHIVE_OPTIONS = optionTable({ json: { ...common.json, description: 'print the programs as JSON' } });

export function register(program: Command, io: CliIO): void {
  const command = program.command('archive <run>').description('List the programs of an optimization run: scores, status, lineage');
  addOptions(command, ARCHIVE_OPTIONS).action(async (run: string, raw: Record<string, unknown>) => {
    const opts = parseOptions(ARCHIVE_OPTIONS, raw);
    checkPaths([{ flag: '<run>', value: run, role: 'run' }]);
    const archive = openArchive(resolve(run));
    const state = archive.loadState();
    const testScores = archive.testScores();
    if (opts.json) {
      io.out(
        `${JSON.stringify(
          {
            manifest: archive.manifest,
            programs: state.programs,
            best: state.best?.id ?? null,
            testScores: Object.fromEntries(testScores),
            warnings: state.warnings,
          },
          null,
          2,
        )}\n`,
      );
      return;
    }
    const t = new Table({
      head: ['program', 'iter', 'parent', 'status', 'score', 'R@10', 'ctx recall', 'proposer', 'rationale / failure'],
      style: { head: [], border: [], compact: true },
    });
    for (const p of state.programs) {
      t.push([
        p.id,
        String(p.iteration),
        p.parent ?? '',
        p.status,
        pct(p.scores?.value),
        pct(p.scores?.metrics['recall@10']),
        pct(p.scores?.metrics.contextRecall),
        p.proposer ?? '',
        (p.failure ? `${p.failure.stage}: ${p.failure.message.split('\n')[0]}` : (p.rationale ?? '')).slice(0, 80),
      ]);
    }
    io.out(
      `run ${archive.manifest.run}: ${state.programs.length} programs, ${state.accepted.length} accepted, ` +
        `best ${state.best?.id ?? '–'} (${pct(state.best?.scores?.value)})` +
        `${state.stopped ? `; stopped: ${state.stopped.reason}` : ''}\n`,
    );
    io.out(`${t.toString()}\n`);
    io.out(`lineage:\n${renderLineage(state.programs)}\n`);
    for (const [id, t] of testScores) io.out(`official test: ${id} ${pct(t.value)} (n ${t.n})\n`);
    for (const w of state.warnings) io.err(`warning: ${w}\n`);
    const writer = readRunLock(run);
    if (writer) io.err(`note: pid ${writer.pid} (${writer.command}) is writing this run; what is listed may change\n`);
  });
}
