import { describe, expect, it } from 'vitest';
import { needsObject } from '../src/supervision/rule-based/verb-frames.ts';

// Every case read off WordNet 3.1's own frames (first three senses of each verb), not assumed.
describe('needsObject (WordNet verb frames)', () => {
  it('flags verbs whose frequent senses all take an object: the clause lost it to a relative clause', () => {
    // "the progress I made", "the day I spent", "what I noticed", "the letter I sent", "the notes I reviewed"
    for (const verb of ['make', 'spend', 'notice', 'note', 'send', 'review']) expect(needsObject(verb), verb).toBe(true);
  });

  it('passes verbs with an intransitive or "Somebody ----s PP" frame among their frequent senses', () => {
    // "I arrived at the archives", "we met at the café", "I dug in the garden"
    for (const verb of ['arrive', 'go', 'walk', 'settle', 'begin', 'leave', 'meet', 'dig']) expect(needsObject(verb), verb).toBe(false);
  });

  it('counts a frame marked for another word of the synset only for that word', () => {
    // discover's second sense shares a synset with "get wind" and "get a line", whose own frames include 22 "Somebody ----s PP"
    expect(needsObject('discover')).toBe(true);
  });

  it('reads a phrasal verb spelled with spaces or underscores, apart from its bare verb', () => {
    expect(needsObject('pick up')).toBe(true);
    expect(needsObject('Pick_Up')).toBe(true);
    expect(needsObject('pick')).toBe(false);
  });

  it('does not flag what WordNet cannot judge: unknown words and inflected forms', () => {
    expect(needsObject('zzzq')).toBe(false);
    expect(needsObject('noticed')).toBe(false);
    expect(needsObject('')).toBe(false);
  });
});
