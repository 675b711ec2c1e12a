// The generator draws from the same seeded stream as the search (mulberry32); a resumed run picks the same bundles.
export { createRng, type Rng } from '../util/rng.ts';

/**
 * Plain FNV-1a of a string: item ids and split keys derive from it, so it must not change (the search's
 * hashString adds a finaliser for seeding and would renumber every generated item).
 */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A short stable hex id of a string. */
export function shortHash(text: string): string {
  return hashString(text).toString(16).padStart(8, '0');
}
