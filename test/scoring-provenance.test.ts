import { describe, expect, it } from 'vitest';
import { VerifiedMemory } from '../src/evaluate/verified-memory.ts';
import { QUOTE_WORDS, RecordWords, verifySources } from '../src/scoring/provenance.ts';
import { countTokens } from '../src/text/text.ts';

const RECORDS = [
  { id: 'long', text: 'I moved from Sweden four years ago with my two best friends, and we still cook together every Sunday.' },
  { id: 'short', text: 'Thanks, Mel!' },
  { id: 'yes', text: 'Yes!' },
  { id: 'bike', text: "Ben bought a blue Cannondale road bike for his knee's rehab." },
  { id: 'emoji', text: '🎉🎉' },
  { id: 'blank', text: '   ' },
];
const words = new RecordWords(RECORDS);

describe('verified provenance (the MemoryUnit.sources rule)', () => {
  it('credits a record whose whole word sequence the text holds, ignoring case, spacing, line breaks and punctuation', () => {
    const unit =
      '[8 May 2023] CAROLINE:\n  i moved from sweden -- four years ago with my two best friends and we still cook together every sunday';
    expect(verifySources(unit, ['long'], words)).toEqual({ verified: ['long'], unverified: [] });
    expect(verifySources('Ben bought a blue Cannondale road bike for his knee’s rehab', ['bike'], words).verified).toEqual(['bike']);
  });

  it(`credits a quote of ${QUOTE_WORDS} consecutive words of a longer record, and nothing shorter`, () => {
    expect(QUOTE_WORDS).toBe(8);
    const eight = 'Summary: Caroline said "four years ago with my two best friends" about Sweden.';
    expect(verifySources(eight, ['long'], words).verified).toEqual(['long']);
    const seven = 'Summary: Caroline said "four years ago with my two best" and more.';
    expect(verifySources(seven, ['long'], words)).toEqual({ verified: [], unverified: ['long'] });
    // A record of at most 8 words must appear whole.
    expect(verifySources('Ben bought a blue Cannondale road bike', ['bike'], words).verified).toEqual([]);
  });

  it('never credits a claim the text does not carry, nor an id that is not a given record', () => {
    const r = verifySources('We talked about the weather.', ['long', 'bike', 'nope', 'long'], words);
    expect(r).toEqual({ verified: [], unverified: ['long', 'bike', 'nope'] });
  });

  it('gives every credited record its own span: a short record cannot ride on words of a longer one', () => {
    const text = 'Thanks, Mel! Yes! you are right';
    expect(verifySources(text, ['short', 'yes'], words).verified).toEqual(['short', 'yes']);
    // "thanks mel" occurs once; two records with that text need it twice.
    const twins = new RecordWords([
      { id: 'a', text: 'Thanks, Mel!' },
      { id: 'b', text: 'thanks mel' },
    ]);
    expect(verifySources('Thanks, Mel!', ['a', 'b'], twins)).toEqual({ verified: ['a'], unverified: ['b'] });
    expect(verifySources('Thanks, Mel! … thanks mel', ['a', 'b'], twins).verified).toEqual(['a', 'b']);
    // The long record is claimed first, so the "yes" inside it cannot be taken for the "Yes!" record.
    const inside = new RecordWords([
      { id: 'y', text: 'yes' },
      { id: 'l', text: 'yes I would love to join the pottery class on Tuesday' },
    ]);
    expect(verifySources('Yes, I would love to join the pottery class on Tuesday.', ['y', 'l'], inside).verified).toEqual(['l']);
  });

  it('orders verified records by where they appear in the text, not by claim order', () => {
    const text = `${RECORDS[3]!.text}\n${RECORDS[0]!.text}`;
    expect(verifySources(text, ['long', 'bike'], words).verified).toEqual(['bike', 'long']);
  });

  it('bounds the work of checking a unit that claims thousands of overlapping records', () => {
    // 20,000 words of "a", 3,000 claimed records of eight "a"s: at most 2,500 disjoint spans exist, and the search
    // for free spans stops at a work bound proportional to the text instead of scanning it once per claim.
    const many = Array.from({ length: 3000 }, (_, i) => ({ id: `a${i}`, text: 'a a a a a a a a' }));
    const r = verifySources(
      'a '.repeat(20_000),
      many.map((m) => m.id),
      new RecordWords(many),
    );
    expect(r.verified.length).toBeGreaterThan(0);
    expect(r.verified.length).toBeLessThanOrEqual(2500);
    expect(r.verified.length + r.unverified.length).toBe(3000);
  });

  it('matches a record without words by its trimmed text, and never an empty record', () => {
    expect(verifySources('party time 🎉🎉!', ['emoji', 'blank'], words)).toEqual({ verified: ['emoji'], unverified: ['blank'] });
  });
});

