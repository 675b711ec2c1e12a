import { describe, expect, it } from 'vitest';
import { countTokens, stem, terms, tokenize } from '../src/text/text.ts';

describe('text', () => {
  it('tokenizes words with inner apostrophes and hyphens', () => {
    expect(tokenize("Caroline's LGBTQ support-group, on 8 May!")).toEqual(["caroline's", 'lgbtq', 'support-group', 'on', '8', 'may']);
  });
  it('stems with Porter and drops stopwords', () => {
    expect(stem('running')).toBe('run');
    expect(terms('She was running to the meetings')).toEqual(['run', 'meet']);
    expect(terms('the meetings', { stopwords: false, stem: false })).toEqual(['the', 'meetings']);
  });
  it('counts tokens monotonically in text length', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello, world')).toBe(3);
    expect(countTokens('a'.repeat(40))).toBe(8);
  });
});
