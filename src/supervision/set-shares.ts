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
  const drop = new Set<number>();
  for (;;) {
    const size = kept.length - drop.size;
    const counts = new Map<string, number[]>();
    kept.forEach((it, k) => {
      if (drop.has(k)) return;
      const cap = capOf(it);
      if (cap) counts.set(cap.group, [...(counts.get(cap.group) ?? []), k]);
    });
    let changed = false;
    for (const [, at] of counts) {
      const allowed = Math.ceil(size * capOf(kept[at[0]!]!)!.share);
      if (at.length <= allowed) continue;
      // One over-share item at a time: each drop shrinks the set, and so every group's allowance.
      drop.add(at[at.length - 1]!);
      changed = true;
      break;
    }
    if (!changed) break;
  }
  return { items: kept.filter((_, k) => !drop.has(k)), dropped: drop.size };
}
