import { describe, expect, it } from 'vitest';
import {
  answersMatch,
  isAbstention,
  normalizeAnswer,
  normalizeText,
  parseBoolean,
  parseNumberAnswer,
  splitListItems,
} from '../src/scoring/answer-match.ts';
import { addDays, findDates, formatDate, parseExactDate } from '../src/text/date-parse.ts';

describe('normalizeText', () => {
  it('lower-cases, strips punctuation and articles, collapses whitespace', () => {
    expect(normalizeText('  The  Adoption-Agency, an LGBTQ+ one! ')).toBe('adoption agency lgbtq one');
    expect(normalizeText("Caroline's   guinea pig.")).toBe('carolines guinea pig');
    expect(normalizeText('Theater')).toBe('theater');
  });
});

describe('text answers', () => {
  it('match after normalising', () => {
    expect(answersMatch('the Guinea Pig.', 'guinea pig', 'text')).toBe(true);
    expect(answersMatch('a guinea pig', 'hamster', 'text')).toBe(false);
    expect(answersMatch('', '', 'text')).toBe(false);
  });
});

describe('list answers', () => {
  it('split on commas, semicolons and "and"', () => {
    expect(splitListItems('pottery, camping; painting and swimming')).toEqual(['pottery', 'camping', 'painting', 'swimming']);
    expect(splitListItems('beach, mountains, and the forest')).toEqual(['beach', 'mountains', 'forest']);
  });
  it('are equal as sets', () => {
    expect(answersMatch('Camping, pottery and painting', 'painting, pottery, camping', 'list')).toBe(true);
    expect(answersMatch('camping, pottery', 'painting, pottery, camping', 'list')).toBe(false);
    expect(answersMatch('camping, camping, pottery', 'pottery and camping', 'list')).toBe(true);
    expect(normalizeAnswer('B, x and C', 'list')).toBe('b | c | x');
  });
});

describe('number answers', () => {
  it('parse digits, words, units and currency', () => {
    expect(parseNumberAnswer('three')).toEqual({ value: 3, unit: '' });
    expect(parseNumberAnswer('twenty-five minutes')).toEqual({ value: 25, unit: 'minute' });
    expect(parseNumberAnswer('25 min')).toEqual({ value: 25, unit: 'minute' });
    expect(parseNumberAnswer('$1,200')).toEqual({ value: 1200, unit: 'dollar' });
    expect(parseNumberAnswer('3.5 hrs')).toEqual({ value: 3.5, unit: 'hour' });
    expect(parseNumberAnswer('a dozen eggs')).toEqual({ value: 12, unit: 'egg' });
    expect(parseNumberAnswer('two hundred and five')).toEqual({ value: 205, unit: '' });
    expect(parseNumberAnswer('about 4 years')).toEqual({ value: 4, unit: 'year' });
    expect(parseNumberAnswer('twice')).toEqual({ value: 2, unit: '' });
    expect(parseNumberAnswer('3 or 4')).toBeNull();
    expect(parseNumberAnswer('many')).toBeNull();
  });
  it('match on value and unit', () => {
    expect(answersMatch('25 minutes', '25 min', 'number')).toBe(true);
    expect(answersMatch('three', '3', 'number')).toBe(true);
    expect(answersMatch('3 kids', 'three', 'number')).toBe(true);
    expect(answersMatch('3 hours', '3 minutes', 'number')).toBe(false);
    expect(answersMatch('4', '5', 'number')).toBe(false);
    expect(normalizeAnswer('Twenty five mins', 'number')).toBe('25 minute');
  });
});

describe('boolean answers', () => {
  it('match yes/no/true/false exactly, hedges allowed', () => {
    expect(parseBoolean('Yes, she is supportive')).toBe('yes');
    expect(parseBoolean('Likely no')).toBe('no');
    expect(parseBoolean('maybe')).toBeNull();
    expect(answersMatch('true', 'Yes', 'boolean')).toBe(true);
    expect(answersMatch('No.', 'false', 'boolean')).toBe(true);
    expect(answersMatch('yes', 'no', 'boolean')).toBe(false);
  });
});

describe('date answers', () => {
  it('parse exact dates in several formats', () => {
    const may8 = { year: 2023, month: 5, day: 8 };
    expect(parseExactDate('8 May 2023')).toEqual(may8);
    expect(parseExactDate('May 8, 2023')).toEqual(may8);
    expect(parseExactDate('2023-05-08')).toEqual(may8);
    expect(parseExactDate('on the 8th of May, 2023')).toEqual(may8);
    expect(parseExactDate('1:56 pm on 8 May, 2023')).toEqual(may8);
    expect(parseExactDate('Monday, May 8th 2023')).toEqual(may8);
    expect(parseExactDate('May 2023')).toEqual({ year: 2023, month: 5 });
    expect(parseExactDate('2022')).toEqual({ year: 2022 });
    expect(parseExactDate('the week before 9 June 2023')).toBeNull();
    expect(parseExactDate('31 February 2023')).toBeNull();
  });
  it('match the same calendar date only', () => {
    expect(answersMatch('May 8, 2023', '8 May 2023', 'date')).toBe(true);
    expect(answersMatch('2023-05-08', '8 May 2023', 'date')).toBe(true);
    expect(answersMatch('7 May 2023', '8 May 2023', 'date')).toBe(false);
    expect(answersMatch('May 2023', '8 May 2023', 'date')).toBe(false);
    expect(answersMatch('the week before 9 June 2023', '9 June 2023', 'date')).toBe(false);
    // Two identical relative phrases are still the same text.
    expect(answersMatch('The week before 9 June 2023', 'the week before 9 June 2023', 'date')).toBe(true);
    expect(normalizeAnswer('May 8, 2023', 'date')).toBe('2023-05-08');
  });
  it('finds every date in running text, longest match first', () => {
    const found = findDates('Met on 8 May 2023, again in June 2023 and in 2024.');
    expect(found.map((d) => formatDate(d.date))).toEqual(['8 May 2023', 'June 2023', '2024']);
    expect(formatDate(addDays({ year: 2023, month: 3, day: 1 }, -1))).toBe('28 February 2023');
  });
});

describe('abstention', () => {
  it('recognises declining answers', () => {
    expect(isAbstention('Not mentioned')).toBe(true);
    expect(isAbstention('No information available.')).toBe(true);
    expect(isAbstention("You didn't mention this")).toBe(true);
    expect(isAbstention('Sweden')).toBe(false);
  });
});
