import { describe, expect, it } from 'vitest';
import { countTokens, stem, TOKEN_ENCODING, terms, tokenize } from '../src/text/text.ts';

describe('text', () => {
  it('tokenizes words with inner apostrophes and hyphens', () => {
    expect(tokenize("Caroline's LGBTQ support-group, on 8 May!")).toEqual(["caroline's", 'lgbtq', 'support-group', 'on', '8', 'may']);
  });
  it('stems with Porter and drops stopwords', () => {
    expect(stem('running')).toBe('run');
    expect(terms('She was running to the meetings')).toEqual(['run', 'meet']);
    expect(terms('the meetings', { stopwords: false, stem: false })).toEqual(['the', 'meetings']);
  });
  it('counts o200k_base BPE tokens, special-token markers as plain text', () => {
    expect(TOKEN_ENCODING).toBe('o200k_base');
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello, world')).toBe(3);
    expect(countTokens('a'.repeat(40))).toBe(5);
    expect(countTokens('hi <|endoftext|> there')).toBeGreaterThan(3);
  });
  it('charges a squeezed sentence no less than the spaced one', () => {
    const spaced = 'I moved from Sweden four years ago with my two best friends and we still cook together.';
    expect(countTokens(spaced.replace(/\s+/g, ''))).toBeGreaterThanOrEqual(countTokens(spaced));
  });
});
