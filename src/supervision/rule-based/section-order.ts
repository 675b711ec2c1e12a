/**
 * Questions about the outline of the person's own documents: "In my document “Harz Trip Guide”, which section comes
 * right after “Packing List”?" → "Detailed Daily Plan". People ask this of notes they wrote or had an assistant
 * help with, and a memory answers it only when it keeps a document's sections together: the evidence is two
 * sections of one document, found through the document, not through the words of the answer.
 *
 * People do not name such a document by its title: RHELM's development personas ask "When we talked about expanding
 * the 'Digital Readiness' section in my event checklist last week, … what section comes directly before …" (all 16 of
 * their outline questions name the conversation, none the title). So a document shared in a conversation of the
 * history is named by that conversation ("In the document I shared while talking about the market visits, …"), and
 * the sharing turn joins the evidence (and so the bundle the blind reader sees): it is how the document is found. The
 * title stays for documents no turn shares.
 */
import type { SourceRecord } from '../../../sandbox/contract.ts';
import { adjacentSection, documentTitleOf, sameHeading, sectionPlace } from '../document-outline.ts';
import type { Rng } from '../rng.ts';
import type { RuleContext } from './rule-context.ts';
import { recordDate } from '../bundles.ts';
import { stemsOf } from './gist.ts';
import { timePhrase } from './phrases.ts';
import { fact, plan, sharedIn, type RuleCandidate } from './templates.ts';

/** Headings longer than this are sentences, not something a person names from memory. */
const MAX_HEADING = 70;

/** "which section comes right after / before …" of outlined section `i`, or undefined when its outline has none. */
export function sectionOrderQuestion(ctx: RuleContext, i: number, rng: Rng): RuleCandidate | undefined {
  const r = ctx.graph.records[i]!;
  const at = sectionPlace(r);
  if (!at) return undefined;
  const document = (ctx.graph.threads.get(ctx.graph.threadOf[i]!) ?? []).map((k) => ctx.graph.records[k]!);
  const direction = rng.next() < 0.5 ? 'after' : 'before';
  const other = adjacentSection(r, document, direction);
  const title = documentTitleOf(r, document);
  if (!other || !title || !usable(r) || !usable(other) || sameHeading(title, r.title!)) return undefined;
  // The section asked about must be the only one with its heading, or the question names no single place.
  if (document.filter((o) => o.title && sameHeading(o.title, r.title!)).length !== 1) return undefined;
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
  const shared = sharedIn(ctx, i, new Set([...stemsOf(title), ...stemsOf(other.title!), ...ctx.speakerStems]), rng);
  if (shared) {
    const { turn, hop } = shared;
    const talk = `${hop.ga.phrase.text}${timePhrase(hop.ga.scope, recordDate(turn))}`;
    return {
      type: 'multi-hop',
      template: 'section-order',
      question: `In the document ${hop.whoA} shared while talking about ${talk}, which section comes right ${direction} “${r.title}”?`,
      plan: plan(
        'multi-hop',
        `the heading of the section right ${direction} “${r.title}” in the document shared while talking about ${hop.ga.phrase.text}`,
        other.title!,
        'text',
        [fact(turn, hop.sentence, `${hop.whoA} talks about ${hop.ga.phrase.text} and shares “${title}”`), ...facts],
        new Map([[turn.id, 'shares the document: it is how the document is found'], ...roles]),
        ['lookup', 'lookup'],
      ),
    };
  }
  // A file's own name ("11_report_task_3fc6b8c3", an HTML page's <title>) is no title anyone says.
  if (!/\s/.test(title) && /[_.]/.test(title)) return undefined;
  const owner = ctx.userVoice ? 'my document' : 'the document';
  return {
    type: 'multi-hop',
    template: 'section-order',
    question: `In ${owner} “${title}”, which section comes right ${direction} “${r.title}”?`,
    plan: plan(
      'multi-hop',
      `the heading of the section right ${direction} “${r.title}” in “${title}”`,
      other.title!,
      'text',
      facts,
      roles,
      ['lookup'],
    ),
  };
}

/** A section whose heading opens its text (so the quote is verbatim) and is short enough to be named. */
function usable(r: SourceRecord): boolean {
  return !!r.title && r.title.length <= MAX_HEADING && r.text.startsWith(r.title) && /\p{L}/u.test(r.title);
}
