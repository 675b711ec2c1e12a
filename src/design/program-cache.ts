import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-write.ts';
import { CONTRACT_SOURCE } from './type-check.ts';

/**
 * Bumped when compile output changes shape; together with the contract's hash it keys the disk cache,
 * so a changed contract or compiler never serves a stale program.
 */
const COMPILER_VERSION = 1;
const COMPILER_KEY = `${COMPILER_VERSION}:${createHash('sha256').update(CONTRACT_SOURCE).digest('hex').slice(0, 16)}`;

const CachedProgramSchema = z.object({ compilerKey: z.string(), hash: z.string(), js: z.string() });

/** The compiled script for `hash` from `<cacheDir>/<hash>.json`, or null when absent, stale or unreadable. */
export async function readCachedProgram(cacheDir: string, hash: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(join(cacheDir, `${hash}.json`), 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = CachedProgramSchema.safeParse(JSON.parse(text));
    if (!parsed.success || parsed.data.compilerKey !== COMPILER_KEY || parsed.data.hash !== hash) return null;
    return parsed.data.js;
  } catch {
    return null; // a corrupt cache entry is recompiled, not fatal
  }
}

export async function writeCachedProgram(cacheDir: string, hash: string, js: string): Promise<void> {
  const entry = CachedProgramSchema.parse({ compilerKey: COMPILER_KEY, hash, js });
  writeFileAtomic(join(cacheDir, `${hash}.json`), JSON.stringify(entry));
}
