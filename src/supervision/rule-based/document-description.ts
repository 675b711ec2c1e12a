/**
 * A person's own document named as they recall it: by what kind of document it is and when they wrote it ("my
 * meal preparation note from February", "my incident and attendance report from March"), not by the conversation
 * that shared it and not by its full title. RHELM's development personas ask a quarter of their questions about a
 * document alone ("When reviewing my most recent garden health summary from September 23, how many distinct species
 * were catalogued?"); their evidence is the document's sections, with no conversation turn.
 */
import { recordDate } from '../bundles.ts';
import { sectionPlace } from '../document-outline.ts';
import { monthOf } from './phrases.ts';
import type { RuleContext } from './rule-context.ts';

/** Nouns that say what kind of document a title names ("… Log", "… Report"): the part of a title a person recalls. */
const KIND_NOUNS = new Set(
  [
    'log logs report reports note notes plan plans guide summary journal minutes outline review letter proposal checklist',
    'list agenda itinerary record records catalog catalogue inventory update documentation analysis reflections',
    'overview diary tracker schedule timeline memo brief handout worksheet',
  ]
    .join(' ')
    .split(' '),
);

/** Words that open a kind phrase but name no kind of their own ("Comprehensive Update Log" → "update log"). */
const FILLER = new Set(['comprehensive', 'detailed', 'final', 'updated', 'revised', 'draft', 'simple', 'practical', 'my', 'the', 'a']);

/**
 * The kind phrase of a title, lower-cased: the segment (split at colons and dashes) whose last word is a kind noun,
 * without a possessive owner or filler words ("Mara Lind’s Bean Soup – Meal Preparation Note" → "meal preparation
 * note"). Undefined when no segment ends on a kind noun, or the phrase is the kind noun alone or
 * longer than four words (a person recalls a kind, not a title).
 */
export function kindPhrase(title: string): string | undefined {
  for (const segment of title.split(/\s*[:–—|]\s*|\s+-\s+/)) {
    const words = segment
      .replace(/^.*?[’']s\s+/u, '')
      .replace(/\(.*?\)/g, '')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    const last = words[words.length - 1]?.toLowerCase().replace(/[^\p{L}]/gu, '');
    if (!last || !KIND_NOUNS.has(last)) continue;
    while (words.length && FILLER.has(words[0]!.toLowerCase())) words.shift();
    if (words.length < 2 || words.length > 4 || words.some((w) => /\d/.test(w))) return undefined;
    // Titles capitalise every word, so only acronyms ("EU", "GDPR") and inner capitals ("OneDrive") keep their case.
    return words.map((w) => (/^\p{Lu}\p{Ll}+$/u.test(w) ? w.toLowerCase() : w)).join(' ');
  }
  return undefined;
}

/** A description's identity: its kind phrase and the month of the document's first section. */
const descriptionKey = (kind: string, iso: string): string => `${kind}\u0000${iso.slice(0, 7)}`;

/** Per history: each document's kind phrase and date (its first section's), and how many documents each key names. */
interface Descriptions {
  byThread: Map<string, { kind: string; date: string }>;
  counts: Map<string, number>;
}

const descriptionsCache = new WeakMap<RuleContext, Descriptions>();

function descriptions(ctx: RuleContext): Descriptions {
  let d = descriptionsCache.get(ctx);
  if (d) return d;
  d = { byThread: new Map(), counts: new Map() };
  const seen = new Set<string>();
  for (const [k, r] of ctx.graph.records.entries()) {
    const thread = ctx.graph.threadOf[k]!;
    if (seen.has(thread) || !sectionPlace(r)) continue;
    seen.add(thread);
    const records = (ctx.graph.threads.get(thread) ?? []).map((j) => ctx.graph.records[j]!);
    // The document's first section: its heading is the title, its date the document's.
    const first = records.reduce((a, o) => ((sectionPlace(o)?.section ?? Infinity) < (sectionPlace(a)?.section ?? Infinity) ? o : a), r);
    const title = first.title;
    const date = recordDate(first);
    const kind = title && kindPhrase(title);
    if (!kind || !date) continue;
    d.byThread.set(thread, { kind, date });
    const key = descriptionKey(kind, date);
    d.counts.set(key, (d.counts.get(key) ?? 0) + 1);
  }
  descriptionsCache.set(ctx, d);
  return d;
}

/**
 * "my meal preparation note from February 2024" for the document of section `i`, or undefined when its title has no
 * kind phrase or another document of the same month has the same one.
 */
export function documentDescription(ctx: RuleContext, i: number): string | undefined {
  const d = descriptions(ctx);
  const own = d.byThread.get(ctx.graph.threadOf[i]!);
  if (!own || d.counts.get(descriptionKey(own.kind, own.date)) !== 1) return undefined;
  const { kind, date } = own;
  return `my ${kind} from ${monthOf(date)}`;
}
