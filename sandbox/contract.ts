/**
 * The memory-design contract. A design is one TypeScript module whose default export implements
 * {@link MemoryDesign}; it may import only types from this file. Everything a design can do beyond plain
 * computation comes in through {@link Tools}, provided by the host and metered per call.
 *
 * Inside the sandbox there is no I/O, no timers, `Math.random` is seeded and `Date.now()` is fixed, so a
 * design's output depends only on its inputs.
 */

/** One unit of the user's history: a chat turn, an e-mail, a document section, a note or an event. */
export interface SourceRecord {
  id: string;
  kind: 'turn' | 'email' | 'document' | 'note' | 'event';
  text: string;
  /** ISO 8601 date-time when known. */
  time?: string;
  /** Conversation session, e-mail thread or document this record belongs to. */
  thread?: string;
  speaker?: string;
  title?: string;
  /** Ids this record explicitly refers to (a reply, an uploaded attachment…). */
  refs?: string[];
  meta?: Record<string, string | number | boolean>;
}

/**
 * A piece of memory. `sources` is its provenance: the record ids its text came from.
 *
 * **Verified provenance.** The host credits a source only when the unit's text verifiably carries it. Texts are
 * compared as word sequences (`tools.text.tokenize`: lower-cased letters and digits, inner apostrophes and
 * hyphens; ’ reads as '), so spacing, line breaks, punctuation and case do not matter. A unit carries record r
 * when its text holds
 *  - r's whole word sequence, or
 *  - for a record of more than 8 words, any 8 consecutive words of r (a quote);
 *  - (a record with no words at all: its trimmed text, verbatim).
 * Each carried record needs its own span: claims are checked longest record first and words already credited to
 * one record cannot be credited to another. An honest summary meets the rule by quoting 8 words of each record it
 * names (or the whole record when shorter). Ids of records the design was not given never count, and the host's
 * search for spans is bounded in proportion to the text and the claims (claims left past the bound do not count).
 *
 * Everything the host scores reads verified sources only: evidence recall@k, recall at the token budget,
 * context recall, failure diagnosis (storage vs retrieval) and the `evidence` of `createMemory().search()`.
 * Claimed sources that fail the rule are counted per question in the trace (`unverifiedSources`).
 */
export interface MemoryUnit {
  id: string;
  text: string;
  /** Record ids this unit's text carries (see the rule above: a claim the host verifies, not a credit). */
  sources: string[];
  time?: string;
  /** Free-form annotations a design keeps with the unit (thread, speaker, level…). */
  meta?: Record<string, string | number | boolean>;
}

/** What `store` builds. `state` is design-private and must be structured-cloneable. */
export interface Memory {
  units: MemoryUnit[];
  state?: unknown;
}

/** A question. When `date` is set only history up to that date may reach the context (the host enforces it). */
export interface Question {
  /** Opaque, per evaluation: it says nothing about the question's source or split and differs between runs. */
  id: string;
  text: string;
  /** ISO date (YYYY-MM-DD) or date-time. */
  date?: string;
}

/** A ranked retrieval result: a unit id and its score (higher is better). */
export interface Hit {
  unit: string;
  score: number;
}

/**
 * What the fixed answerer reads, and which units it was built from (in the order they appear).
 *
 * **Delivered = what the answerer receives.** The host cuts `text` to the budget first; then a record counts as
 * delivered only when it is a verified source of a listed unit *and* the cut text itself carries it (the
 * {@link MemoryUnit} rule applied to the delivered text). Listing a unit whose text was cut off, or never written
 * into `text`, delivers nothing; so a declaration costs exactly the budget of the text it stands for.
 */
export interface Context {
  text: string;
  units: string[];
}

export interface Budget {
  /**
   * Upper bound on `countTokens(context.text)` (o200k_base BPE tokens); the host cuts the text after the last
   * whole word within it and records the original size.
   */
  tokens: number;
}

type MaybePromise<T> = T | Promise<T>;

