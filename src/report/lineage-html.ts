import { escapeHtml } from './html-escape.ts';
import type { ProgramNode } from './report-schema.ts';
import { formatDelta, formatScore } from './format.ts';

/**
 * The lineage tree as nested lists: each program under its parent, children in creation order. Accepted programs
 * link to their revision's diff; the best one is starred. Server-rendered so the tree reads without JavaScript.
 */
export function renderLineage(programs: readonly ProgramNode[]): string {
  const children = new Map<string | null, ProgramNode[]>();
  const ids = new Set(programs.map((p) => p.id));
  for (const p of programs) {
    // A parent missing from the list would orphan the subtree; show it at the root instead of dropping it.
    const key = p.parent !== null && ids.has(p.parent) ? p.parent : null;
    const list = children.get(key) ?? [];
    list.push(p);
    children.set(key, list);
  }
  const seen = new Set<string>();
  const list = (parent: string | null): string => {
    const kids = (children.get(parent) ?? []).filter((p) => !seen.has(p.id));
    if (kids.length === 0) return '';
    const items = kids.map((p) => {
      seen.add(p.id);
      return `<li>${node(p)}${list(p.id)}</li>`;
    });
    return `<ul>${items.join('')}</ul>`;
  };
  return `<div class="tree" id="lineage-tree">${list(null)}</div>`;
}

function node(p: ProgramNode): string {
  const id = escapeHtml(p.id);
  const label = p.status === 'accepted' && p.parent !== null ? `<a href="#rev-${id}"><code>${id}</code></a>` : `<code>${id}</code>`;
  const parts = [
    label,
    `<span class="badge s-${escapeHtml(p.status)}">${escapeHtml(p.kind === 'seed' ? 'seed' : p.status)}</span>`,
    p.best ? '<span class="star" title="best validation score">★ best</span>' : '',
    p.score !== null ? `<span class="score">${formatScore(p.score)}</span>` : '',
    p.delta !== null && p.kind !== 'seed'
      ? `<span class="delta ${p.delta > 0 ? 'up' : p.delta < 0 ? 'down' : ''}">${formatDelta(p.delta)}</span>`
      : '',
    `<span class="muted">it ${p.iteration}${p.attempt > 0 ? `.${p.attempt}` : ''}</span>`,
    p.proposer ? `<span class="proposer">${escapeHtml(p.proposer)}</span>` : '',
  ].filter(Boolean);
  const detail = p.failure ?? (p.kind === 'seed' ? null : p.rationale);
  const title = [p.rationale, p.decision, p.failure].filter(Boolean).join('\n');
  return (
    `<div class="node n-${escapeHtml(p.status)}${p.best ? ' n-best' : ''}" data-program="${id}" title="${escapeHtml(title)}">` +
    parts.join(' ') +
    (detail ? `<div class="detail">${escapeHtml(truncate(detail, 220))}</div>` : '') +
    '</div>'
  );
}

function truncate(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}
