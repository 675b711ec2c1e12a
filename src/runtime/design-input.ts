import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError, describeZodIssues } from '../errors.ts';
import { ExportManifestSchema, type ExportManifest } from '../export/design-manifest.ts';

/** A design as `createMemory` was given it. */
export interface DesignInput {
  source: string;
  /** Name for diagnostics (the file's name, or `design.ts` for source text). */
  fileName: string;
  /** Absolute path when given a file. */
  path: string | null;
  /** The `design.json` beside an exported design, when there is one. */
  exported: ExportManifest | null;
}

/** Source text is told from a path by what a path cannot hold: a line break, or the default export a design needs. */
function looksLikeSource(design: string): boolean {
  return design.includes('\n') || /\bexport\s+default\b/.test(design);
}

/** Reads the design (a path to a .ts file, or its source) and the export manifest beside a file. */
export function readDesignInput(design: string): DesignInput {
  if (looksLikeSource(design)) return { source: design, fileName: 'design.ts', path: null, exported: null };
  const path = resolve(design);
  if (!existsSync(path)) {
    throw new InputError(
      'E_NO_FILE',
      `${design}: design file not found; pass the path of an exported design.ts (memsteer export) or its source text`,
      { file: design },
    );
  }
  const source = readFileSync(path, 'utf8');
  const manifestPath = join(dirname(path), 'design.json');
  let exported: ExportManifest | null = null;
  if (existsSync(manifestPath)) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(manifestPath, 'utf8'));
    } catch (err) {
      throw new InputError(
        'E_BAD_EXPORT',
        `${manifestPath}: not valid JSON (${(err as Error).message}); re-export the design or delete the file`,
        { file: manifestPath },
      );
    }
    const parsed = ExportManifestSchema.safeParse(json);
    if (!parsed.success) {
      throw new InputError(
        'E_BAD_EXPORT',
        `${manifestPath}: ${describeZodIssues(parsed.error.issues)}; re-export the design (memsteer export) or delete the file`,
        { file: manifestPath },
      );
    }
    // A design.json about another file in the same folder says nothing about this one.
    if (parsed.data.source.file === basename(path)) exported = parsed.data;
  }
  return { source, fileName: basename(path), path, exported };
}
