import { describe, expect, it } from 'vitest';
import { holdGroupShares } from '../src/supervision/set-shares.ts';

describe('holdGroupShares', () => {
  const capOf = (t: string) =>
    t.startsWith('yn') ? { group: 'yes-no', share: 0.1 } : t.startsWith('m') ? { group: 'mention', share: 0.2 } : undefined;

  it('drops the last-kept items of a group over its share of the final set, shrinking the allowance as it drops', () => {
    // 20 items, 5 yes/no (25%): the set keeps ceil(0.1 × size) of them, and size falls with each drop.
    const kept = ['yn1', 'a', 'b', 'yn2', 'c', 'd', 'yn3', 'e', 'f', 'g', 'yn4', 'h', 'i', 'j', 'k', 'yn5', 'l', 'm1', 'n', 'o'];
    const { items, dropped } = holdGroupShares(kept, capOf);
    expect(dropped).toBe(3);
    expect(items.filter((t) => t.startsWith('yn'))).toEqual(['yn1', 'yn2']);
    expect(items.length).toBe(17);
    expect(items).toContain('m1');
    // Each group within its share of the set that is left.
    expect(items.filter((t) => t.startsWith('yn')).length).toBeLessThanOrEqual(Math.ceil(0.1 * items.length));
  });

  it('leaves a set within its shares, and uncapped items, untouched', () => {
    const kept = ['yn1', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'm1', 'm2'];
    expect(holdGroupShares(kept, capOf)).toEqual({ items: kept, dropped: 0 });
    expect(holdGroupShares(['a', 'b'], capOf)).toEqual({ items: ['a', 'b'], dropped: 0 });
  });
});
