import { describe, expect, it } from 'vitest';
import { cutoffInstant, groupByVisibleRecords, isVisible, visibleRecords } from '../src/evaluate/date-filter.ts';

const records = [
  { id: 'a', time: '2024-01-01T09:00:00' },
  { id: 'b', time: '2024-01-05T23:30:00' },
  { id: 'c' }, // no time: always visible
  { id: 'd', time: '2024-01-06' },
  { id: 'e', time: '2024-02-01T00:00:00Z' },
  { id: 'f', time: 'sometime in spring' }, // unparseable: kept
];

describe('question-date protocol', () => {
  it('a date-only cutoff includes that whole day and nothing after it', () => {
    const cut = cutoffInstant('2024-01-05');
    expect(visibleRecords(records, cut).map((r) => r.id)).toEqual(['a', 'b', 'c', 'f']);
    expect(visibleRecords(records, cutoffInstant('2024-01-06')).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'f']);
  });

  it('a date-time cutoff is an instant', () => {
    const cut = cutoffInstant('2024-01-05T12:00:00');
    expect(isVisible({ time: '2024-01-05T11:59:59' }, cut)).toBe(true);
    expect(isVisible({ time: '2024-01-05T12:00:01' }, cut)).toBe(false);
  });

  it('no date or an unparseable date means every record', () => {
    expect(cutoffInstant(undefined)).toBeNull();
    expect(cutoffInstant('next week')).toBeNull();
    expect(visibleRecords(records, null)).toHaveLength(records.length);
  });

  it('groups questions by visible record set: dates with no record between them share one memory', () => {
    const questions = [
      { id: 'q1', date: '2024-01-05' },
      { id: 'q2' },
      { id: 'q3', date: '2024-01-04' }, // same visible set as 2024-01-02..01-05? no: b is on 01-05
      { id: 'q4', date: '2024-01-02' },
      { id: 'q5', date: '2024-03-01' }, // sees everything: joins the undated group
      { id: 'q6', date: '2023-12-01' }, // before every dated record: only c and f
    ];
    const groups = groupByVisibleRecords(records, questions);
    expect(groups.map((g) => [g.visible, g.questions.map((q) => q.id)])).toEqual([
      [2, ['q6']],
      [3, ['q3', 'q4']],
      [4, ['q1']],
      [6, ['q2', 'q5']],
    ]);
    expect(groups.at(-1)!.cutoff).toBeNull();
    // The group's cutoff selects exactly the records its questions may see.
    const g3 = groups[1]!;
    expect(visibleRecords(records, g3.cutoff).map((r) => r.id)).toEqual(['a', 'c', 'f']);
  });
});
