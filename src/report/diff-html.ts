import { escapeHtml } from './html-escape.ts';

/** A unified diff as a `<pre>` block, one span per line classed by its marker (+, -, @@, header). */
export function renderDiff(diff: string): string {
  const lines = diff.replace(/\n$/, '').split('\n');
  const out = lines.map((line) => {
    const cls =
      line.startsWith('+++') || line.startsWith('---')
        ? 'd-file'
        : line.startsWith('@@')
          ? 'd-hunk'
          : line.startsWith('+')
            ? 'd-add'
            : line.startsWith('-')
              ? 'd-del'
              : 'd-ctx';
    return `<span class="${cls}">${escapeHtml(line) || ' '}</span>`;
  });
  // Each line is a block span (for its background), so no newline between them: it would double the spacing.
  return `<pre class="diff"><code>${out.join('')}</code></pre>`;
}
