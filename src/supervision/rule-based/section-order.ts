/**
 * Questions about the outline of the person's own documents: "In the document I shared while talking about the
 * market visits, which section comes right after “Packing List”?" → "Detailed Daily Plan". People ask this of notes
 * they wrote or had an assistant help with, and a memory answers it only when it keeps a document's sections
 * together: the evidence is two sections of one document, found through the document, not through the words of the
 * answer.
 *
 * People do not name such a document by its title: RHELM's development personas ask "When we talked about expanding
 * the 'Digital Readiness' section in my event checklist last week, … what section comes directly before …" (all 16 of
 * their outline questions name the conversation, none the title). So the document is named by a conversation that
 * shared it, and the sharing turn joins the evidence (and so the bundle the blind reader sees): it is how the document
 * is found. Up to `rule-based@32` a document no conversation shared was named by its title, and the title and the
 * heading together found the section for any lexical retriever (Base-BM25's context recall 0.44–0.53 on such items of
 * the personas' validation splits, against 0.14 on their own outline questions). From `rule-based@36` a document is
 * named first as the person recalls it, by its kind and month ("In my meeting minutes from October 2024, …",
 * document-description.ts), when that names it alone; its sections are then the whole evidence, as in a quarter of the
 * personas' own questions.
 */
import type { SourceRecord } from '../../../sandbox/contract.ts';
import { documentDescription } from './document-description.ts';
import { adjacentSection, documentTitleOf, sameHeading, sectionPlace } from '../document-outline.ts';
import type { Operation, PlanFact } from '../plan.ts';
import type { Rng } from '../rng.ts';
import type { RuleContext } from './rule-context.ts';
import { recordDate } from '../bundles.ts';
import { stemsOf } from './gist.ts';
import { timePhrase } from './phrases.ts';
import { fact, plan, sharedIn, type RuleCandidate } from './templates.ts';

/**
 * Of the outline questions whose document has a kind phrase that names it alone that month (document-description.ts),
 * the share that names it so ("In my meeting minutes from October 2024, which section comes right after …?") rather
 * than by a conversation that shared it. RHELM's development personas ask a quarter of their questions of a document
 * alone, and `query-prf`'s effect on those questions is what the generated validation missed
 * (bench/results/2026-12-07-document-questions). Counts and table look-ups are not named so: with the heading quoted
 * and no turn to find first, Base-BM25 recalled 78–93% of their evidence, and at half of all three kinds the held-out
 * difficulty gap reached 11.7 points; outline questions alone leave it at 8.6.
 */
const DESCRIBED_SHARE = 1;

/** Headings longer than this are sentences, not something a person names from memory. */
export const MAX_HEADING = 70;

/** "which section comes right after / before …" of outlined section `i`, or undefined when its outline has none. */
export function sectionOrderQuestion(ctx: RuleContext, i: number, rng: Rng): RuleCandidate | undefined {
  if (!sectionPlace(ctx.graph.records[i]!)) return undefined;
  const direction = rng.next() < 0.5 ? 'after' : 'before';
  const found = outlinedSection(ctx, i);
  if (!found) return undefined;
  const { r, document, title } = found;
  const other = adjacentSection(r, document, direction);
  if (!other || !usable(r) || !usable(other)) return undefined;
  const facts = [
    { record: r.id, quote: r.text.slice(0, r.title!.length), statement: `the section “${r.title}” of “${title}”` },
    {
      record: other.id,
      quote: other.text.slice(0, other.title!.length),
      statement: `the section right ${direction} it, at the same level of the outline`,
    },
  ];
  const roles = new Map([
    [r.id, 'the section the question names'],
    [other.id, 'its heading is the answer'],
  ]);
  const named = documentNamed(ctx, i, title, new Set([...stemsOf(other.title!), ...ctx.speakerStems]), rng, true);
  if (!named) return undefined;
  return {
    type: 'multi-hop',
    template: 'section-order',
    question: `${named.lead}, which section comes right ${direction} “${r.title}”?`,
    plan: plan(
      'multi-hop',
      `the heading of the section right ${direction} “${r.title}” in ${named.described}`,
      other.title!,
      'text',
      [...named.facts, ...facts],
      new Map([...named.roles, ...roles]),
      named.operations,
    ),
  };
}

/** An outlined section, the records of its document and the document's title. */
export interface OutlinedSection {
  r: SourceRecord;
  document: SourceRecord[];
  title: string;
}

/**
 * Section `i` with its document, when its document has a title and the section's heading is not that title and names
 * no other section of it: otherwise a question naming the heading names no single place.
 */
export function outlinedSection(ctx: RuleContext, i: number): OutlinedSection | undefined {
  const r = ctx.graph.records[i]!;
  if (!sectionPlace(r)) return undefined;
  const document = (ctx.graph.threads.get(ctx.graph.threadOf[i]!) ?? []).map((k) => ctx.graph.records[k]!);
  const title = documentTitleOf(r, document);
  if (!title || sameHeading(title, r.title!)) return undefined;
  if (document.filter((o) => o.title && sameHeading(o.title, r.title!)).length !== 1) return undefined;
  return { r, document, title };
}

/** How a question names the document a section belongs to, and what that naming adds to the plan. */
export interface DocumentNamed {
  /** "In the document I shared while talking about the market visits in July". */
  lead: string;
  /** The document as the plan's intent names it. */
  described: string;
  /** The sharing turn's fact and its role: it is how the document is found. */
  facts: PlanFact[];
  roles: Array<[string, string]>;
  /** One lookup for the sharing turn, one for the section. */
  operations: Operation[];
}

/**
 * Names the document of section `i` (titled `title`) by a conversation that shared it, its topic avoiding `exclude`
 * and the title's words; undefined when no conversation of the history shared it. With `describe` (outline questions),
 * first by its kind and month when that names it alone (see DESCRIBED_SHARE).
 */
export function documentNamed(
  ctx: RuleContext,
  i: number,
  title: string,
  exclude: ReadonlySet<string>,
  rng: Rng,
  describe = false,
): DocumentNamed | undefined {
  if (describe && rng.next() < DESCRIBED_SHARE) {
    const described = documentDescription(ctx, i);
    if (described) return { lead: `In ${described}`, described: `“${title}”`, facts: [], roles: [], operations: ['lookup'] };
  }
  const shared = sharedIn(ctx, i, new Set([...stemsOf(title), ...exclude]), rng);
  if (!shared) return undefined;
  const { turn, hop } = shared;
  const talk = `${hop.ga.phrase.text}${timePhrase(hop.ga.scope, recordDate(turn))}`;
  return {
    lead: `In the document ${hop.whoA} shared while talking about ${talk}`,
    described: `the document shared while talking about ${hop.ga.phrase.text}`,
    facts: [fact(turn, hop.sentence, `${hop.whoA} talks about ${hop.ga.phrase.text} and shares “${title}”`)],
    roles: [[turn.id, 'shares the document: it is how the document is found']],
    operations: ['lookup', 'lookup'],
  };
}

/** A section whose heading opens its text (so the quote is verbatim) and is short enough to be named. */
function usable(r: SourceRecord): boolean {
  return !!r.title && r.title.length <= MAX_HEADING && r.text.startsWith(r.title) && /\p{L}/u.test(r.title);
}
