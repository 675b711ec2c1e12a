import type { AnswerType } from './record.ts';
import { isDateAnswer } from '../text/dataset-dates.ts';

const NUMBER_WORDS = new Set(['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve']);

/**
 * Infers the answer type of an official answer. Conservative on purpose: `number` only when the whole answer is
 * a number (digits, or a small number word), `date` only when the whole answer is a calendar date; everything
 * else is `text`, because a wrong `list`/`number` type would make the scorer stricter than the gold warrants.
 */
export function inferAnswerType(answer: string): AnswerType {
  const s = answer.trim().replace(/\.$/, '');
  if (/^[-+]?\d{1,3}(,\d{3})*(\.\d+)?$|^[-+]?\d+(\.\d+)?$/.test(s)) return 'number';
  if (NUMBER_WORDS.has(s.toLowerCase())) return 'number';
  if (isDateAnswer(s)) return 'date';
  return 'text';
}