describe('VerifiedMemory: what evaluation credits', () => {
  const records = [
    { id: 'r1', text: 'I adopted a golden retriever puppy named Biscuit last week.' },
    { id: 'r2', text: 'My sister trains dogs in Porto and can give tips.' },
    { id: 'r3', text: 'I started a pottery class on Tuesday evenings at the community centre.' },
    { id: 'r4', text: 'I am moving to a bigger apartment in Braga next month.' },
  ];
  const units = [
    { id: 'u1', text: `Ana: ${records[0]!.text}`, sources: ['r1'] },
    { id: 'win', text: `${records[1]!.text} ${records[2]!.text}`, sources: ['r3', 'r2'] },
    { id: 'claimer', text: records[3]!.text, sources: ['r4', 'r1', 'r2', 'r3'] },
    { id: 'empty', text: '', sources: ['r1', 'r2', 'r3', 'r4'] },
  ];
  const memory = new VerifiedMemory(units, records);

  it('expands ranked units to verified records, a window unit in text order, each record once', () => {
    expect(memory.rankedRecords(['empty', 'win', 'claimer', 'u1'])).toEqual(['r2', 'r3', 'r4', 'r1']);
    expect(memory.rankedRecords(['empty', 'win', 'claimer', 'u1'], 2)).toEqual(['r2', 'r3']);
    expect(memory.unverifiedCount(['claimer', 'empty', 'claimer'])).toBe(3 + 4);
  });

  it('recall at the budget keeps the ranked prefix whose unit texts fit the tokens', () => {
    const cost = countTokens(units[1]!.text);
    expect(memory.budgetRecords(['win', 'u1'], cost)).toEqual(['r2', 'r3']);
    expect(memory.budgetRecords(['win', 'u1'], cost - 1)).toEqual([]);
    expect(memory.budgetRecords(['empty', 'win', 'u1'], cost + countTokens(units[0]!.text))).toEqual(['r2', 'r3', 'r1']);
  });

  it('credits delivery only for records the delivered text carries among declared units', () => {
    // Declared but never written: nothing delivered.
    expect(memory.delivered('Nothing useful here.', ['u1', 'win', 'empty'])).toEqual({ units: [], records: [] });
    // A window unit cut in the middle delivers the record that made it whole.
    const cut = `${records[1]!.text} I started a pottery`;
    expect(memory.delivered(cut, ['win'])).toEqual({ units: ['win'], records: ['r2'] });
    // Text of a record that no declared unit verifiably carries is not credited to the design's claims.
    expect(memory.delivered(records[0]!.text, ['claimer', 'empty'])).toEqual({ units: [], records: [] });
    expect(memory.delivered(`${records[3]!.text}\n${units[0]!.text}`, ['u1', 'claimer'])).toEqual({
      units: ['claimer', 'u1'],
      records: ['r4', 'r1'],
    });
  });

  it('finds recoverable gold only in units that carry it', () => {
    const only = new VerifiedMemory([units[2]!, units[3]!], records);
    expect(only.recoverable(['r1', 'r4'])).toEqual(['r4']);
    expect(memory.recoverable(['r1', 'r2', 'r3', 'r4'])).toEqual(['r1', 'r2', 'r3', 'r4']);
  });
});
