/**
 * The artefacts behind the bench's numbers: for every optimization run a table row points at, its best design, its
 * manifest and its seed's and best design's validation scores, under `<out>/artefacts/<run>/`. The runs themselves
 * (`<out>/work/runs/`) also hold traces, diagnoses and an evaluation cache: too big to publish, and reproducible by the
 * same `memsteer bench` command, whereas these few files are what a reader needs to check a row.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { openArchive, sha256 } from '../archive/index.ts';
import { ManifestSchema } from '../archive/schemas.ts';
import { InputError } from '../errors.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import type { CellResult } from './cells.ts';
import { markdownTable, pct } from './markdown.ts';
import type { Workspace } from './workspace.ts';

/** Folder of `<out>` the artefacts are written to. */
export const ARTEFACTS_DIR = 'artefacts';

/** The design a run started from, when the bench knows it: Base-BM25, or another run's best design. */
const SeedOrigin = z.string().min(1);

const ValScoreSchema = z.object({
  /** Program id in the run. */
  id: z.string(),
  /** Validation fitness under the run's objective (what acceptance compared). */
  valFitness: z.number(),
  /** Validation questions scored. */
  n: z.number().int().nonnegative(),
  /** The other validation metrics the host measured (R@k, context recall, accuracy, F1, errors…). */
  metrics: z.record(z.string(), z.number()),
});

/** `artefacts/<run>/run.json`: what the run was asked for and what it found. */
export const RunArtefactSchema = z.object({
  /** The run directory's name (rows' `design.run` is `work/runs/<run>`). */
  run: z.string().min(1),
  /** The bench cells that used this run (one run serves every cell with the same settings, supervision and seed). */
  cells: z.array(z.string()).min(1),
  objective: z.string(),
  /** Where the seed came from: `seeds/base-bm25.ts`, `../<run>/best.ts`, or the sha256 of an unknown seed. */
  seedFrom: SeedOrigin,
  seed: ValScoreSchema,
  best: ValScoreSchema,
  /** The best design's ancestry, seed first: who proposed each step, why, and its validation fitness. */
  lineage: z.array(
    z.object({ id: z.string(), proposer: z.string().nullable(), rationale: z.string().nullable(), valFitness: z.number().nullable() }),
  ),
  accepted: z.number().int().nonnegative(),
  proposals: z.number().int().nonnegative(),
  stopReason: z.string(),
  /** Supervision items the run searched with. */
  train: z.number().int().nonnegative(),
  val: z.number().int().nonnegative(),
});
export type RunArtefact = z.infer<typeof RunArtefactSchema>;

/** `artefacts/index.json`: every run, in the order the bench first used it. */
export const ArtefactIndexSchema = z.object({ runs: z.array(RunArtefactSchema) });
export type ArtefactIndex = z.infer<typeof ArtefactIndexSchema>;

/** A cell as the bench asked for it: the requested name (a reused run keeps the name it was made under). */
export interface UsedCell {
  request: string;
  result: CellResult;
}

/**
 * Writes `<out>/artefacts/` for the runs behind this bench's tables, replacing an earlier one whole (so it never
 * lists a run this bench did not use): per run `best.ts`, `manifest.json` and `run.json`; then `index.json` and a
 * `README.md` table. Returns the files written, absolute.
 */
