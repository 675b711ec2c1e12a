import { describe, expect, it } from 'vitest';
import { diffSources } from '../src/design/diff.ts';

const lines = (n: number, f = (i: number) => `line ${i}`) => `${Array.from({ length: n }, (_, i) => f(i + 1)).join('\n')}\n`;

describe('diffSources', () => {
  it('is empty for equal sources', () => {
    expect(diffSources('a\nb\n', 'a\nb\n')).toBe('');
  });

  it('writes unified hunks with context and line numbers', () => {
    const a = lines(20);
    const b = lines(20, (i) => (i === 3 ? 'changed 3' : i === 18 ? 'changed 18' : `line ${i}`)).replace('line 10\n', 'line 10\ninserted\n');
    expect(diffSources(a, b, { from: 'seed.ts', to: 'best.ts', context: 2 })).toBe(
      [
        '--- seed.ts',
        '+++ best.ts',
        '@@ -1,5 +1,5 @@',
        ' line 1',
        ' line 2',
        '-line 3',
        '+changed 3',
        ' line 4',
        ' line 5',
        '@@ -9,4 +9,5 @@',
        ' line 9',
        ' line 10',
        '+inserted',
        ' line 11',
        ' line 12',
        '@@ -16,5 +17,5 @@',
        ' line 16',
        ' line 17',
        '-line 18',
        '+changed 18',
        ' line 19',
        ' line 20',
        '',
      ].join('\n'),
    );
  });

  it('merges nearby changes into one hunk and handles pure insertions and deletions', () => {
    const d = diffSources('a\nb\nc\nd\n', 'a\nc\nd\ne\n', { context: 1 });
    expect(d).toBe(['--- a', '+++ b', '@@ -1,4 +1,4 @@', ' a', '-b', ' c', ' d', '+e', ''].join('\n'));
    expect(diffSources('', 'x\n')).toBe(['--- a', '+++ b', '@@ -0,0 +1,1 @@', '+x', ''].join('\n'));
    expect(diffSources('x\n', '')).toBe(['--- a', '+++ b', '@@ -1,1 +0,0 @@', '-x', ''].join('\n'));
  });

  it('shows the changed middle as replaced when the edits exceed maxEdits', () => {
    const a = lines(10);
    const b = lines(10, (i) => (i === 4 || i === 6 ? `new ${i}` : `line ${i}`));
    expect(diffSources(a, b, { context: 1 })).toContain('@@ -3,5 +3,5 @@\n line 3\n-line 4\n+new 4\n line 5\n-line 6\n');
    expect(diffSources('x\ny\n', 'x\nq\ny\n', { context: 0 })).toContain('@@ -1,0 +2,1 @@\n+q\n');
    expect(diffSources('x\nq\ny\n', 'x\ny\n', { context: 0 })).toContain('@@ -2,1 +1,0 @@\n-q\n');
    expect(diffSources('x\n', 'y\n', { maxEdits: 1 })).toBe(['--- a', '+++ b', '@@ -1,1 +1,1 @@', '-x', '+y', ''].join('\n'));
    expect(diffSources('', 'y\n', { maxEdits: 0 })).toBe(['--- a', '+++ b', '@@ -0,0 +1,1 @@', '+y', ''].join('\n'));
    expect(diffSources(a, b, { context: 1, maxEdits: 2 })).toBe(
      ['--- a', '+++ b', '@@ -3,5 +3,5 @@', ' line 3', '-line 4', '-line 5', '-line 6', '+new 4', '+line 5', '+new 6', ' line 7', ''].join(
        '\n',
      ),
    );
    expect(diffSources('x', 'x\n')).toBe('');
  });
});
