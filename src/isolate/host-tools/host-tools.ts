import type { Bm25Options, Hit, LlmMessage } from '../../../sandbox/contract.ts';
import type { HostTools, HostToolsOptions, ToolMeter } from '../sandbox-api.ts';
import { countTokens, isStopword, stem, terms, tokenize } from '../../text/text.ts';
import { resolveDates } from '../../text/resolve-dates.ts';
import { extendBm25Index, getBm25Index, type GrowingBm25 } from './bm25-index.ts';
import { LOCAL_EMBEDDING_DIM, LOCAL_EMBEDDING_MODEL, localEmbedding, normaliseVector } from './local-embedding.ts';

export { bm25CacheStats, clearBm25Cache } from './bm25-index.ts';

const DEFAULTS = {
  llmTokensPerQuestion: 4000,
  llmTokensPerStore: 200_000,
  logMaxLines: 200,
  logMaxChars: 500,
  bm25MaxDocs: 200_000,
};
/** Indexes one sandbox may hold handles to (a design indexing in a loop fails instead of filling the host). */
const MAX_HANDLES = 10_000;
/**
 * Versions an index grown by `add` leaves behind that stay searchable. Past this many the oldest is released: an
 * app adding one record at a time makes one version per add, and must not run into MAX_HANDLES after 10,000 adds.
 */
const MAX_SUPERSEDED = 1_000;
/** Completion tokens reserved for an llm call that does not say its maxTokens. */
const DEFAULT_COMPLETION_TOKENS = 512;
const MAX_EMBED_TEXTS = 20_000;

/**
 * Designs count the same unit texts for every question (packing a context), and BPE costs ~10–50 µs per text:
 * counts of short texts are kept process-wide, dropped all at once when the table is full.
 */
const tokenMemo = new Map<string, number>();
const MEMO_MAX_ENTRIES = 50_000;
const MEMO_MAX_CHARS = 4_000;

function memoCountTokens(text: string): number {
  if (text.length > MEMO_MAX_CHARS) return countTokens(text);
  let n = tokenMemo.get(text);
  if (n === undefined) {
    if (tokenMemo.size >= MEMO_MAX_ENTRIES) tokenMemo.clear();
    n = countTokens(text);
    tokenMemo.set(text, n);
  }
  return n;
}

function emptyMeter(): ToolMeter {
  return { toolCalls: {}, log: [], logDropped: 0, llmTokens: { prompt: 0, completion: 0 }, bm25CacheHits: 0 };
}

/**
 * Host capabilities for one sandbox. Sync tools run on the host thread while the isolate waits (~1 µs
 * per crossing), so they are cheap enough to call per unit; `embed` and `llm` are async. After the
 * current stage's time limit every tool throws, because isolated-vm's timeout cannot interrupt host code.
 */
