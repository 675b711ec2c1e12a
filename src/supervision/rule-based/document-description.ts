/**
 * A person's own document named as they recall it: by what kind of document it is and when they wrote it ("my
 * meal preparation note from February", "my incident and attendance report from March"), not by the conversation
 * that shared it and not by its full title. RHELM's development personas ask a quarter of their questions about a
 * document alone ("When reviewing my most recent garden health summary from September 23, how many distinct species
 * were catalogued?"); their evidence is the document's sections, with no conversation turn.
 */
import { recordDate } from '../bundles.ts';
import { documentTitleOf, sectionPlace } from '../document-outline.ts';
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

/** Per history, how many documents each "kind phrase + month" names: a description must name one. */
const namesCache = new WeakMap<RuleContext, Map<string, number>>();

function descriptionCounts(ctx: RuleContext): Map<string, number> {
  let counts = namesCache.get(ctx);
  if (counts) return counts;
  counts = new Map();
  const seen = new Set<string>();
  for (const [k, r] of ctx.graph.records.entries()) {
    const thread = ctx.graph.threadOf[k]!;
    if (seen.has(thread) || !sectionPlace(r)) continue;
    seen.add(thread);
    const records = (ctx.graph.threads.get(thread) ?? []).map((j) => ctx.graph.records[j]!);
    const title = documentTitleOf(r, records);
    const date = recordDate(r);
    const kind = title && kindPhrase(title);
    if (kind && date) counts.set(`${kind}\u0000${date.slice(0, 7)}`, (counts.get(`${kind}\u0000${date.slice(0, 7)}`) ?? 0) + 1);
  }
  namesCache.set(ctx, counts);
  return counts;
}

/**
 * "my meal preparation note from February 2024" for the document of section `i` titled `title`, or undefined when its
 * title has no kind phrase or another document of the same month has the same one.
 */
export function documentDescription(ctx: RuleContext, i: number, title: string): string | undefined {
  const kind = kindPhrase(title);
  const date = recordDate(ctx.graph.records[i]!);
  if (!kind || !date || descriptionCounts(ctx).get(`${kind}\u0000${date.slice(0, 7)}`) !== 1) return undefined;
  return `my ${kind} from ${monthOf(date)}`;
}
