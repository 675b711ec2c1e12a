import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';

/**
 * What identifies a response: everything that changes what the model is asked, and where. The API key is
 * deliberately absent (keys rotate; the answer does not depend on who pays).
 */
export interface CacheKeyInput {
  baseURL: string;
  model: string;
  messages: ReadonlyArray<{ role: string; content: string }>;
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  /** The requested response format (e.g. the JSON schema), or undefined for plain text. */
  responseFormat?: unknown;
}

/** What identifies one embedding: the text, the model, the size asked for, and where. */
export interface EmbeddingKeyInput {
  kind: 'embedding';
  baseURL: string;
  model: string;
  input: string;
  dimensions?: number | undefined;
}

/** sha256 (hex) of the canonical JSON of `input` (object keys sorted, undefined fields dropped). */
export function cacheKey(input: CacheKeyInput | EmbeddingKeyInput): string {
  return createHash('sha256')
    .update(canonicalJson({ v: 1, ...input }))
    .digest('hex');
}

/** JSON with object keys sorted at every level, so equal requests hash equally whatever order they were built in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export const CachedResponseSchema = z.object({
  v: z.literal(1),
  key: z.string(),
  model: z.string(),
  /** The reply text; for an embedding, the vector as JSON. */
  text: z.string(),
  usage: z.object({ promptTokens: z.number(), completionTokens: z.number(), cachedTokens: z.number() }),
  /** ISO time the response was first received. */
  createdAt: z.string(),
});
/** One cached model reply (only successful ones are ever written). */
export type CachedResponse = z.infer<typeof CachedResponseSchema>;

/**
 * The on-disk response cache: one JSON file per key under `<dir>/<first two hex>/<key>.json`, written atomically.
 * A file that is unreadable or fails validation counts as a miss (and is overwritten by the next success).
 */
export class ResponseCache {
  constructor(readonly dir: string) {}

  pathFor(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  get(key: string): CachedResponse | undefined {
    let raw: string;
    try {
      raw = readFileSync(this.pathFor(key), 'utf8');
    } catch {
      return undefined;
    }
    try {
      const parsed = CachedResponseSchema.safeParse(JSON.parse(raw));
      return parsed.success && parsed.data.key === key ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  set(entry: CachedResponse): void {
    const value = CachedResponseSchema.parse(entry);
    const path = this.pathFor(value.key);
    mkdirSync(dirname(path), { recursive: true });
    // a random temp name: concurrent writers of the same key (same process, same millisecond) must not collide
    const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      writeFileSync(tmp, JSON.stringify(value));
      renameSync(tmp, path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }
}
