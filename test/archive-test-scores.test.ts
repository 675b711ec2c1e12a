/**
 * Official-test scores are a typed archive event (`test-scores`), validated on write and read; runs written before
 * it existed carried them in a `note` with a magic message, and those are still read. `memsteer archive` shows them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEGACY_TEST_SCORES_NOTE, createArchive, openArchive, type Archive } from '../src/archive/index.ts';
import { captureIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';
import { readTestScores } from '../src/export/test-scores.ts';

let dir: string;
let archive: Archive;
let seed: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'memsteer-test-scores-'));
  archive = createArchive(join(dir, 'run'), { config: {}, seeds: [], models: {}, promptVersions: {}, rngSeed: 1 });
  seed = archive.addProgram({ iteration: 0, parent: null, source: 'export default {};\n', rationale: 'seed' }).id;
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the test-scores event', () => {
  it('is written as its own event type and read back after reopening', () => {
    archive.recordTestScores({ program: seed, value: 0.4, n: 12, metrics: { contextRecall: 0.4, accuracy: 0.25 } });
    const lines = readFileSync(join(archive.dir, 'events.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: 'test-scores', program: seed, value: 0.4, n: 12 });
    const reopened = openArchive(archive.dir);
    expect(reopened.testScores().get(seed)).toEqual({ program: seed, value: 0.4, n: 12, metrics: { contextRecall: 0.4, accuracy: 0.25 } });
    expect(readTestScores(reopened, seed)?.value).toBe(0.4);
    expect(readTestScores(reopened, 'i001-unknown')).toBeNull();
  });

  it('refuses scores that do not validate, and programs the run does not have', () => {
    expect(() => archive.recordTestScores({ program: seed, value: 0.4, n: -1, metrics: {} })).toThrow();
    expect(() => archive.recordTestScores({ program: 'i009-nope', value: 0.4, n: 1, metrics: {} })).toThrow(/no program i009-nope/);
    expect(archive.testScores().size).toBe(0);
  });

  it('still reads the note form of older runs; the latest record of a program wins', () => {
    archive.appendEvent({ type: 'note', message: LEGACY_TEST_SCORES_NOTE, data: { program: seed, value: 0.3, n: 9, metrics: {} } });
    archive.appendEvent({ type: 'note', message: 'something else', data: { program: seed, value: 0.9, n: 9, metrics: {} } });
    expect(openArchive(archive.dir).testScores().get(seed)?.value).toBe(0.3);
    archive.recordTestScores({ program: seed, value: 0.35, n: 9, metrics: {} });
    expect(openArchive(archive.dir).testScores().get(seed)?.value).toBe(0.35);
  });

  it('is listed by `memsteer archive`', async () => {
    archive.recordTestScores({ program: seed, value: 0.5, n: 4, metrics: {} });
    const json = captureIO();
    expect(await main(['node', 'memsteer', 'archive', archive.dir, '--json'], json)).toBe(0);
    expect(JSON.parse(json.stdout).testScores).toEqual({ [seed]: { program: seed, value: 0.5, n: 4, metrics: {} } });
    const text = captureIO();
    expect(await main(['node', 'memsteer', 'archive', archive.dir], text)).toBe(0);
    expect(text.stdout).toContain(`official test: ${seed} 50.0 (n 4)`);
  });
});
