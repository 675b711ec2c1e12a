/**
 * Unified line diff of two sources, for reports and the proposer's revision history. An LCS over the lines that
 * differ (common prefix and suffix trimmed first): designs are a few hundred lines, so the quadratic table is small.
 */
export function diffSources(a: string, b: string, options: { context?: number; from?: string; to?: string } = {}): string {
  const context = options.context ?? 3;
  const x = splitLines(a);
  const y = splitLines(b);
  const ops = lineOps(x, y);
  if (ops.every((o) => o.kind === ' ')) return '';
  const out = [`--- ${options.from ?? 'a'}`, `+++ ${options.to ?? 'b'}`];
  // Group changes into hunks with `context` unchanged lines around them.
  let i = 0;
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.kind === ' ') i++;
    if (i >= ops.length) break;
    let start = Math.max(0, i - context);
    let end = i;
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let gap = end;
      while (gap < ops.length && ops[gap]!.kind === ' ') gap++;
      if (gap < ops.length && gap - end <= 2 * context) end = gap;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    const hunk = ops.slice(start, end);
    const first = hunk[0]!;
    const oldCount = hunk.filter((o) => o.kind !== '+').length;
    const newCount = hunk.filter((o) => o.kind !== '-').length;
    const oldStart = oldCount ? first.oldLine : first.oldLine - 1;
    const newStart = newCount ? first.newLine : first.newLine - 1;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.text}`);
    i = end;
    start = end;
  }
  return `${out.join('\n')}\n`;
}

interface LineOp {
  kind: ' ' | '-' | '+';
  text: string;
  /** 1-based line in a (for '+': the line it is inserted before). */
  oldLine: number;
  newLine: number;
}

function splitLines(s: string): string[] {
  if (s === '') return [];
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function lineOps(x: string[], y: string[]): LineOp[] {
  let pre = 0;
  while (pre < x.length && pre < y.length && x[pre] === y[pre]) pre++;
  let suf = 0;
  while (suf < x.length - pre && suf < y.length - pre && x[x.length - 1 - suf] === y[y.length - 1 - suf]) suf++;
  const xm = x.slice(pre, x.length - suf);
  const ym = y.slice(pre, y.length - suf);
  const ops: LineOp[] = [];
  let ol = 1;
  let nl = 1;
  const push = (kind: LineOp['kind'], text: string): void => {
    ops.push({ kind, text, oldLine: ol, newLine: nl });
    if (kind !== '+') ol++;
    if (kind !== '-') nl++;
  };
  for (let k = 0; k < pre; k++) push(' ', x[k]!);
  const n = xm.length;
  const m = ym.length;
  if (n * m > 25_000_000) {
    // Too large to align line by line: show the middle as replaced.
    for (const t of xm) push('-', t);
    for (const t of ym) push('+', t);
  } else {
    // lcs[i][j] = LCS length of xm[i:], ym[j:].
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] = xm[i] === ym[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && xm[i] === ym[j]) {
        push(' ', xm[i++]!);
        j++;
      } else if (i < n && (j >= m || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) push('-', xm[i++]!);
      else push('+', ym[j++]!);
    }
  }
  for (let k = x.length - suf; k < x.length; k++) push(' ', x[k]!);
  return ops;
}
