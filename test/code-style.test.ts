import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Biome formats at 140 but leaves long strings, comments, template literals, seeds and fixtures alone, so the limit
// needs its own check over every tracked source file.
const MAX_LINE = 140;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = /\.(?:ts|js|mjs|cjs)$/;

/** Tracked source files, relative to the repository root. */
function trackedSources(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out
    .split('\0')
    .filter((f) => SOURCE.test(f) && !f.split('/').includes('node_modules'))
    .filter((f) => existsSync(join(ROOT, f))); // a tracked file deleted in the working tree has no lines to check
}

/** `file:line (length)` for each line longer than `max` characters (string length, not bytes). */
function longLines(file: string, text: string, max: number): string[] {
  return text.split(/\r?\n/).flatMap((line, i) => (line.length > max ? [`${file}:${i + 1} (${line.length})`] : []));
}

describe('code style', () => {
  it('measures characters, not bytes, and names file:line', () => {
    expect(longLines('a.ts', `ok\n${'x'.repeat(141)}\n${'é'.repeat(140)}\r\n${'y'.repeat(140)}`, MAX_LINE)).toEqual(['a.ts:2 (141)']);
  });

  it(`keeps every tracked source line within ${MAX_LINE} characters`, () => {
    const files = trackedSources();
    // An empty listing (git missing, wrong root) would pass vacuously.
    expect(files).toContain('src/errors.ts');
    const long = files.flatMap((f) => longLines(f, readFileSync(join(ROOT, f), 'utf8'), MAX_LINE));
    expect(long, `lines over ${MAX_LINE} characters; break them`).toEqual([]);
  });
});
