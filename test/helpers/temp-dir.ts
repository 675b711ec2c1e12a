import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const dirs: string[] = [];

// Registered once, when the test file first imports this module, so that tempDir also works inside tests and
// hooks, where vitest would not attach a new afterAll to the file. Each test file gets its own copy of this module
// (vitest isolates files), so the hook runs when that file finishes; being registered first, it runs after the
// file's own afterAll hooks have stopped whatever still writes into the directories.
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh directory under the OS temp dir, removed with everything in it when the current test file finishes. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
