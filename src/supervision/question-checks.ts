import type { AnswerType } from '../history/record.ts';
import { findDates, parseExactDate, sameDate } from '../text/date-parse.ts';
import { listItems } from './answer-type.ts';

/** Why a written question was dropped. */
export type QuestionRejection = 'question:malformed' | 'question:record-id' | 'question:answer-leak' | 'question:not-standalone';

const REFERS_TO_MATERIAL = new RegExp(
  [
    '\\b(the (above|following|given|provided|attached) (text|records?|passages?|conversations?|bundle|excerpts?|material|documents?)',
    '|th(is|ese) (records?|passages?|excerpts?|bundle)|record ids?|the bundle|(in|from) the (excerpt|passage|snippet)',
    '|(passages?|excerpts?|text|records?|snippets?) (above|below))\\b',
  ].join(''),
  'i',
);

/** Lower-case words joined by single spaces, articles dropped: the form leak checks compare. */
function words(text: string): string {
  return ` ${text
    .toLowerCase()
    .replace(/[’']/g, "'")
    .replace(/[^\p{L}\p{N}'.-]+/gu, ' ')
    .replace(/(?<!\d)\.|\.(?!\d)/g, ' ')
    .split(/\s+/)
    .filter((w) => w && !['a', 'an', 'the'].includes(w))
    .join(' ')} `;
}

function contains(haystack: string, needle: string): boolean {
  const n = words(needle).trim();
  return n.length > 0 && words(haystack).includes(` ${n} `);
}

/**
 * Programmatic checks of a written question: one question, standalone (refers to no excerpt, bundle or record),
 * naming no record id, and not containing its own answer.
 */
export function checkQuestion(
  question: string,
  answer: string,
  answerType: AnswerType,
  recordIds: Iterable<string>,
): { ok: true } | { ok: false; reason: QuestionRejection; detail: string } {
  const q = question.trim();
  if (q.length < 8 || !q.endsWith('?') || q.split('?').length > 3)
    return { ok: false, reason: 'question:malformed', detail: 'expected one question ending in "?"' };
  for (const id of recordIds) {
    if (id.length >= 3 && q.includes(id)) return { ok: false, reason: 'question:record-id', detail: `names record id ${id}` };
  }
  if (/\[[^\]]*\d[^\]]*\]/.test(q)) return { ok: false, reason: 'question:record-id', detail: 'contains a bracketed id' };
  if (REFERS_TO_MATERIAL.test(q))
    return { ok: false, reason: 'question:not-standalone', detail: 'refers to the source material instead of the history' };
  if (answerType !== 'boolean') {
    if (answerType === 'list') {
      const items = listItems(answer);
      const leaked = items.filter((it) => it.length >= 3 && contains(q, it));
      if (leaked.length && leaked.length * 2 >= items.length)
        return { ok: false, reason: 'question:answer-leak', detail: `contains answer items: ${leaked.join(', ')}` };
    } else if (answer.trim().length >= 2 || /\d/.test(answer)) {
      if (contains(q, answer) && !offeredChoice(q, answer))
        return { ok: false, reason: 'question:answer-leak', detail: `contains the answer "${answer}"` };
      const written = writtenDate(q, answer);
      if (written) return { ok: false, reason: 'question:answer-leak', detail: `contains the answer date as "${written}"` };
    }
  }
  return { ok: true };
}

/**
 * The answer's date as the question writes it in another form, if it does: a document titled "Log – June 3, 2024"
 * asked "What date does the log give?" → "3 June 2024" names its answer though no word matches.
 */
function writtenDate(question: string, answer: string): string | undefined {
  const date = parseExactDate(answer);
  if (!date) return undefined;
  return findDates(question).find((m) => sameDate(m.date, date))?.text;
}

/**
 * Whether the question offers the answer as one of two options ("Which came up in more conversations in May, A or
 * B?"): naming it there is the question's form, not a leak, as long as the other option is not the answer too.
 */
export function offeredChoice(question: string, answer: string): boolean {
  const m = /, ([^,?]+?) or ([^,?]+)\?$/.exec(question);
  if (!m) return false;
  const a = answer.trim().toLowerCase();
  const options = [m[1]!.trim().toLowerCase(), m[2]!.trim().toLowerCase()];
  return options.includes(a) && options.filter((o) => o.includes(a)).length === 1;
}