/** A memory design: store → retrieve → context. Stages may be async (needed when they call `tools.llm`). */
export interface MemoryDesign {
  store(records: SourceRecord[], tools: Tools): MaybePromise<Memory>;
  /**
   * Optional incremental stage: grows `memory` (what `store` or an earlier `add` returned) by records that arrived
   * since, and returns the memory to use from now on (the same object, changed, or a new one). `records` are new:
   * none of their ids was stored before, and they come in time order after the earlier ones. The result must be
   * equivalent to `store` over all records so far: `store(first)` then `add(rest)` should answer every question as
   * `store([...first, ...rest])` does. Anything kept in `memory.state` that depends on the whole memory (an index,
   * counts) must be grown or dropped here. Grow bm25 indexes with `index.add(docs)` rather than rebuilding them.
   *
   * Without `add`, the host rebuilds memory with `store` over every record so far whenever records arrive.
   * Evaluation of dated questions replays each history once in time order: `store` over the records visible at
   * the first question date, then `add` of the records up to each next date before that date's questions.
   */
  add?(memory: Memory, records: SourceRecord[], tools: Tools): MaybePromise<Memory>;
  retrieve(q: Question, memory: Memory, tools: Tools): MaybePromise<Hit[]>;
  context(q: Question, hits: Hit[], memory: Memory, tools: Tools, budget: Budget): MaybePromise<Context>;
}

export interface Bm25Options {
  /** Porter-stem terms (default true). */
  stem?: boolean;
  /** Drop English stopwords (default true). */
  stopwords?: boolean;
  /** BM25 parameters (defaults k1 = 1.2, b = 0.75). */
  k1?: number;
  b?: number;
}

/** A BM25 index built on the host over `{id, text}` documents; identical document sets share one index. */
export interface Bm25Index {
  readonly size: number;
  /** Top-k documents for the query, best first; `unit` is the document id. */
  search(query: string, k?: number): Hit[];
  /**
   * An index over this index's documents followed by `docs` (ids must be new), with the same options. Costs the new
   * documents only, and answers exactly as `tools.bm25.index` over the whole list would. This index is unchanged,
   * but only the last 1,000 indexes that `add` was called on stay searchable: keep the one `add` returns.
   */
  add(docs: ReadonlyArray<{ id: string; text: string }>): Bm25Index;
}

export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmTool {
  /** False offline: a design must then fall back to a non-LLM behaviour. */
  readonly available: boolean;
  /** One completion, metered against the per-question budget. Rejects when unavailable or over budget. */
  complete(messages: string | LlmMessage[], options?: { maxTokens?: number; temperature?: number }): Promise<string>;
}

/** A date mention found by `tools.text.dates`. */
export interface DateMention {
  /** The mention as written, e.g. `last Saturday`. */
  text: string;
  /** Offsets of the mention in the input (`end` exclusive). */
  start: number;
  end: number;
  /** `YYYY-MM-DD`; `YYYY-MM` or `YYYY` when the text names only a month ("next month") or a year ("in 2019"). */
  date: string;
}

export interface TextTool {
  /** Lower-cased word tokens (letters, digits, inner apostrophes and hyphens). */
  tokenize(text: string): string[];
  /** Porter stem of one lower-case word. */
  stem(word: string): string;
  isStopword(word: string): boolean;
  /** tokenize → drop stopwords → stem: the terms BM25 indexes by default. */
  terms(text: string): string[];
  /**
   * Date mentions in `text`, left to right (English; chrono-node on the host). With `reference`, an ISO date or
   * date-time such as the record's own `time`, relative phrases resolve against it: "yesterday", "last Saturday",
   * "two weeks ago", "next month", "May 8". Without it only dates the text fixes itself ("8 May 2023", "2019").
   * Numeric dates whose day/month order is ambiguous (5/8/2023) are not read as dates. Throws on a malformed reference.
   */
  dates(text: string, reference?: string): DateMention[];
}

export interface EmbedTool {
  /** Vector dimension. */
  readonly dim: number;
  /** The configured embedding endpoint, else memsteer's local deterministic embedding (hashed n-grams). */
  readonly model: string;
  /** Unit-length vectors, one per text. */
  embed(texts: string[]): Promise<number[][]>;
}

/** Host capabilities handed to every stage. Each call is metered and reported in the trace. */
export interface Tools {
  bm25: { index(docs: ReadonlyArray<{ id: string; text: string }>, options?: Bm25Options): Bm25Index };
  text: TextTool;
  embed: EmbedTool;
  llm: LlmTool;
  /** Tokens as the answerer's budget counts them: the o200k_base BPE encoding (GPT-4o's), whitespace included. */
  countTokens(text: string): number;
  /** A capped trace that reaches the proposer; past the cap entries are dropped and counted. */
  log(message: string): void;
}
