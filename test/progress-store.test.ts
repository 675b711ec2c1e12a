/** The generate journal: a torn last line is dropped and cut before the next append; damage elsewhere is an error. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProgressStore } from '../src/supervision/progress-store.ts';
import { emptyStats } from '../src/supervision/summary.ts';

const dir = mkdtempSync(join(tmpdir(), 'memsteer-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (bundle: string, status: 'done' | 'failed' = 'done') => ({ bundle, status, items: [], stats: emptyStats() });

describe('ProgressStore', () => {
  it('drops a torn last line, cuts it off before appending, and keeps every other line', () => {
    const path = join(dir, 'torn.progress.jsonl');
    const a = new ProgressStore(path, 'run1');
    a.append(line('b1'));
    a.append(line('b2', 'failed'));
    appendFileSync(path, '{"bundle":"b3","run":"run1","status":"do');
    const b = new ProgressStore(path, 'run1');
    expect(b.load().map((l) => [l.bundle, l.status])).toEqual([
      ['b1', 'done'],
      ['b2', 'failed'],
    ]);
    b.append(line('b3'));
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('"do{');
    expect(text.trimEnd().split('\n')).toHaveLength(3);
    expect(new ProgressStore(path, 'run1').load().map((l) => l.bundle)).toEqual(['b1', 'b2', 'b3']);
  });

  it('appends on a fresh line after a whole last line that lost its newline', () => {
    const path = join(dir, 'unterminated.progress.jsonl');
    new ProgressStore(path, 'r').append(line('b1'));
    writeFileSync(path, readFileSync(path, 'utf8').trimEnd());
    const s = new ProgressStore(path, 'r');
    expect(s.load()).toHaveLength(1);
    s.append(line('b2'));
    expect(new ProgressStore(path, 'r').load().map((l) => l.bundle)).toEqual(['b1', 'b2']);
  });

  it('ignores lines of other settings and rejects damage before the last line with E_BAD_PROGRESS', () => {
    const path = join(dir, 'damaged.progress.jsonl');
    new ProgressStore(path, 'other').append(line('b0'));
    new ProgressStore(path, 'mine').append(line('b1'));
    expect(new ProgressStore(path, 'mine').load().map((l) => l.bundle)).toEqual(['b1']);
    const whole = readFileSync(path, 'utf8').trimEnd().split('\n').at(-1)!;
    appendFileSync(path, `not json\n${whole}\n`);
    expect(() => new ProgressStore(path, 'mine').load()).toThrow(expect.objectContaining({ code: 'E_BAD_PROGRESS' }));
  });
});
