import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { transform } from 'esbuild';
import { z } from 'zod';
import { collectVersions, openArchive, sha256, type ProgramRecord, type Scores } from '../archive/index.ts';
import { compileDesign } from '../design/compile.ts';
import { InputError, MemsteerError, describeZodIssues } from '../errors.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import { EXPORT_FORMAT, ExportManifestSchema, type ExportManifest, type ExportScores } from './design-manifest.ts';
import { renderExportReadme } from './readme.ts';
import { rewriteContractImports } from './rewrite-contract-import.ts';
import { readTestScores } from './test-scores.ts';

/** What export needs from the run's stored configuration (the optimizer's config, read loosely). */
const RunConfigSchema = z.object({
  history: z.string(),
  supervision: z.string().optional(),
  contextBudget: z.number().int().positive().default(1000),
  objective: z.string().optional(),
});

export interface ExportOptions {
  /** The run directory (the one holding manifest.json). */
  run: string;
  /** Program id; default the run's best accepted program. */
  program?: string;
  /** Directory to write design.ts, design.json and README.md into (created when missing). */
  out: string;
  /** Clock for `exportedAt` (tests pass a fixed one). */
  now?: () => Date;
}

export interface ExportResult {
  dir: string;
  files: { design: string; manifest: string; readme: string };
  manifest: ExportManifest;
}

/**
 * Exports one program of a run as a standalone module for apps: `design.ts` (its contract import pointed at
 * `memsteer/contract`), `design.json` (provenance and scores, zod-validated) and `README.md`. Refuses a source
 * whose rewritten form does not compile to the same script as the archived one, so the export is the program
 * that was evaluated.
 */
export async function exportDesign(options: ExportOptions): Promise<ExportResult> {
  const archive = openArchive(options.run);
  const state = archive.loadState();
  const id = options.program ?? state.best?.id;
  if (!id) {
    throw new InputError(
      'E_EXPORT_NO_PROGRAM',
      `${archive.dir}: the run has no accepted program yet; pass --program <id> (\`memsteer archive ${options.run}\` lists them)`,
    );
  }
  const record = archive.get(id);
  const archived = archive.source(id);
  const config = RunConfigSchema.safeParse(archive.manifest.config);
  if (!config.success) {
    throw new InputError('E_EXPORT_RUN_CONFIG', `${join(archive.dir, 'manifest.json')}: config ${describeZodIssues(config.error.issues)}`, {
      file: join(archive.dir, 'manifest.json'),
    });
  }

  const { source } = rewriteContractImports(archived, `${id}.ts`);
  const compiled = await compileDesign(source, { fileName: 'design.ts' });
  if (!compiled.ok) {
    const d = compiled.diagnostics[0];
    throw new InputError(
      'E_EXPORT_COMPILE',
      `${archive.paths(id).source}:${d?.line ?? 1}: ${d?.message ?? 'does not compile'}; export a program that compiles`,
      { file: archive.paths(id).source },
    );
  }
  // Type-erased, both sources must be the same JavaScript: the export runs exactly the program that was evaluated.
  const [jsBefore, jsAfter] = await Promise.all([erasedJs(archived), erasedJs(source)]);
  if (jsBefore !== jsAfter) {
    throw new MemsteerError(
      'E_EXPORT_REWRITE',
      `rewriting the contract import of ${id} changed the compiled design; report this with the file ${archive.paths(id).source}`,
    );
  }

  const now = options.now ?? (() => new Date());
  const objective = record.scores?.objective ?? config.data.objective ?? 'unknown';
  const test = readTestScores(archive, id);
  const manifest = ExportManifestSchema.parse({
    format: EXPORT_FORMAT,
    exportedAt: now().toISOString(),
    memsteer: { exported: collectVersions().memsteer, run: archive.manifest.versions.memsteer },
    run: {
      name: archive.manifest.run,
      dir: archive.dir,
      createdAt: archive.manifest.createdAt,
      gitCommit: archive.manifest.gitCommit,
      models: archive.manifest.models,
    },
    program: {
      id,
      kind: record.kind,
      iteration: record.iteration,
      status: record.status,
      parent: record.parent,
      ...(record.proposer !== undefined ? { proposer: record.proposer } : {}),
      ...(record.rationale !== undefined ? { rationale: record.rationale } : {}),
      best: state.best?.id === id,
    },
    lineage: archive.lineage(id).map(lineageEntry),
    objective,
    scores: {
      val: record.scores ? exportScores(record.scores) : null,
      test: test ? { value: test.value, n: test.n, metrics: test.metrics } : null,
    },
    history: { source: config.data.history, supervision: config.data.supervision ?? null },
    budget: { tokens: config.data.contextBudget },
    source: { file: 'design.ts', sha256: sha256(source), archivedSha256: sha256(archived), compiledSha256: sha256(jsAfter) },
  } satisfies ExportManifest);

  const dir = resolve(options.out);
  mkdirSync(dir, { recursive: true });
  const files = { design: join(dir, 'design.ts'), manifest: join(dir, 'design.json'), readme: join(dir, 'README.md') };
  writeFileAtomic(files.design, source);
  writeFileAtomic(files.readme, renderExportReadme(manifest));
  // Last: a design.json that matches design.ts marks a complete export.
  writeFileAtomic(files.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
  return { dir, files, manifest };
}

function exportScores(s: Scores): ExportScores {
  return { value: s.value, n: s.n, metrics: s.metrics };
}

function lineageEntry(p: ProgramRecord): ExportManifest['lineage'][number] {
  return {
    id: p.id,
    kind: p.kind,
    iteration: p.iteration,
    status: p.status,
    ...(p.proposer !== undefined ? { proposer: p.proposer } : {}),
    ...(p.rationale !== undefined ? { rationale: p.rationale } : {}),
    score: p.scores?.value ?? null,
  };
}

/** The module with its types erased (no file names involved, unlike the sandbox script, so it compares across sources). */
async function erasedJs(source: string): Promise<string> {
  return (await transform(source, { loader: 'ts', format: 'esm', target: 'es2022', legalComments: 'none', logLevel: 'silent' })).code;
}
