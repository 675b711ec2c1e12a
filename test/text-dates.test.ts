import { describe, expect, it } from 'vitest';
import { daysBetween, findDates, formatDate, isoDate, parseExactDate } from '../src/text/date-parse.ts';
import { referenceInstant, resolveDates } from '../src/text/resolve-dates.ts';

const found = (text: string) => findDates(text).map((d) => [d.text, isoDate(d.date)]);

describe('findDates (explicit dates only)', () => {
  it('reads the formats people write, with offsets of the date itself', () => {
    const text = 'We met on 8 May, 2023, moved in June 2022 and married on Monday, May 8th 2023 at 3pm.';
    const ds = findDates(text);
    expect(ds.map((d) => [d.text, isoDate(d.date)])).toEqual([
      ['8 May, 2023', '2023-05-08'],
      ['June 2022', '2022-06'],
      ['Monday, May 8th 2023 at 3pm', '2023-05-08'],
    ]);
    for (const d of ds) expect(text.slice(d.start, d.end)).toBe(d.text);
  });
  it('finds the explicit date inside a relative phrase, and nothing in a phrase without one', () => {
    expect(found('the week before 9 June 2023')).toEqual([['9 June 2023', '2023-06-09']]);
    expect(found('yesterday, two weeks ago, last Saturday, next month, 8 May')).toEqual([]);
    expect(parseExactDate('the week before 9 June 2023')).toBeNull();
  });
  it('keeps both ends of a range as separate dates', () => {
    expect(found('from 2024-06-01 to 2024-06-05')).toEqual([
      ['2024-06-01', '2024-06-01'],
      ['2024-06-05', '2024-06-05'],
    ]);
  });
  it('reads numeric dates only in an unambiguous order, and bare years', () => {
    expect(found('on 13/5/2023, on 5/13/2023, on 5/8/2023')).toEqual([
      ['13/5/2023', '2023-05-13'],
      ['5/13/2023', '2023-05-13'],
      ['2023', '2023'],
    ]);
    expect(found('since 2019')).toEqual([['2019', '2019']]);
  });
  it('does not read dates inside words or across lines, and reads them inside Markdown italics and file names', () => {
    expect(found('https://example.org/yc/apr2017/family')).toEqual([]);
    expect(found('v1.10\n2024-06-05 notes')).toEqual([['2024-06-05', '2024-06-05']]);
    expect(found('_June 29, 2024_')).toEqual([['June 29, 2024', '2024-06-29']]);
    expect(found('photo_2024-07-12_siteA.jpg')).toEqual([['2024-07-12', '2024-07-12']]);
    expect(found('31 February 2023')).toEqual([['2023', '2023']]);
    expect(formatDate(parseExactDate('1:56 pm on 8 May, 2023')!)).toBe('8 May 2023');
  });
});

describe('resolveDates (what tools.text.dates returns)', () => {
  const text = 'Yesterday I ran; last Saturday we hiked. Two weeks ago I moved, next month I fly, last year I married. At 5pm I ate.';
  it('resolves relative phrases against the reference, at the precision the phrase has', () => {
    expect(resolveDates(text, '2023-05-08T13:56:00').map((d) => [d.text, d.date])).toEqual([
      ['Yesterday', '2023-05-07'],
      ['last Saturday', '2023-05-06'],
      ['Two weeks ago', '2023-04-24'],
      ['next month', '2023-06'],
      ['last year', '2022'],
    ]);
    expect(resolveDates('tomorrow', '2023-12-31')).toEqual([{ text: 'tomorrow', start: 0, end: 8, date: '2024-01-01' }]);
    // The reference is read as written: its zone does not move the day "yesterday" is counted from.
    expect(resolveDates('yesterday', '2023-05-08T23:30:00-07:00')[0]!.date).toBe('2023-05-07');
  });
  it('reads no day in ordinary words: a weekday abbreviation in lower case, a part of day on its own', () => {
    const said = '2024-07-13';
    for (const prose of ['I sat on the porch.', 'Oliver lounged in the sun.', 'We wed in a garden.', 'Later that morning we left.']) {
      expect(resolveDates(prose, said)).toEqual([]);
    }
    expect(resolveDates('In the evening we cooked.', said)).toEqual([]);
    // Written as a date, or naming the day, they still resolve.
    expect(resolveDates('We met on Sat.', said).map((d) => d.date)).toEqual(['2024-07-13']);
    expect(resolveDates('This morning I ran, and tonight I read.', said).map((d) => [d.text, d.date])).toEqual([
      ['This morning', '2024-07-13'],
      ['tonight', '2024-07-13'],
    ]);
  });
  it('without a reference returns only explicit dates, so the clock never matters', () => {
    expect(resolveDates(`${text} On 8 May 2023.`)).toEqual([{ text: '8 May 2023', start: 120, end: 130, date: '2023-05-08' }]);
  });
  it('rejects a reference that is not an ISO date', () => {
    expect(() => resolveDates('yesterday', '8 May 2023')).toThrow(/not an ISO date/);
    expect(referenceInstant('2023-02-30')).toBeUndefined();
    expect(referenceInstant('2023-05-08')?.toISOString()).toBe('2023-05-08T12:00:00.000Z');
  });
});

describe('daysBetween', () => {
  it('counts calendar days across months and leap days, ignoring a time of day', () => {
    expect(daysBetween('2023-05-08', '2023-07-02')).toBe(55);
    expect(daysBetween('2024-02-28', '2024-03-01')).toBe(2);
    expect(daysBetween('2023-07-02T23:59:00', '2023-05-08T00:01:00')).toBe(-55);
  });
});
