/**
 * "How did Ana describe going to the support group?" → "powerful": the word a speaker used for
 * something they did, read from "I went to a support group yesterday and it was so powerful" (or from the
 * sentence right after: "I went to a poetry reading. It was inspiring."). People ask this of a friend's memory; the
 * event is named once in the history, so the description belongs to it. The blind reader answers from this same
 * reading.
 */
import type { SourceRecord } from '../../../sandbox/contract.ts';
import { ClauseIndex, type Stated } from './clause-index.ts';
import type { Clause } from './clauses.ts';
import { anchors, eventPhrase } from './families.ts';
import { sentenceAt } from './nlp.ts';
import type { RuleContext } from './rule-context.ts';
import { fact, plan, type RuleCandidate } from './templates.ts';

/** "and it was so powerful" after the clause, or "It was inspiring." as the next sentence. */
const SAME_SENTENCE = /^[^.!?;]{0,60}?(?:,? and |\s[-–—]\s)(?:it|that) (?:was|is) /i;
const NEXT_SENTENCE = /^\s*(?:It|That) (?:was|is) /;
const INTENSIFIER = /^(?:(?:so|really|very|super|pretty|totally|just|truly|quite|absolutely|incredibly|extremely)\s+)*/i;
/** Adjectives that quantify or point rather than describe. */
const NOT_DESCRIPTIVE = new Set(['much', 'many', 'same', 'such', 'other', 'own', 'only', 'more', 'less', 'few', 'able', 'sure']);

/** How the speaker described the event of clause `c` in record `r`: the word and the end of its sentence. */
export function descriptionOf(r: SourceRecord, c: Clause): { word: string; start: number; end: number } | undefined {
  const s = c.sentence;
  const objectStart = r.text.indexOf(c.object, c.verb.end);
  if (objectStart < 0 || objectStart >= s.end) return undefined;
  const afterObject = objectStart + c.object.length;
  const same = SAME_SENTENCE.exec(r.text.slice(afterObject, s.end));
  let from: number;
  if (same) from = afterObject + same[0].length;
  else {
    const next = NEXT_SENTENCE.exec(r.text.slice(s.end, s.end + 40));
    if (!next) return undefined;
    from = s.end + next[0].length;
  }
  from += INTENSIFIER.exec(r.text.slice(from))![0].length;
  const word = /^[a-z]+/.exec(r.text.slice(from))?.[0];
  if (!word || word.length < 3 || NOT_DESCRIPTIVE.has(word)) return undefined;
  // An adjective ending its phrase ("so powerful", not "so much fun" or "a great day").
  const found = sentenceAt(r.text, from);
  if (!found || found.at < 0 || found.sentence.tokens[found.at]!.pos !== 'ADJ') return undefined;
  const following = found.sentence.tokens[found.at + 1];
  if (following && following.pos !== 'PUNCT' && following.pos !== 'CCONJ' && following.text.toLowerCase() !== 'to') return undefined;
  return { word, start: s.start, end: from + word.length };
}

/** The question an event's description answers. */
export function describeQuestionText(who: string, ing: string): string {
  return `How did ${who} describe ${ing}?`;
}

/** Single-hop "How did Ana describe going to a support group?" from a clause named once in the history. */
export function describeQuestion(ctx: RuleContext, s: Stated): RuleCandidate | undefined {
  const phrase = eventPhrase(s.c);
  if (!phrase || !anchors(ctx, s.c.who).some((a) => a.c === s.c)) return undefined;
  const r = ctx.graph.records[s.i]!;
  const d = descriptionOf(r, s.c);
  if (!d) return undefined;
  return {
    type: 'single-hop',
    template: 'describe',
    question: describeQuestionText(s.c.who, phrase.ing),
    plan: plan(
      'single-hop',
      `the word ${s.c.who} used for ${phrase.ing}`,
      d.word,
      'text',
      [fact(r, d, `${s.c.who} called ${phrase.ing} ${d.word}`)],
      new Map([[r.id, `${s.c.who} describes it`]]),
      ['lookup'],
    ),
  };
}

/**
 * The description reading of `question` over `records` ("How did X describe doing Y?"): the word and the record
 * (by index) saying it, or undefined when the question is not of this form or the event is not named exactly once.
 */
export function readDescription(
  question: string,
  records: readonly SourceRecord[],
  speakers: readonly string[],
): { answer: string; record: number } | undefined {
  const m = /^How did (.+?) describe (.+)\?$/.exec(question);
  const who = m && speakers.find((s) => s === m[1]);
  if (!m || !who) return undefined;
  const ing = m[2]!.toLowerCase();
  const named = new ClauseIndex(records).all.filter((s) => s.c.who === who && eventPhrase(s.c)?.ing.toLowerCase() === ing);
  if (named.length !== 1) return undefined;
  const d = descriptionOf(records[named[0]!.i]!, named[0]!.c);
  return d && { answer: d.word, record: named[0]!.i };
}
