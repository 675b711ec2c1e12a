import type { AnswerType } from '../history/record.ts';

const NUMBER_WORDS = new RegExp(
  [
    '\\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen',
    '|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|dozen|once|twice)\\b',
  ].join(''),
  'i',
);
const MONTH =
  /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)\b/i;
const YEAR = /\b(19|20)\d{2}\b/;
const ISO = /\b\d{4}-\d{2}(-\d{2})?\b/;
const WEEKDAY = /\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i;

/** Items of a list answer: split on commas, semicolons, newlines and a final "and". */
export function listItems(answer: string): string[] {
  return answer
    .split(/\s*(?:[,;\n]|\band\b)\s*/i)
    .map((s) => s.replace(/^[-*•\s]+|[.\s]+$/g, '').trim())
    .filter(Boolean);
}

/**
 * Whether `answer` has the form its declared type promises: a number (digits or number words, optionally with
 * a unit), a calendar date (ISO, or a day/month/year expression), yes/no, a list of at least two items, or
 * non-empty text. Returns the reason it does not, or undefined when it does.
 */
export function answerTypeProblem(answer: string, type: AnswerType): string | undefined {
  const a = answer.trim();
  if (!a) return 'empty answer';
  const words = a.split(/\s+/).length;
  switch (type) {
    case 'number':
      if (!/\d/.test(a) && !NUMBER_WORDS.test(a)) return 'a number answer holds no number';
      if (words > 8) return 'a number answer is longer than 8 words';
      return undefined;
    case 'date':
      if (ISO.test(a) || YEAR.test(a) || (MONTH.test(a) && /\d/.test(a)) || (WEEKDAY.test(a) && /\d/.test(a))) return undefined;
      return 'a date answer names no calendar date';
    case 'boolean':
      return /^(yes|no|true|false)\b/i.test(a) ? undefined : 'a boolean answer is not yes/no';
    case 'list':
      return listItems(a).length >= 2 ? undefined : 'a list answer has fewer than two items';
    case 'text':
      return undefined;
  }
}
