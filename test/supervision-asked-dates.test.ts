import { describe, expect, it } from 'vitest';
import { ASKED_AFTER_DECILES, ASKING_STEP, askedDayOf, askedForm, createAskedDays } from '../src/supervision/rule-based/asked-dates.ts';
import { createRng } from '../src/util/rng.ts';
import { resolveDates } from '../src/text/resolve-dates.ts';

const asked = '2024-12-16';

describe('questions asked on a day', () => {
  it('are asked the day after the last dated record', () => {
    expect(askedDayOf([{ time: '2024-02-01' }, { time: '2024-12-31T20:54:00' }, {}])).toBe('2025-01-01');
    expect(askedDayOf([{}, { time: 'sometime' }])).toBeUndefined();
  });

  it("in a user's history are asked a drawn delay after the item's latest dated evidence, on a monthly grid", () => {
    const records = [
      { id: 'a', time: '2024-01-10T09:00:00' },
      { id: 'b', time: '2024-03-02' },
      { id: 'doc' },
      { id: 'c', time: '2024-06-30T23:10:00' },
    ];
    const days = createAskedDays(records, true);
    expect(days.perItem).toBe(true);
    const rng = createRng(7);
    const delays: number[] = [];
    for (let i = 0; i < 400; i++) {
      const day = days.dayFor(['a', 'b', 'doc'], rng)!;
      delays.push((Date.parse(day) - Date.parse('2024-03-02')) / 86_400_000);
    }
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...delays)).toBeLessThanOrEqual(ASKED_AFTER_DECILES[10] + ASKING_STEP / 2);
    // Asked on the monthly grid from the first dated day (2024-01-10): 2024-03-10 is 8 days after the evidence.
    expect(delays.every((d) => (d - 8) % ASKING_STEP === 0)).toBe(true);
    // The drawn delays follow the development questions' deciles: about half within the median's 38 days.
    const median = [...delays].sort((x, y) => x - y)[200]!;
    expect(median).toBeGreaterThan(30);
    expect(median).toBeLessThan(46);
    // Undated evidence (a document): the first grid day after one of the history's dated records.
    const after = new Set(['2024-02-09', '2024-03-10', '2024-07-08']);
    const seen = new Set<string>();
    for (let i = 0; i < 60; i++) seen.add(days.dayFor(['doc'], rng)!);
    expect([...seen].every((d) => after.has(d))).toBe(true);
    expect(seen.size).toBe(3);
    // Chats between people: every item the day after the history, with no draw.
    const end = createAskedDays(records, false);
    const quiet = createRng(7);
    expect(end.dayFor(['a'], quiet)).toBe('2024-07-01');
    expect(quiet.next()).toBe(createRng(7).next());
    expect(createAskedDays([{ id: 'x' }], true).dayFor(['x'], rng)).toBeUndefined();
  });

  it('write a recent date without its year when the resolver reads it back as the same day', () => {
    const rng = createRng(1);
    const forms = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const q = askedForm('What did Ana cook on 7 July 2024 for her sister?', asked, 0, rng);
      forms.add(q);
      const read = resolveDates(q, asked);
      expect(read.map((d) => d.date)).toEqual(['2024-07-07']);
    }
    // The forms real questions use, by weight: "July 7th", "July 7", now and then "7 July".
    expect(forms).toEqual(
      new Set([
        'What did Ana cook on July 7th for her sister?',
        'What did Ana cook on July 7 for her sister?',
        'What did Ana cook on 7 July for her sister?',
      ]),
    );
    expect(askedForm('Who called in November 2024?', asked, 0, rng)).toBe('Who called in November?');
  });

  it('keep the year where the question would otherwise mean another year, and where a share draws it', () => {
    const rng = createRng(2);
    // Read on 16 December, "in May" is the coming May: the question keeps its year.
    expect(askedForm('Who called in May 2024?', asked, 0, rng)).toBe('Who called in May 2024?');
    expect(askedForm('What happened on 2 December 2023?', asked, 0, rng)).toBe('What happened on 2 December 2023?');
    expect(askedForm('Who called in November 2024?', asked, 1, rng)).toBe('Who called in November 2024?');
    let kept = 0;
    for (let i = 0; i < 400; i++) kept += askedForm('Who called in November 2024?', asked, 0.2, rng).includes('2024') ? 1 : 0;
    expect(kept).toBeGreaterThan(50);
    expect(kept).toBeLessThan(110);
  });

  it('leave dates in titles and the second date of a range as written', () => {
    const rng = createRng(3);
    const title = 'What does the document “Garden Log — November 26, 2024” say about kale?';
    expect(askedForm(title, asked, 0, rng)).toBe(title);
    // The range's year belongs to both months; the first has none to drop.
    const range = 'In how many conversations between September and November 2024 did Wi-Fi come up?';
    expect(askedForm(range, asked, 0, rng)).toBe(range);
  });
});
