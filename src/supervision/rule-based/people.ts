/**
 * Whether a name in a history is a person's. A swapped companion must be a person ("with Vivosmart" names a tool), and
 * a question whose answer is a person asks "who", not "what" ("Who did I meet?" → Mr. Ramesh).
 */
import { escapeRegExp } from '../../text/text.ts';
import { sentenceAt } from './nlp.ts';
import type { RuleContext } from './rule-context.ts';
import { TITLES } from './speakers.ts';

/** How often a name must be seen doing something ("Rohan won", "Maria said") before it counts as a person's. */
const PERSON_EVIDENCE = 2;
/** Records read per name when deciding whether it is a person's. */
const PERSON_READS = 24;

const memo = new WeakMap<RuleContext, Map<string, boolean>>();

/**
 * Whether a name is a person's: a title ("Dr. Rao"), or the name seen as the subject of a verb in at least
 * {@link PERSON_EVIDENCE} records ("Maria said …", "Oscar sent …"). Read once per name and history.
 */
export function isPerson(ctx: RuleContext, name: string): boolean {
  let known = memo.get(ctx);
  if (!known) memo.set(ctx, (known = new Map()));
  let person = known.get(name);
  if (person === undefined) known.set(name, (person = readAsPerson(ctx, name)));
  return person;
}

function readAsPerson(ctx: RuleContext, name: string): boolean {
  if (TITLES.has(name.split(/\s+/)[0]!.toLowerCase())) return true;
  const last = name.split(/\s+/).pop()!;
  const re = new RegExp(`(?<![\\p{L}])${escapeRegExp(name)}(?![\\p{L}'’])`, 'u');
  let seen = 0;
  let read = 0;
  for (const r of ctx.graph.records) {
    const m = re.exec(r.text);
    if (!m) continue;
    if (++read > PERSON_READS) break;
    const at = sentenceAt(r.text, m.index + name.length - last.length);
    const next = at && at.at >= 0 ? at.sentence.tokens[at.at + 1] : undefined;
    if (next && (next.pos === 'VERB' || next.pos === 'AUX') && ++seen >= PERSON_EVIDENCE) return true;
  }
  return false;
}
