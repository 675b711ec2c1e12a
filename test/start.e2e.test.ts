import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../src/archive/index.ts';
import { captureIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';
import { tempDir } from './helpers/temp-dir.ts';

describe('memsteer start (what npm start runs)', () => {
  const saved = { ...process.env };
  afterAll(() => {
    process.env = saved;
  });

  it('runs the main job on the embedded default with no key and no endpoint', async () => {
    // No model reachable: every role must fall back to its offline algorithm.
    for (const k of Object.keys(process.env)) if (k.startsWith('OPENAI_') || k.startsWith('MEMSTEER_')) delete process.env[k];
    const out = join(tempDir('memsteer-start-'), 'run');
    const io = captureIO();
    const code = await main(['node', 'memsteer', 'start', '--iterations', '3', '--out', out], io);
    expect(io.stderr).not.toMatch(/internal error/);
    expect(code).toBe(0);
    expect(io.stdout).toMatch(/embedded default history Elena_Morales/);
    expect(io.stdout).toMatch(/items \(train \d+, val \d+\)/);
    expect(io.stdout).toMatch(/objective evidence; stopped: reached 3 iterations/);
    expect(io.stdout).toMatch(/│ seed i000-\w+ +│ official/);
    expect(existsSync(join(out, 'supervision.jsonl'))).toBe(true);
    const archive = openArchive(out);
    expect(archive.manifest.models).toEqual({ proposer: 'case-driven', answerer: 'extractive-reader', judge: 'f1-threshold' });
    expect(archive.loadState().iterationsDone).toBe(3);
  });
});
