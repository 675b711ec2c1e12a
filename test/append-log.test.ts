/** The append-only log under the archive's events and generate's journal: where the next append starts. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendLogLine, jsonLine, readAppendLog } from '../src/util/append-log.ts';

const dir = mkdtempSync(join(tmpdir(), 'memsteer-append-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (path: string) =>
  readAppendLog<{ s: string }>(
    path,
    (line) => jsonLine(line, (v) => ({ ok: true, value: v as { s: string } })),
    (lineNo, message) => new Error(`${lineNo}: ${message}`),
  );

describe('readAppendLog', () => {
  it('counts the bytes of complete lines (multi-byte text and blank lines included), so a torn tail is cut exactly', () => {
    const path = join(dir, 'utf8.jsonl');
    const whole = `${JSON.stringify({ s: 'café — “quoted”' })}\n\n${JSON.stringify({ s: '日本語のテキスト' })}\n`;
    writeFileSync(path, whole);
    appendFileSync(path, '{"s":"torn ✂');
    const { items, tail } = read(path);
    expect(items.map((i) => i.s)).toEqual(['café — “quoted”', '日本語のテキスト']);
    expect(tail.validBytes).toBe(Buffer.byteLength(whole, 'utf8'));
    expect(tail.torn).toBe('{"s":"torn ✂');
    const after = appendLogLine(path, JSON.stringify({ s: 'next' }), tail);
    expect(readFileSync(path, 'utf8')).toBe(`${whole}{"s":"next"}\n`);
    expect(after.validBytes).toBe(statSync(path).size);
    expect(read(path).items.map((i) => i.s)).toEqual(['café — “quoted”', '日本語のテキスト', 'next']);
  });

  it('reads a long log in one pass (the byte count is not re-measured from the start on every line)', () => {
    const path = join(dir, 'long.jsonl');
    const line = `${JSON.stringify({ s: 'é'.repeat(200) })}\n`;
    writeFileSync(path, line.repeat(5_000));
    const { items, tail } = read(path);
    expect(items).toHaveLength(5_000);
    expect(tail.validBytes).toBe(statSync(path).size);
  });
});