export function createHostTools(options: HostToolsOptions = {}): HostTools {
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  const handles: Array<GrowingBm25 | null> = [];
  /** Handles an `add` grew from, oldest first (released past MAX_SUPERSEDED); `released` counts the freed ones. */
  const superseded: number[] = [];
  let released = 0;
  const live = (): number => handles.length - released;
  const indexAt = (handle: number, what: string): GrowingBm25 => {
    const index = handles[handle];
    if (index === null) {
      throw new Error(
        `${what}: index handle ${handle} was released: only the last ${MAX_SUPERSEDED} versions an add grew from are kept; ` +
          'use the index bm25.add returned',
      );
    }
    if (!index) throw new Error(`${what}: unknown index handle`);
    return index;
  };
  let meter = emptyMeter();
  const never = (): boolean => false;
  let pastLimit = never;
  let scope = '';
  /** LLM tokens spent (or reserved by calls in flight) in the current scope. */
  let scopeTokens = 0;

  const tick = (name: string): void => {
    if (pastLimit()) throw new Error(`tools.${name}: the stage is past its time limit`);
    meter.toolCalls[name] = (meter.toolCalls[name] ?? 0) + 1;
  };
  const buildsMemory = (s: string): boolean => s === 'store' || s === 'add';
  const llmCap = (): number => (buildsMemory(scope) ? o.llmTokensPerStore : o.llmTokensPerQuestion);

  const embedder = options.embedder;
  const llm = options.llm;

  return {
    embedModel: embedder?.model ?? LOCAL_EMBEDDING_MODEL,
    embedDim: embedder?.dim ?? LOCAL_EMBEDDING_DIM,
    llmAvailable: llm !== undefined,

    bm25Index(docs: ReadonlyArray<{ id: string; text: string }>, bm25Options?: Bm25Options) {
      tick('bm25.index');
      if (!Array.isArray(docs)) throw new Error('bm25.index: docs must be an array of {id, text}');
      if (docs.length > o.bm25MaxDocs) throw new Error(`bm25.index: ${docs.length} documents is over the ${o.bm25MaxDocs} limit`);
      if (live() >= MAX_HANDLES)
        throw new Error(
          `bm25.index: more than ${MAX_HANDLES} indexes in one sandbox; build an index once in store and keep it in memory.state`,
        );
      checkDocs(docs, 'bm25.index');
      const { index, cached } = getBm25Index(docs, bm25Options);
      if (cached) meter.bm25CacheHits += 1;
      handles.push(index);
      return { handle: handles.length - 1, size: index.size };
    },

    bm25Add(handle: number, docs: ReadonlyArray<{ id: string; text: string }>) {
      tick('bm25.add');
      const index = indexAt(handle, 'bm25.add');
      if (!Array.isArray(docs)) throw new Error('bm25.add: docs must be an array of {id, text}');
      if (index.size + docs.length > o.bm25MaxDocs)
        throw new Error(`bm25.add: ${index.size + docs.length} documents is over the ${o.bm25MaxDocs} limit`);
      if (live() >= MAX_HANDLES)
        throw new Error(`bm25.add: more than ${MAX_HANDLES} indexes in one sandbox; keep only the grown index in memory.state`);
      checkDocs(docs, 'bm25.add');
      const grown = extendBm25Index(index, docs);
      if (grown.cached) meter.bm25CacheHits += 1;
      handles.push(grown.index);
      superseded.push(handle);
      if (superseded.length > MAX_SUPERSEDED) {
        const old = superseded.shift()!;
        if (handles[old]) {
          handles[old] = null;
          released += 1;
        }
      }
      return { handle: handles.length - 1, size: grown.index.size };
    },

    bm25Search(handle: number, query: string, k = 10): Hit[] {
      tick('bm25.search');
      const index = indexAt(handle, 'bm25.search');
      if (typeof query !== 'string') throw new Error('bm25.search: query must be a string');
      return index.search(query, Number.isFinite(k) ? k : 10);
    },

    tokenize(text: string) {
      tick('text.tokenize');
      return tokenize(String(text));
    },
    stem(word: string) {
      tick('text.stem');
      return stem(String(word));
    },
    isStopword(word: string) {
      tick('text.isStopword');
      return isStopword(String(word));
    },
    terms(text: string) {
      tick('text.terms');
      return terms(String(text));
    },
    dates(text: string, reference?: string) {
      tick('text.dates');
      if (reference !== undefined && typeof reference !== 'string') throw new Error('text.dates: reference must be an ISO date string');
      try {
        return resolveDates(String(text), reference);
      } catch (error) {
        throw new Error(`text.dates: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    countTokens(text: string) {
      tick('countTokens');
      return memoCountTokens(String(text));
    },
    log(message: string) {
      tick('log');
      if (meter.log.length < o.logMaxLines) meter.log.push(String(message).slice(0, o.logMaxChars));
      else meter.logDropped += 1;
    },

    async embed(texts: string[]): Promise<number[][]> {
      tick('embed');
      if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) throw new Error('embed: texts must be an array of strings');
      if (texts.length > MAX_EMBED_TEXTS)
        throw new Error(`embed: ${texts.length} texts in one call is over the ${MAX_EMBED_TEXTS} limit; batch them`);
      if (!embedder) return texts.map((t) => localEmbedding(t));
      if (texts.length === 0) return [];
      const vectors = await embedder.embed(texts);
      if (!Array.isArray(vectors) || vectors.length !== texts.length) {
        throw new Error(`embed: the embedder returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${texts.length} texts`);
      }
      return vectors.map((v) => normaliseVector(v, embedder.dim));
    },

    async llm(messages: string | LlmMessage[], llmOptions: { maxTokens?: number; temperature?: number } = {}): Promise<string> {
      tick('llm');
      if (!llm) throw new Error('tools.llm is not available (no model configured); check tools.llm.available first');
      const list: LlmMessage[] = typeof messages === 'string' ? [{ role: 'user', content: messages }] : messages;
      const callScope = scope;
      const promptEstimate = list.reduce((n, m) => n + countTokens(m.content) + 4, 0);
      const cap = llmCap();
      const remaining = cap - scopeTokens - promptEstimate;
      if (remaining <= 0)
        throw new Error(`tools.llm: the budget of ${cap} tokens for this ${buildsMemory(callScope) ? callScope : 'question'} is spent`);
      const maxTokens = Math.max(1, Math.min(remaining, llmOptions.maxTokens ?? DEFAULT_COMPLETION_TOKENS));
      const reserved = promptEstimate + maxTokens;
      scopeTokens += reserved;
      const callMeter = meter;
      try {
        const reply = await llm(list, { ...llmOptions, maxTokens });
        callMeter.llmTokens.prompt += reply.promptTokens;
        callMeter.llmTokens.completion += reply.completionTokens;
        if (scope === callScope) scopeTokens += reply.promptTokens + reply.completionTokens - reserved;
        return reply.text;
      } catch (error) {
        if (scope === callScope) scopeTokens -= reserved;
        throw error;
      }
    },

    beginCall(nextScope: string, nextPastLimit: () => boolean = never) {
      // Each store or add call has a budget of its own; retrieve and context of one question share theirs.
      if (nextScope !== scope || buildsMemory(nextScope)) scopeTokens = 0;
      scope = nextScope;
      pastLimit = nextPastLimit;
      meter = emptyMeter();
    },

    endCall(): ToolMeter {
      const done = meter;
      meter = emptyMeter();
      pastLimit = never;
      return done;
    },

    dispose() {
      handles.length = 0;
      superseded.length = 0;
      released = 0;
    },
  };
}

function checkDocs(docs: ReadonlyArray<{ id: string; text: string }>, what: string): void {
  for (const d of docs) {
    if (typeof d?.id !== 'string' || typeof d.text !== 'string') throw new Error(`${what}: every doc needs a string id and a string text`);
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