export function writeArtefacts(ws: Workspace, cells: readonly UsedCell[], baseSource: string): string[] {
  const byRun = new Map<string, { cells: string[]; result: CellResult }>();
  for (const c of cells) {
    const entry = byRun.get(c.result.run) ?? { cells: [], result: c.result };
    if (!entry.cells.includes(c.request)) entry.cells.push(c.request);
    byRun.set(c.result.run, entry);
  }
  /** Best design's content hash → the runs that ended at it (a run that kept its seed shares its seed run's hash). */
  const bestHashes = new Map<string, string[]>();
  const runs: Array<{ artefact: RunArtefact; best: string; manifest: string }> = [];
  for (const [runPath, { cells: names, result }] of byRun) {
    const archive = openArchive(join(ws.out, runPath));
    const run = basename(runPath);
    const seed = archive.get(result.seed.id);
    const best = archive.get(result.best.id);
    bestHashes.set(best.contentHash, [...(bestHashes.get(best.contentHash) ?? []), run]);
    const val = (id: string, fitness: number): z.input<typeof ValScoreSchema> => {
      const s = archive.get(id).scores;
      // The cell's fitness is the search report's; the record must agree, or the artefact would contradict the table.
      if (!s || s.value !== fitness) {
        const file = join(ws.out, runPath, 'programs', `${id}.json`);
        throw new InputError(
          'E_ARCHIVE_CORRUPT',
          `${file}: validation fitness ${s?.value ?? 'missing'}, but the run reported ${fitness}; rerun the bench with --fresh`,
          { file },
        );
      }
      return { id, valFitness: s.value, n: s.n, metrics: s.metrics };
    };
    const artefact = RunArtefactSchema.parse({
      run,
      cells: names,
      objective: best.scores?.objective ?? String(archive.manifest.config.objective),
      seedFrom: seed.contentHash === sha256(baseSource) ? 'seeds/base-bm25.ts' : seed.contentHash,
      seed: val(seed.id, result.seed.valFitness),
      best: val(best.id, result.best.valFitness),
      lineage: archive.lineage(best.id).map((p) => ({
        id: p.id,
        proposer: p.proposer ?? null,
        rationale: p.rationale ?? null,
        valFitness: p.scores?.value ?? null,
      })),
      accepted: result.accepted,
      proposals: result.proposals,
      stopReason: result.stopReason,
      train: result.train,
      val: result.val,
    });
    runs.push({
      artefact,
      best: archive.source(best.id),
      manifest: `${JSON.stringify(ManifestSchema.parse(archive.manifest), null, 2)}\n`,
    });
  }
  // A seed that is another run's best (transfer) is named by that run, once every run's best is known.
  for (const r of runs) {
    // Never the run itself: a continued run that found nothing better ends at its seed, the same hash.
    const from = bestHashes.get(r.artefact.seedFrom)?.find((run) => run !== r.artefact.run);
    if (from) r.artefact.seedFrom = `../${from}/best.ts`;
  }

  const dir = join(ws.out, ARTEFACTS_DIR);
  const staging = join(ws.out, `.${ARTEFACTS_DIR}.${process.pid}.tmp`);
  rmSync(staging, { recursive: true, force: true });
  const files: string[] = [];
  const write = (rel: string, text: string) => {
    writeFileAtomic(join(staging, rel), text);
    files.push(join(dir, rel));
  };
  for (const r of runs) {
    write(join(r.artefact.run, 'best.ts'), r.best);
    write(join(r.artefact.run, 'manifest.json'), r.manifest);
    write(join(r.artefact.run, 'run.json'), `${JSON.stringify(RunArtefactSchema.parse(r.artefact), null, 2)}\n`);
  }
  const index = ArtefactIndexSchema.parse({ runs: runs.map((r) => r.artefact) });
  write('index.json', `${JSON.stringify(index, null, 2)}\n`);
  write('README.md', artefactsMarkdown(index));
  // Swap whole folders so a reader never sees a mix of two benches' artefacts.
  if (existsSync(dir)) rmSync(dir, { recursive: true });
  renameSync(staging, dir);
  return files;
}

/** The artefacts folder's README: one row per run. */
export function artefactsMarkdown(index: ArtefactIndex): string {
  const table = markdownTable({
    title: 'runs',
    columns: ['run', 'used by', 'seed', 'seed val', 'best', 'best val', 'accepted / proposals', 'train / val items'],
    rows: index.runs.map((r) => [
      `[${r.run}](${r.run}/)`,
      r.cells.join(', '),
      r.seedFrom.startsWith('../') ? r.seedFrom.slice(3, -'/best.ts'.length) : r.seedFrom,
      pct(r.seed.valFitness),
      r.best.id,
      pct(r.best.valFitness),
      `${r.accepted} / ${r.proposals}`,
      `${r.train} / ${r.val}`,
    ]),
  });
  return [
    '# Artefacts of the optimization runs',
    '',
    "One folder per optimization run behind the tables (a row's `design.run` is `work/runs/<run>`): `best.ts` (the design " +
      "the row tests), `manifest.json` (the run's configuration, versions and git commit), `run.json` (seed and best " +
      'validation scores, the best design\'s lineage). "seed val" and "best val" are the search objective on the run\'s own ' +
      'validation items, in percent. Traces, diagnoses, supervision files and the evaluation cache stay under `work/`: ' +
      'they are reproduced by the same `memsteer bench` command. `memsteer eval --design <run>/best.ts …` runs a design as it is ' +
      '(memsteer resolves its `../sandbox/contract.ts` type import wherever the file lies).',
    '',
    table,
    '',
  ].join('\n');
}
