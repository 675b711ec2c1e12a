/**
 * Degraded input is counted, never silent: loaders return warnings (undated or dropped LoCoMo sessions, invalid
 * UTF-8), question files are checked against the records, every command prints them, and --strict refuses them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { captureIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';
import { loadHistoriesSync } from '../src/history/load.ts';
import { loadLocomo } from '../src/history/loaders/locomo.ts';
import { decodeUtf8 } from '../src/history/read-json.ts';
import { HistoriesSummarySchema } from '../src/history/summary.ts';
import { QAItemSchema } from '../src/history/record.ts';
import { unknownEvidenceWarnings } from '../src/history/warnings.ts';
import { tempDir } from './helpers/temp-dir.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const FIX = resolve(REPO, 'test', 'fixtures', 'history');
const DEGRADED = resolve(FIX, 'locomo-degraded.json');
const RECORDS = resolve(FIX, 'records.jsonl');
const QUESTIONS = resolve(FIX, 'questions-unknown-evidence.jsonl');
const SEED = resolve(REPO, 'seeds', 'base-bm25.ts');

const run = async (...argv: string[]) => {
  const io = captureIO();
  const exit = await main(['node', 'memsteer', ...argv], io);
  return { exit, ...io };
};

describe('loaders count degraded input', () => {
  it('LoCoMo: an undated session keeps its turns without time; a session that is not a list is counted as dropped', () => {
    const [h] = loadLocomo(DEGRADED);
    expect(h!.records.map((r) => [r.id, r.time !== undefined])).toEqual([
      ['D1:1', true],
      ['D1:2', true],
      ['D2:1', false],
      ['D2:2', false],
    ]);
    expect(h!.warnings?.map((w) => [w.code, w.count])).toEqual([
      ['undated-session', 1],
      ['dropped-session', 1],
    ]);
    expect(h!.warnings![0]!.message).toMatch(/session_2.*2 turns have no time/);
    expect(h!.warnings![1]!.message).toMatch(/session_3.*2 entries were dropped/);
  });

  it('a non-UTF-8 byte is replaced and counted on the history it landed in', () => {
    const [h] = loadHistoriesSync(`locomo:${DEGRADED}`);
    const replaced = h!.warnings!.find((w) => w.code === 'replaced-bytes');
    expect(replaced?.count).toBe(1);
    expect(replaced?.message).toContain('locomo-degraded.json');
    expect(h!.records.find((r) => r.id === 'D2:1')!.text).toContain('caf\uFFFD');
  });

  it('JSONL: only the history whose lines held invalid bytes is charged, with the number of replacements', () => {
    const dir = tempDir('memsteer-warn-');
    const file = join(dir, 'records.jsonl');
    const good = Buffer.from('{"history":"ok","id":"o1","kind":"note","text":"clean text"}\n');
    const bad = Buffer.concat([
      Buffer.from('{"history":"broken","id":"x1","kind":"note","text":"na'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('ve"}\n'),
    ]);
    writeFileSync(file, Buffer.concat([good, bad]));
    const hs = loadHistoriesSync(`jsonl:${file}`);
    expect(hs.map((h) => [h.id, h.warnings?.map((w) => [w.code, w.count])])).toEqual([
      ['ok', []],
      ['broken', [['replaced-bytes', 2]]],
    ]);
  });

  it('valid UTF-8 (even a genuine U+FFFD) reports nothing; invalid bytes are counted', () => {
    expect(decodeUtf8(Buffer.from('ok \uFFFD ok', 'utf8')).replaced).toBe(0);
    expect(decodeUtf8(Buffer.from([0x61, 0xc3, 0x28, 0x80])).replaced).toBe(2);
  });

  it('a clean fixture has no warnings', () => {
    expect(loadHistoriesSync(`jsonl:${RECORDS}`).map((h) => h.warnings)).toEqual([[], []]);
  });
});

describe('question files whose evidence ids match no record', () => {
  it('are counted per history, with the first unknown id', () => {
    const histories = loadHistoriesSync(`jsonl:${RECORDS}`);
    const items = readFileSync(QUESTIONS, 'utf8')
      .trim()
      .split('\n')
      .map((l) => QAItemSchema.parse(JSON.parse(l)));
    const found = unknownEvidenceWarnings(histories, items, 'q.jsonl');
    expect([...found.keys()]).toEqual(['alice']);
    expect(found.get('alice')).toMatchObject({ code: 'unknown-evidence', count: 2 });
    expect(found.get('alice')!.message).toMatch(/^q\.jsonl: 2 evidence ids match no record .*2 items, first 'a9'/);
  });

  it('convert --history prints the counted warning on stderr and still writes', async () => {
    const out = join(tempDir('memsteer-warn-'), 'plain.jsonl');
    const r = await run('convert', QUESTIONS, '--to', 'plain', '--history', `jsonl:${RECORDS}`, '--out', out);
    expect(r.exit).toBe(0);
    expect(r.stderr).toBe(
      `warning: alice: ${QUESTIONS}: 2 evidence ids match no record of this history ` +
        "(in 2 items, first 'a9'); they count as not retrieved\n",
    );
    expect(existsSync(out)).toBe(true);
  });
});

describe('commands print the warnings; inspect lists them; --strict refuses them', () => {
  it('inspect: one stderr line per warning, a table on stdout, and the list in --json', async () => {
    const text = await run('inspect', `locomo:${DEGRADED}`);
    expect(text.exit).toBe(0);
    const lines = text.stderr.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(l).toMatch(/^warning: conv-w: \d+ /);
    expect(text.stdout).toContain('warnings (degraded input):');
    expect(text.stdout).toMatch(/dropped-session/);

    const json = await run('inspect', `locomo:${DEGRADED}`, '--json');
    const summary = HistoriesSummarySchema.parse(JSON.parse(json.stdout));
    expect(summary.histories[0]!.warnings.map((w) => [w.code, w.count])).toEqual([
      ['undated-session', 1],
      ['dropped-session', 1],
      ['replaced-bytes', 1],
    ]);
    expect(summary.total.warnings.map((w) => w.history)).toEqual(['conv-w', 'conv-w', 'conv-w']);
  });

  it('inspect --strict refuses with E_STRICT naming the first warning and the count of the others', async () => {
    const r = await run('inspect', `locomo:${DEGRADED}`, '--strict');
    expect(r.exit).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^memsteer: E_STRICT: conv-w: 1 session has no parseable date .*\(and 2 other warnings\)/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('eval --strict refuses before any work and writes nothing', async () => {
    const dir = tempDir('memsteer-warn-');
    const traces = join(dir, 'traces.jsonl');
    const r = await run('eval', '--history', `locomo:${DEGRADED}`, '--design', SEED, '--traces', traces, '--strict');
    expect(r.exit).not.toBe(0);
    expect(r.stderr).toMatch(/^memsteer: E_STRICT: conv-w: /);
    expect(existsSync(traces)).toBe(false);
    expect(existsSync(join(dir, 'traces.summary.json'))).toBe(false);
  });

  it('eval --strict refuses a questions file with unknown evidence ids', async () => {
    const dir = tempDir('memsteer-warn-');
    const traces = join(dir, 'traces.jsonl');
    const argv = ['eval', '--history', `jsonl:${RECORDS}`, '--design', SEED, '--questions', QUESTIONS, '--traces', traces];
    const r = await run(...argv, '--strict');
    expect(r.stderr).toMatch(/^memsteer: E_STRICT: alice: .*2 evidence ids match no record/);
    expect(existsSync(traces)).toBe(false);
  });

  it('optimize --resume --strict checks the inputs its manifest recorded, before touching the run', async () => {
    const runDir = tempDir('memsteer-warn-run-');
    const manifest = `${JSON.stringify({ config: { history: `locomo:${DEGRADED}`, supervision: QUESTIONS } })}\n`;
    writeFileSync(join(runDir, 'manifest.json'), manifest);
    const r = await run('optimize', '--resume', runDir, '--strict');
    expect(r.stderr).toMatch(/^memsteer: E_STRICT: conv-w: 1 session has no parseable date/);
    expect(readFileSync(join(runDir, 'manifest.json'), 'utf8')).toBe(manifest);
    expect(existsSync(join(runDir, 'run.lock'))).toBe(false);
  });
});
