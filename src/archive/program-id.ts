import { createHash } from 'node:crypto';

/** sha256 (hex) of text; for sources this equals compile.ts's programHash, so archive and cache agree. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A program's id from its iteration and content hash, e.g. `i007-3fa9c2b1d0e4`: sortable by iteration, stable
 * across a resumed run with the same seed (the same proposal gets the same id), readable in file names.
 */
export function programId(iteration: number, contentHash: string): string {
  if (!Number.isInteger(iteration) || iteration < 0)
    throw new RangeError(`programId: iteration must be a non-negative integer, got ${iteration}`);
  if (!/^[0-9a-f]{12,}$/.test(contentHash)) throw new RangeError('programId: contentHash must be a hex digest');
  return `i${String(iteration).padStart(3, '0')}-${contentHash.slice(0, 12)}`;
}

/** JSON with sorted object keys, so equal values hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
