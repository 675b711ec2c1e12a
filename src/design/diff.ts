import { type StructuredPatchHunk, structuredPatch } from 'diff';

/** Options of {@link diffSources}. */
export interface DiffOptions {
  /** Unchanged lines shown around each change (default 3). */
  context?: number;
  /** Names on the `---` and `+++` lines (default `a`, `b`). */
  from?: string;
  to?: string;
  /**
   * Past this many inserted plus deleted lines the diff stops aligning line by line and shows the changed middle as
   * replaced (default 5000): a bound on edits, not on time, so the same two sources always give the same diff.
   */
  maxEdits?: number;
}

/**
 * Unified line diff of two sources, for reports and the proposer's revision history (the `diff` package's Myers
 * diff). Empty when the sources have the same lines; a missing final newline is not a difference.
 */
export function diffSources(a: string, b: string, options: DiffOptions = {}): string {
  const context = options.context ?? 3;
  const x = withFinalNewline(a);
  const y = withFinalNewline(b);
  if (x === y) return '';
  const patch = structuredPatch('a', 'b', x, y, undefined, undefined, { context, maxEditLength: options.maxEdits ?? 5000 });
  const hunks = patch?.hunks ?? [replacedMiddle(splitLines(x), splitLines(y), context)];
  const out = [`--- ${options.from ?? 'a'}`, `+++ ${options.to ?? 'b'}`];
  for (const h of hunks) {
    // jsdiff numbers an empty side by the line after the change; GNU diff and patch by the line before (0 at the top).
    const oldStart = h.oldLines ? h.oldStart : h.oldStart - 1;
    const newStart = h.newLines ? h.newStart : h.newStart - 1;
    out.push(`@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@`, ...h.lines);
  }
  return `${out.join('\n')}\n`;
}

function withFinalNewline(s: string): string {
  return s === '' || s.endsWith('\n') ? s : `${s}\n`;
}

function splitLines(s: string): string[] {
  return s === '' ? [] : s.slice(0, -1).split('\n');
}

/** One hunk replacing everything between the common prefix and suffix, with `context` lines either side. */
function replacedMiddle(x: string[], y: string[], context: number): StructuredPatchHunk {
  let pre = 0;
  while (pre < x.length && pre < y.length && x[pre] === y[pre]) pre++;
  let suf = 0;
  while (suf < x.length - pre && suf < y.length - pre && x[x.length - 1 - suf] === y[y.length - 1 - suf]) suf++;
  const before = Math.min(pre, context);
  const after = Math.min(suf, context);
  const lines = [
    ...x.slice(pre - before, pre).map((l) => ` ${l}`),
    ...x.slice(pre, x.length - suf).map((l) => `-${l}`),
    ...y.slice(pre, y.length - suf).map((l) => `+${l}`),
    ...x.slice(x.length - suf, x.length - suf + after).map((l) => ` ${l}`),
  ];
  const oldLines = x.length - pre - suf + before + after;
  const newLines = y.length - pre - suf + before + after;
  const start = pre - before + 1;
  return { oldStart: start, oldLines, newStart: start, newLines, lines };
}
