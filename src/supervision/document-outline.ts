import type { SourceRecord } from '../../sandbox/contract.ts';

/**
 * The outline of a sectioned document as the history loader records it (document-sections.ts): each section is a
 * record of the document's thread with `meta.section` (its place), `meta.level` (heading depth) and `meta.parent`
 * (the id of the enclosing section). Generator and blind reader read the same outline, so a question about the
 * order of sections is answered from what the records say, never from the plan.
 */

/** A section's place in its document's outline, or undefined for a record that is not an outlined section. */
export interface SectionPlace {
  thread: string;
  section: number;
  level: number;
  parent: string | undefined;
}

/** Where `r` sits in its document's outline. */
export function sectionPlace(r: SourceRecord): SectionPlace | undefined {
  if (r.kind !== 'document' || !r.thread || !r.title) return undefined;
  const section = r.meta?.section;
  const level = r.meta?.level;
  if (typeof section !== 'number' || typeof level !== 'number') return undefined;
  const parent = r.meta?.parent;
  return { thread: r.thread, section, level, parent: typeof parent === 'string' ? parent : undefined };
}

/**
 * The sibling section right after (or before) `r` among `records`: same document, same parent and heading level,
 * nearest in order. Undefined when `r` has none there.
 */
export function adjacentSection(
  r: SourceRecord,
  records: readonly SourceRecord[],
  direction: 'after' | 'before',
): SourceRecord | undefined {
  const at = sectionPlace(r);
  if (!at) return undefined;
  let best: { r: SourceRecord; section: number } | undefined;
  for (const o of records) {
    const p = sectionPlace(o);
    if (!p || p.thread !== at.thread || p.level !== at.level || p.parent !== at.parent || p.section === at.section) continue;
    const ahead = direction === 'after' ? p.section > at.section : p.section < at.section;
    if (!ahead) continue;
    if (!best || (direction === 'after' ? p.section < best.section : p.section > best.section)) best = { r: o, section: p.section };
  }
  return best?.r;
}

/** The title of the document `r` is a section of: its first section's heading (the document's own title). */
export function documentTitleOf(r: SourceRecord, records: readonly SourceRecord[]): string | undefined {
  const at = sectionPlace(r);
  if (!at) return undefined;
  let first: { title: string; section: number } | undefined;
  for (const o of records) {
    const p = sectionPlace(o);
    if (p && p.thread === at.thread && (!first || p.section < first.section)) first = { title: o.title!, section: p.section };
  }
  return first?.title;
}

/** Headings compared as a reader would: case, quotes and spacing ignored. */
export function sameHeading(a: string, b: string): boolean {
  const norm = (s: string) =>
    s
      .toLowerCase()
      .replace(/[“”"'‘’]/g, '')
      .replace(/\s+/g, ' ')
      .trim();
  return norm(a) === norm(b);
}
