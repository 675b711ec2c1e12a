import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectFormat, parseSource } from '../src/history/source.ts';
import { loadHistories } from '../src/history/load.ts';
import { MemsteerError } from '../src/errors.ts';

const FIX = resolve(fileURLToPath(new URL('.', import.meta.url)), 'fixtures', 'history');

async function failure(p: Promise<unknown> | (() => unknown)): Promise<MemsteerError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    expect(err).toBeInstanceOf(MemsteerError);
    return err as MemsteerError;
  }
  throw new Error('expected a failure');
}

describe('parseSource', () => {
  it('splits format, path and history', () => {
    expect(parseSource('locomo:data/locomo10.json#conv-26', '/base')).toEqual({
      format: 'locomo',
      path: '/base/data/locomo10.json',
      history: 'conv-26',
    });
    expect(parseSource('rhelm:/d/rhelm#Dr._Elena_Markovic', '/x')).toEqual({
      format: 'rhelm',
      path: '/d/rhelm',
      history: 'Dr._Elena_Markovic',
    });
  });
  it('leaves the format to detection when it is not given', () => {
    expect(parseSource('data/records.jsonl', '/base')).toEqual({ format: undefined, path: '/base/data/records.jsonl', history: undefined });
  });
  it('rejects an unknown format prefix, naming the known ones', async () => {
    const err = await failure(() => parseSource('csv:whatever.csv'));
    expect(err.code).toBe('E_UNKNOWN_FORMAT');
    expect(err.message).toContain("unknown format 'csv'");
    expect(err.message).toContain('locomo');
  });
});

describe('detectFormat', () => {
  it('recognises each format from layout and content', () => {
    expect(detectFormat(resolve(FIX, 'rhelm-mini'))).toBe('rhelm');
    expect(detectFormat(resolve(FIX, 'locomo-mini.json'))).toBe('locomo');
    expect(detectFormat(resolve(FIX, 'records.jsonl'))).toBe('jsonl');
    expect(detectFormat(resolve(FIX, 'memory_bank_mini.json'))).toBe('memorybank');
    expect(detectFormat(resolve(FIX, 'longmemeval-original.json'))).toBe('longmemeval');
    expect(detectFormat(resolve(FIX, 'longmemeval-reformatted.json'))).toBe('longmemeval');
  });
  it('says what to do when it cannot tell', async () => {
    const err = await failure(() => detectFormat(FIX));
    expect(err.code).toBe('E_CANNOT_DETECT');
    expect(err.message).toContain(FIX);
  });
  it('loads a source without a format prefix', async () => {
    const hs = await loadHistories(resolve(FIX, 'locomo-mini.json'));
    expect(hs.map((h) => h.id)).toEqual(['conv-1', 'conv-2']);
    expect(hs[0]!.format).toBe('locomo');
  });
});

