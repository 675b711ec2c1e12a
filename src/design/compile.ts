import { createHash } from 'node:crypto';
import { transform } from 'esbuild';
import type { CompileDiagnostic, CompileOptions, CompileResult, CompiledProgram } from '../isolate/sandbox-api.ts';
import { checkDesignRules } from './design-rules.ts';
import { typeCheckDesign } from './type-check.ts';
import { readCachedProgram, writeCachedProgram } from './program-cache.ts';

/** The global the compiled script assigns the design module to; the prelude reads `.default` from it. */
export const DESIGN_GLOBAL = '__memsteerDesign';

const memoryCache = new Map<string, CompileResult>();
const MEMORY_CACHE_MAX = 2000;

/** sha256 (hex) of a design's source: the program's identity everywhere (archive, traces, cache). */
export function programHash(source: string): string {
  return createHash('sha256').update(source).digest('hex');
}

/**
 * Type-checks a design against sandbox/contract.ts and compiles it to a script for the isolate.
 * Imports other than types from the contract, `require`, dynamic `import()` and re-exports are rejected
 * with located diagnostics; type errors come back as diagnostics too, never as a throw.
 * Results are cached by the sha256 of the source (in memory, and under `options.cacheDir` when given).
 */
export async function compileDesign(source: string, options: CompileOptions = {}): Promise<CompileResult> {
  const started = performance.now();
  const fileName = options.fileName ?? 'design.ts';
  const hash = programHash(source);
  const hit = memoryCache.get(hash);
  if (hit) {
    const ms = performance.now() - started;
    return hit.ok ? { ...hit, program: { ...hit.program, fileName }, ms, cached: true } : { ...hit, ms };
  }
  if (options.cacheDir) {
    const js = await readCachedProgram(options.cacheDir, hash);
    if (js !== null) {
      const program: CompiledProgram = { hash, js, source, fileName };
      remember(hash, { ok: true, program, ms: 0, cached: false });
      return { ok: true, program, ms: performance.now() - started, cached: true };
    }
  }

  const diagnostics = checkDesignRules(source, fileName);
  if (diagnostics.length === 0) diagnostics.push(...typeCheckDesign(source));
  if (diagnostics.length > 0) {
    const failed: CompileResult = { ok: false, diagnostics, ms: performance.now() - started };
    remember(hash, failed);
    return failed;
  }

  let js: string;
  try {
    js = (
      await transform(source, {
        loader: 'ts',
        format: 'iife',
        globalName: DESIGN_GLOBAL,
        target: 'es2022',
        sourcefile: fileName,
        legalComments: 'none',
        logLevel: 'silent',
      })
    ).code;
  } catch (error) {
    const failed: CompileResult = { ok: false, diagnostics: esbuildDiagnostics(error), ms: performance.now() - started };
    remember(hash, failed);
    return failed;
  }
  const program: CompiledProgram = { hash, js, source, fileName };
  if (options.cacheDir) await writeCachedProgram(options.cacheDir, hash, js);
  const ms = performance.now() - started;
  remember(hash, { ok: true, program, ms, cached: false });
  return { ok: true, program, ms, cached: false };
}

/** Forgets the in-memory compile cache (tests, or after the contract changed). */
export function clearCompileCache(): void {
  memoryCache.clear();
}

function remember(hash: string, result: CompileResult): void {
  if (memoryCache.size >= MEMORY_CACHE_MAX) {
    const oldest = memoryCache.keys().next().value;
    if (oldest !== undefined) memoryCache.delete(oldest);
  }
  memoryCache.set(hash, result);
}

function esbuildDiagnostics(error: unknown): CompileDiagnostic[] {
  const errors = (error as { errors?: Array<{ text: string; location?: { line: number; column: number } | null }> }).errors;
  if (!Array.isArray(errors) || errors.length === 0) {
    return [{ line: 1, column: 1, message: error instanceof Error ? error.message : String(error), code: 'esbuild' }];
  }
  return errors.map((e) => ({
    line: e.location?.line ?? 1,
    column: (e.location?.column ?? 0) + 1,
    message: e.text,
    code: 'esbuild',
  }));
}
