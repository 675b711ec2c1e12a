/**
 * `memsteer bench`: runs the chosen experiments on the chosen datasets, offline, and writes
 * `<out>/<experiment>.json` + `<out>/<experiment>.md` per experiment, the artefacts of every optimization run behind
 * them under `<out>/artefacts/` (see artefacts.ts), and a combined `<out>/README.md`.
 */
import { join, resolve } from 'node:path';
import { acquireRunLock } from '../archive/index.ts';
import { ARTEFACTS_DIR, writeArtefacts } from './artefacts.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import { BenchConfigSchema, type BenchConfig, type BenchConfigInput } from './bench-config.ts';
import { BenchContext, type BenchEvent } from './context.ts';
import { runFeedbackExperiment } from './tables/feedback.ts';
import { runMainExperiment } from './tables/main.ts';
import { runSupervisionExperiment } from './tables/supervision.ts';
import { runTransferExperiment } from './tables/transfer.ts';
import { experimentMarkdown, readmeMarkdown } from './markdown.ts';
import { ExperimentResultSchema, type BenchDataset, type ExperimentName, type ExperimentResult } from './schemas.ts';
import type { History } from '../history/record.ts';
import { openWorkspace } from './workspace.ts';

const RUNNERS: Record<ExperimentName, (ctx: BenchContext) => Promise<ExperimentResult>> = {
  main: runMainExperiment,
  transfer: runTransferExperiment,
  supervision: runSupervisionExperiment,
  feedback: runFeedbackExperiment,
};

export interface BenchReport {
  config: BenchConfig;
  results: ExperimentResult[];
  /** Files written, absolute (of the artefacts, only their `index.json` and `README.md`). */
  files: string[];
  /** Every artefact file written under `<out>/artefacts/`, absolute. */
  artefacts: string[];
  seconds: number;
}

/**
 * Runs the bench. Each experiment's files are written as soon as it finishes; the README at the end.
 * `histories`: data sets' histories the caller has loaded already (by dataset id), so they are not read again.
 */
export async function runBench(
  input: BenchConfigInput,
  onEvent?: (e: BenchEvent) => void,
  histories?: ReadonlyMap<BenchDataset, readonly History[]>,
): Promise<BenchReport> {
  const started = performance.now();
  const config = BenchConfigSchema.parse(input);
  // One bench per output folder: two would share (and `--fresh` would delete) each other's runs and cache.
  const lock = acquireRunLock(resolve(config.out), { command: 'bench' });
  try {
    return await benchIn(config, started, onEvent, histories);
  } finally {
    lock.release();
  }
}

async function benchIn(
  config: BenchConfig,
  started: number,
  onEvent?: (e: BenchEvent) => void,
  histories?: ReadonlyMap<BenchDataset, readonly History[]>,
): Promise<BenchReport> {
  const ws = openWorkspace(config.out, { fresh: config.fresh });
  const ctx = new BenchContext(config, ws, onEvent, histories);
  const results: ExperimentResult[] = [];
  const files: string[] = [];
  let artefacts: string[] = [];
  try {
    // Fixed order whatever the flag's order: main generates (and caches) what the later experiments reuse.
    for (const name of (Object.keys(RUNNERS) as ExperimentName[]).filter((e) => config.experiments.includes(e))) {
      ctx.emit({ type: 'experiment', experiment: name, phase: 'start' });
      const result = ExperimentResultSchema.parse(await RUNNERS[name](ctx));
      results.push(result);
      const json = join(ws.out, `${name}.json`);
      const md = join(ws.out, `${name}.md`);
      writeFileAtomic(json, `${JSON.stringify(result, null, 2)}\n`);
      writeFileAtomic(md, experimentMarkdown(result));
      files.push(json, md);
      ctx.emit({ type: 'experiment', experiment: name, phase: 'done', seconds: result.seconds });
    }
    artefacts = writeArtefacts(ws, ctx.usedCells(), ctx.baseSource);
    const top = join(ws.out, ARTEFACTS_DIR);
    files.push(...artefacts.filter((f) => f === join(top, 'index.json') || f === join(top, 'README.md')));
  } finally {
    await ctx.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const readme = join(ws.out, 'README.md');
  writeFileAtomic(readme, readmeMarkdown(results, config, seconds));
  files.push(readme);
  return { config, results, files, artefacts, seconds };
}