describe('bad input', () => {
  it('missing file → E_NO_FILE naming the file', async () => {
    const path = resolve(FIX, 'nope.jsonl');
    const err = await failure(loadHistories(`jsonl:${path}`));
    expect(err.code).toBe('E_NO_FILE');
    expect(err.message).toBe(`${path}: file not found`);
    const err2 = await failure(loadHistories(`locomo:${resolve(FIX, 'nope.json')}`));
    expect(err2.code).toBe('E_NO_FILE');
  });
  it('unknown format → E_UNKNOWN_FORMAT', async () => {
    const err = await failure(loadHistories('parquet:/tmp/x.parquet'));
    expect(err.code).toBe('E_UNKNOWN_FORMAT');
  });
  it('invalid JSON in a JSONL file → E_BAD_JSON at file:N', async () => {
    const path = resolve(FIX, 'bad-json.jsonl');
    const err = await failure(loadHistories(`jsonl:${path}`));
    expect(err.code).toBe('E_BAD_JSON');
    expect(err.line).toBe(3);
    expect(err.message.startsWith(`${path}:3: invalid JSON`)).toBe(true);
    expect(err.message).not.toContain('\n');
  });
  it('invalid JSON in a JSON file → E_BAD_JSON at the line of the error', async () => {
    const path = resolve(FIX, 'locomo-bad.json');
    const err = await failure(loadHistories(`locomo:${path}`));
    expect(err.code).toBe('E_BAD_JSON');
    expect(err.line).toBe(4);
    expect(err.message.startsWith(`${path}:4: invalid JSON`)).toBe(true);
  });
  it('a record that fails the schema → E_BAD_RECORD at file:N', async () => {
    const path = resolve(FIX, 'bad-record.jsonl');
    const err = await failure(loadHistories(`jsonl:${path}`));
    expect(err.code).toBe('E_BAD_RECORD');
    expect(err.message).toContain(`${path}:2:`);
    expect(err.message).toContain('kind');
  });
  it('duplicate record id → E_DUPLICATE_ID naming file, line and id', async () => {
    const path = resolve(FIX, 'duplicate-id.jsonl');
    const err = await failure(loadHistories(`jsonl:${path}`));
    expect(err.code).toBe('E_DUPLICATE_ID');
    expect(err.message).toContain(`${path}:3:`);
    expect(err.message).toContain("'a1'");
    const path2 = resolve(FIX, 'locomo-duplicate.json');
    const err2 = await failure(loadHistories(`locomo:${path2}`));
    expect(err2.code).toBe('E_DUPLICATE_ID');
    expect(err2.message).toContain(path2);
    expect(err2.message).toContain("'D1:1'");
  });
  it('empty history → E_EMPTY_HISTORY', async () => {
    const err = await failure(loadHistories(`jsonl:${resolve(FIX, 'empty.jsonl')}`));
    expect(err.code).toBe('E_EMPTY_HISTORY');
    const err2 = await failure(loadHistories(`locomo:${resolve(FIX, 'locomo-empty.json')}`));
    expect(err2.code).toBe('E_EMPTY_HISTORY');
    expect(err2.message).toContain("'conv-9'");
  });
  it('unknown #history → E_UNKNOWN_HISTORY listing the valid ids', async () => {
    const path = resolve(FIX, 'records.jsonl');
    const err = await failure(loadHistories(`jsonl:${path}#carol`));
    expect(err.code).toBe('E_UNKNOWN_HISTORY');
    expect(err.message).toBe(`${path}: no history 'carol'; valid ids: alice, bob`);
    const err2 = await failure(loadHistories(`rhelm:${resolve(FIX, 'rhelm-mini')}#Nobody`));
    expect(err2.code).toBe('E_UNKNOWN_HISTORY');
    expect(err2.message).toContain('valid ids: Pat');
  });
  it('#a,b selects several histories of one file, in file order; an unknown one among them is named', async () => {
    const path = resolve(FIX, 'records.jsonl');
    expect((await loadHistories(`jsonl:${path}#bob, alice`)).map((h) => h.id)).toEqual(['alice', 'bob']);
    expect((await loadHistories(`jsonl:${path}#bob`)).map((h) => [h.id, h.source])).toEqual([['bob', `jsonl:${path}#bob`]]);
    const err = await failure(loadHistories(`jsonl:${path}#alice,carol`));
    expect(err.code).toBe('E_UNKNOWN_HISTORY');
    expect(err.message).toBe(`${path}: no history 'carol'; valid ids: alice, bob`);
    expect((await failure(loadHistories(`jsonl:${path}#,`))).code).toBe('E_UNKNOWN_HISTORY');
  });
  it('a data file with the wrong shape → E_BAD_SOURCE naming the place', async () => {
    const err = await failure(loadHistories(`locomo:${resolve(FIX, 'records.jsonl')}`));
    expect(['E_BAD_JSON', 'E_BAD_SOURCE']).toContain(err.code);
    const err2 = await failure(loadHistories(`memorybank:${resolve(FIX, 'locomo-mini.json')}`));
    expect(err2.code).toBe('E_BAD_SOURCE');
    expect(err2.message).toContain('locomo-mini.json');
  });
});
