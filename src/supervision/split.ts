import type { QAItem } from '../history/record.ts';
import { hashString } from './rng.ts';

/**
 * Splits items into train and validation BY BUNDLE: items of one bundle, and of bundles that share an evidence
 * record, land on the same side, so near-duplicates never straddle the split. Groups are visited in a
 * hash order (deterministic, independent of generation order) and each goes to the side further below its
 * target share. `bundleOf` names an item's bundle.
 */
export function splitByBundle(items: readonly QAItem[], valShare: number, bundleOf: (item: QAItem) => string): QAItem[] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let p = parent.get(x) ?? x;
    if (p !== x) {
      p = find(p);
      parent.set(x, p);
    }
    return p;
  };
  const union = (a: string, b: string): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  for (const item of items) {
    const b = `b:${bundleOf(item)}`;
    // Items about the same record are near-duplicates in the making; long evidence lists (counts) would chain
    // the whole history into one group, so only short ones join bundles.
    const records = new Set(item.evidence.map((e) => e.record));
    if (records.size <= 2) for (const r of records) union(b, `r:${r}`);
  }
  const size = new Map<string, number>();
  for (const item of items) {
    const g = find(`b:${bundleOf(item)}`);
    size.set(g, (size.get(g) ?? 0) + 1);
  }
  // A chain of shared records can swallow most of a history; such a group falls back to plain bundles
  // (the de-duplicator has already removed items with the same answer and evidence).
  const cap = Math.max(10, Math.ceil(items.length * 0.1));
  const groupOf = (item: QAItem): string => {
    const g = find(`b:${bundleOf(item)}`);
    return size.get(g)! > cap ? `b:${bundleOf(item)}` : g;
  };
  const groups = new Map<string, QAItem[]>();
  for (const item of items) {
    const g = groupOf(item);
    let list = groups.get(g);
    if (!list) groups.set(g, (list = []));
    list.push(item);
  }
  const order = [...groups.keys()].sort((a, b) => hashString(a) - hashString(b) || a.localeCompare(b));
  let val = 0;
  let total = 0;
  const side = new Map<string, 'train' | 'val'>();
  for (const g of order) {
    const n = groups.get(g)!.length;
    const toVal = valShare > 0 && (total === 0 ? valShare >= 0.5 : val / total < valShare);
    side.set(g, toVal ? 'val' : 'train');
    if (toVal) val += n;
    total += n;
  }
  return items.map((item) => ({ ...item, split: side.get(groupOf(item))! }));
}
