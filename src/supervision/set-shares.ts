/**
 * Template groups capped from the first item (rule-based/fill-caps.ts) are calibrated as shares of a set, but the
 * cap is counted against the target while the set is generated: the final size is not known until the history
 * stops yielding. A history that yields fewer items than the target (a LoCoMo conversation: about 250 of 400) would
 * then keep each group at its share of 400, and those groups are its easiest questions ("Did Caroline go to the
 * parade before …?", "When did Melanie talk about …?"): on LoCoMo's conversations the yes/no group alone was 16% of
 * the set against its 10%. This pass brings every such group back to its share of the set that was kept.
 */

/** The cap a kept item counts against: its group and the share of the set the group may take. */
export interface SetShareCap {
  group: string;
  share: number;
}

/**
 * `kept` (in the order it was kept) without the last-kept items of each over-share group, until every group holds
 * at most ceil(share × size) of the set's final size; also how many were dropped. Deterministic in the order, so a
 * resumed run that keeps the same items drops the same ones.
 */
export function holdGroupShares<T>(kept: readonly T[], capOf: (item: T) => SetShareCap | undefined): { items: T[]; dropped: number } {
  const caps = kept.map(capOf);
  // Each group's items by position, in the order kept; a group's order is that of its first item.
  const members = new Map<string, number[]>();
  caps.forEach((cap, k) => {
    if (!cap) return;
    const at = members.get(cap.group);
    if (at) at.push(k);
    else members.set(cap.group, [k]);
  });
  const drop = new Set<number>();
  for (let changed = true; changed; ) {
    changed = false;
    const size = kept.length - drop.size;
    for (const at of members.values()) {
      if (at.length <= Math.ceil(size * caps[at[0]!]!.share)) continue;
      // One over-share item at a time: each drop shrinks the set, and so every group's allowance.
      drop.add(at.pop()!);
      changed = true;
      break;
    }
  }
  return { items: kept.filter((_, k) => !drop.has(k)), dropped: drop.size };
}
