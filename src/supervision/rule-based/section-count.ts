/**
 * Counts over a list or table in the person's own documents: "In the document I shared while talking about the
 * outing report, how many numbered points are listed under “Recommendations for Future Outings”?" → "6". RHELM's
 * development personas ask 19 of their 229 questions this way ("how many distinct species were catalogued", "how many
 * numbered recommendations are listed in …"); before this family the generated sets asked none. The document is named
 * by the conversation that shared it, as section-order.ts names it, and the answer is counted from the section's text
 * (section-lists.ts), the same reading the blind reader makes.
 */
import type { Rng } from '../rng.ts';
import { entriesNoun, sectionList } from '../section-lists.ts';
import type { RuleContext } from './rule-context.ts';
import { documentNamed, MAX_HEADING, outlinedSection } from './section-order.ts';
import { plan, type RuleCandidate } from './templates.ts';

/** "how many … are listed under “S”" of outlined section `i`, or undefined when it holds no one countable list. */
export function sectionCountQuestion(ctx: RuleContext, i: number, rng: Rng): RuleCandidate | undefined {
  const found = outlinedSection(ctx, i);
  if (!found) return undefined;
  const { r, title } = found;
  // The heading must be one a person names, and must not give the count away ("3 Key Takeaways").
  if (r.title!.length > MAX_HEADING || !/\p{L}/u.test(r.title!) || /\d/.test(r.title!)) return undefined;
  const list = sectionList(r.text, r.title);
  if (!list) return undefined;
  const named = documentNamed(ctx, i, title, ctx.speakerStems, rng);
  if (!named) return undefined;
  const noun = entriesNoun(list);
  const asked = list.kind === 'table' ? `are listed in the table under “${r.title}”` : `are listed under “${r.title}”`;
  const answer = String(list.count);
  return {
    type: 'multi-hop',
    template: 'section-count',
    question: `${named.lead}, how many ${noun} ${asked}?`,
    plan: plan(
      'multi-hop',
      `how many ${noun} the section “${r.title}” of ${named.described} lists`,
      answer,
      'number',
      [
        ...named.facts,
        { record: r.id, quote: r.text.slice(list.start, list.end), statement: `the section “${r.title}” lists ${answer} ${noun}` },
      ],
      new Map([...named.roles, [r.id, `its ${list.kind === 'table' ? 'table' : 'list'} is counted`]]),
      [...named.operations, 'count'],
    ),
  };
}
