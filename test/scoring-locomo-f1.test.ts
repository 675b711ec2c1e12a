import { describe, expect, it } from 'vitest';
import { locomoMultiAnswerF1, locomoNormalize, locomoScore, locomoTokenF1 } from '../src/scoring/locomo-f1.ts';

describe('LoCoMo official scoring', () => {
  it('normalises like normalize_answer (commas, punctuation, a/an/the/and)', () => {
    expect(locomoNormalize('The Sunday before 25 May, 2023.')).toBe('sunday before 25 may 2023');
    expect(locomoNormalize('Bach and Mozart')).toBe('bach mozart');
    expect(locomoNormalize("kids' books - classics")).toBe('kids books classics');
  });
  it('computes Porter-stemmed token F1', () => {
    expect(locomoTokenF1('Adoption agencies', 'adoption agencies')).toBe(1);
    expect(locomoTokenF1('running races', 'run race')).toBe(1);
    expect(locomoTokenF1('7 May 2023', '8 May 2023')).toBeCloseTo(2 / 3, 10);
    // 4 tokens after dropping 'a': precision 1/4, recall 1 → F1 0.4
    expect(locomoTokenF1('a guinea pig named Oscar', 'Oscar')).toBeCloseTo(0.4, 10);
    expect(locomoTokenF1('Sweden', 'Norway')).toBe(0);
    expect(locomoTokenF1('', 'Norway')).toBe(0);
  });
  it('category 1: mean over gold parts of the best prediction part', () => {
    expect(locomoMultiAnswerF1('pottery, camping', 'pottery, camping, painting, swimming')).toBe(0.5);
    expect(locomoScore('camping, pottery', 'pottery, camping', 1)).toBe(1);
    // one gold part, prediction parts: best of 0 and 1
    expect(locomoScore('Paris, Sweden', 'Sweden', '1')).toBe(1);
  });
  it('category 3: gold cut at the first semicolon', () => {
    expect(locomoScore('Likely no', 'Likely no; though she likes reading, she wants to be a counselor', 3)).toBe(1);
  });
  it('categories 2 and 4: plain F1 without splitting', () => {
    expect(locomoScore('Bach, Mozart', 'Bach and Mozart', 4)).toBe(1);
    expect(locomoScore('The sunday before 25 May 2023', 'sunday before 25 May 2023', 2)).toBe(1);
  });
  it('category 5: 1 iff the prediction declines in the accepted words', () => {
    expect(locomoScore('Not mentioned in the conversation', 'anything', 5)).toBe(1);
    expect(locomoScore('No information available', '', 5)).toBe(1);
    expect(locomoScore('Sweden', 'Not mentioned', 5)).toBe(0);
  });
  it('rejects unknown categories', () => {
    expect(() => locomoScore('x', 'y', 6)).toThrow(RangeError);
  });
});
