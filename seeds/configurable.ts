/**
 * Configurable: a parametric design whose behaviour is set by the typed top-level constants below, which together
 * form one config (its schema, ranges and meaning live in src/optimize/config-space.ts; `--space config` searches
 * only these values). Every memory unit is one record (text plus date, speaker, title), so provenance, recall@k and
 * context recall mean the same thing for every config; the knobs change what a record is ranked by and what the
 * context delivers.
 *
 * With the defaults it behaves as Base-BM25 (seeds/base-bm25.ts): record units, BM25 with the question as the
 * query, top 50 packed into the budget in rank order. The helper names (lineOf, indexOf, STEM, BM25_K1, BM25_B,
 * TOP_K) are the Base-BM25 family's, so code search's catalog operators apply to this seed too, and its config
 * names avoid the constants those operators add.
 */
import type { Bm25Index, Context, Hit, Memory, MemoryDesign, MemoryUnit, Question, SourceRecord, Tools } from '../sandbox/contract.ts';

type Granularity = 'record' | 'window' | 'session';
type Retriever = 'bm25' | 'embedding' | 'hybrid';
type Fusion = 'rrf' | 'weighted';
type TimeFilter = 'off' | 'boost' | 'filter';
type ContextOrder = 'rank' | 'time';
type Packing = 'skip' | 'dedupe';

// ───────────────────────────── the config ─────────────────────────────
// (`as` keeps each knob's declared type, so the code type-checks for every value the schema allows.)

/** What BM25 ranks a record by: the record alone, the record with ±WINDOW_RADIUS thread neighbours, or its session. */
const UNIT_GRANULARITY = 'record' as Granularity;
/** Thread neighbours on each side indexed with a record (granularity `window`). */
const WINDOW_RADIUS = 1;
/** A thread longer than this many records is split into sessions of this size (granularity `session`, session fusion). */
const SESSION_SIZE = 40;
/** Lexical (BM25), dense (tools.embed cosine), or both fused. */
const RETRIEVER = 'bm25' as Retriever;
/** How a hybrid retriever fuses its two rankings: reciprocal rank fusion, or a weighted sum of max-normalised scores. */
const FUSION = 'rrf' as Fusion;
/** Weight of the dense ranking in hybrid fusion; BM25 gets 1 − this. */
const EMBEDDING_WEIGHT = 0.5;
/** RRF constant: score = Σ weight / (RRF_K + rank). */
const RRF_K = 60;
/** Records retrieved per question. */
const TOP_K = 50;
/** BM25 term-frequency saturation and length normalisation. */
const BM25_K1 = 1.2;
const BM25_B = 0.75;
/** Porter-stem index and query terms. */
const STEM = true;
/** Put the record's date words ("May 2023") into the indexed text so dated questions can match them. */
const INDEX_DATES = true;
/** Weight of the record's session BM25 score (max-normalised) fused into its own normalised score; 0 = off. */
const SESSION_FUSION = 0;
/** Pseudo-relevance feedback: distinctive terms of the first-round hits added to the query; 0 = off. */
const EXPANSION_TERMS = 0;
/** First-round hits read for feedback terms. */
const EXPANSION_DOCS = 3;
/** Month/year the question names: ignored, a score boost for records dated then, or only those records (when any). */
const TIME_FILTER = 'off' as TimeFilter;
/** The boost, as a share of the top score. */
const TIME_WEIGHT = 0.3;
/** Thread neighbours on each side delivered with each of the first EXPANDED_HITS hits; 0 = off. */
const CONTEXT_NEIGHBOURS = 0;
const EXPANDED_HITS = 3;
/** Order of the delivered records: retrieval rank, or time (conversations read in order). */
const CONTEXT_ORDER = 'rank' as ContextOrder;
/** Packing: skip what does not fit and go on; `dedupe` also skips records whose terms repeat a delivered one. */
const PACKING = 'skip' as Packing;

// ───────────────────────────── fixed parts ─────────────────────────────

/** Candidates scored before the final cut to TOP_K when anything rescores them. */
const RERANK_DEPTH = 200;
/** Texts per embed call: how the work is batched, not what it computes. @inert */
const EMBED_BATCH = 256;

export const description =
  `Configurable: ${UNIT_GRANULARITY} granularity, ${RETRIEVER} retrieval` +
  `${RETRIEVER === 'hybrid' ? ` (${FUSION}, dense weight ${EMBEDDING_WEIGHT})` : ''}, ` +
  `top ${TOP_K}, session fusion ${SESSION_FUSION}, ${EXPANSION_TERMS} expansion terms, time ${TIME_FILTER}, ` +
  `${CONTEXT_NEIGHBOURS} context neighbours, ${CONTEXT_ORDER} order, ${PACKING} packing.`;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "2023-05-08T13:56:00" → "8 May 2023 13:56" (string surgery: no clock or time zone involved). */
function stamp(time: string | undefined): string {
  if (!time) return '';
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?/.exec(time);
  if (!m) return time;
  const date = `${Number(m[3])} ${MONTHS[Number(m[2]) - 1] ?? m[2]} ${m[1]}`;
  return m[4] ? `${date} ${m[4]}:${m[5]}` : date;
}

/** One context line per record: `[date] Speaker: (title) text`. */
function lineOf(r: SourceRecord): string {
  const when = stamp(r.time);
  const head = `${when ? `[${when}] ` : ''}${r.speaker ? `${r.speaker}: ` : ''}`;
  const title = r.title ? `(${r.title}) ` : '';
  return `${head}${title}${r.text.replace(/\s*\n\s*/g, ' ')}`;
}

function undated(text: string): string {
  return text.replace(/^\[[^\]]*\]\s*/, '');
}

interface State {
  /** BM25 over record documents (window documents with granularity `window`). */
  index?: Bm25Index;
  sessionIndex?: Bm25Index;
  /** Record unit id → its session id. */
  sessionOf?: Record<string, string>;
  /** Session id → its record unit ids, in order. */
  members?: Record<string, string[]>;
  /** Session id → the kind of record it holds (chat turn, e-mail, document). */
  sessionKind?: Record<string, string>;
  /** Unit-length vectors aligned with memory.units. */
  vectors?: number[][];
  /** Document frequency of each term over the units (query expansion). */
  df?: Record<string, number>;
}

function stateOf(memory: Memory): State {
  if (!memory.state || typeof memory.state !== 'object') memory.state = {};
  return memory.state as State;
}

/** The documents BM25 ranks records by: each record, or each record inside its window of thread neighbours. */
function recordDocs(units: readonly MemoryUnit[]): Array<{ id: string; text: string }> {
  const textOf = (u: MemoryUnit) => (INDEX_DATES ? u.text : undated(u.text));
  if (UNIT_GRANULARITY !== 'window') return units.map((u) => ({ id: u.id, text: textOf(u) }));
  return units.map((u, i) => {
    const parts = [textOf(u)];
    const thread = u.meta?.thread;
    for (let d = 1; d <= WINDOW_RADIUS; d++) {
      const before = units[i - d];
      const after = units[i + d];
      if (thread !== undefined && before && before.meta?.thread === thread) parts.unshift(textOf(before));
      if (thread !== undefined && after && after.meta?.thread === thread) parts.push(textOf(after));
    }
    return { id: u.id, text: parts.join(' ') };
  });
}

function indexOf(memory: Memory, tools: Tools): Bm25Index {
  const state = stateOf(memory);
  if (state.index && typeof state.index.search === 'function') return state.index;
  // Rebuilt only if state lost the handle; the host caches indexes by content, so this is cheap.
  state.index = tools.bm25.index(recordDocs(memory.units), { stem: STEM, k1: BM25_K1, b: BM25_B });
  return state.index;
}

/** Sessions: a record's thread, in chunks of SESSION_SIZE records; each session is one BM25 document. */
function sessionsOf(
  memory: Memory,
  tools: Tools,
): { index: Bm25Index; sessionOf: Record<string, string>; members: Record<string, string[]>; sessionKind: Record<string, string> } {
  const state = stateOf(memory);
  if (state.sessionIndex && typeof state.sessionIndex.search === 'function' && state.sessionOf && state.members && state.sessionKind) {
    return { index: state.sessionIndex, sessionOf: state.sessionOf, members: state.members, sessionKind: state.sessionKind };
  }
  const byThread = new Map<string, MemoryUnit[]>();
  for (const u of memory.units) {
    const thread = String(u.meta?.thread ?? u.id);
    const list = byThread.get(thread);
    if (list) list.push(u);
    else byThread.set(thread, [u]);
  }
  const sessionOf: Record<string, string> = {};
  const members: Record<string, string[]> = {};
  const sessionKind: Record<string, string> = {};
  const docs: Array<{ id: string; text: string }> = [];
  for (const [thread, list] of byThread) {
    for (let c = 0; c * SESSION_SIZE < list.length; c++) {
      const chunk = list.slice(c * SESSION_SIZE, (c + 1) * SESSION_SIZE);
      const id = `${thread}#${c}`;
      members[id] = chunk.map((u) => u.id);
      sessionKind[id] = String(chunk[0]?.meta?.kind ?? '');
      for (const u of chunk) sessionOf[u.id] = id;
      docs.push({ id, text: chunk.map((u) => (INDEX_DATES ? u.text : undated(u.text))).join(' ') });
    }
  }
  const index = tools.bm25.index(docs, { stem: STEM, k1: BM25_K1, b: BM25_B });
  state.sessionIndex = index;
  state.sessionOf = sessionOf;
  state.members = members;
  state.sessionKind = sessionKind;
  return { index, sessionOf, members, sessionKind };
}

async function vectorsOf(memory: Memory, tools: Tools): Promise<number[][]> {
  const state = stateOf(memory);
  if (state.vectors && state.vectors.length === memory.units.length) return state.vectors;
  const vectors: number[][] = [];
  for (let i = 0; i < memory.units.length; i += EMBED_BATCH) {
    // Embed without the date stamp: dates carry no meaning for an embedding of the content.
    vectors.push(...(await tools.embed.embed(memory.units.slice(i, i + EMBED_BATCH).map((u) => undated(u.text)))));
  }
  state.vectors = vectors;
  return vectors;
}

function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

/** Pseudo-relevance feedback: the question's own words miss paraphrases that the best first-round records use. */
function expandedQuery(q: Question, memory: Memory, tools: Tools): string {
  const first = indexOf(memory, tools).search(q.text, EXPANSION_DOCS);
  if (first.length === 0) return q.text;
  const state = stateOf(memory);
  if (!state.df) {
    const df: Record<string, number> = {};
    for (const u of memory.units) for (const t of new Set(tools.text.terms(u.text))) df[t] = (df[t] ?? 0) + 1;
    state.df = df;
  }
  const df = state.df;
  const n = memory.units.length;
  const own = new Set(tools.text.terms(q.text));
  const byId = new Map(memory.units.map((u) => [u.id, u]));
  const weight = new Map<string, number>();
  for (const h of first) {
    const u = byId.get(h.unit);
    if (!u) continue;
    for (const t of new Set(tools.text.terms(u.text))) {
      if (own.has(t) || t.length < 3 || /^\d+$/.test(t)) continue;
      weight.set(t, (weight.get(t) ?? 0) + Math.log(1 + n / (1 + (df[t] ?? 0))));
    }
  }
  const extra = [...weight].sort((a, b) => b[1] - a[1]).slice(0, EXPANSION_TERMS).map(([t]) => t);
  return extra.length ? `${q.text} ${extra.join(' ')}` : q.text;
}

function normalised(hits: readonly Hit[]): Map<string, number> {
  const top = hits[0]?.score || 1;
  return new Map(hits.map((h) => [h.unit, h.score / top]));
}

function byScore(a: Hit, b: Hit): number {
  return b.score - a.score;
}

/** Granularity `session`: sessions ranked by BM25, each session's records by their own BM25 score. */
function sessionRanking(query: string, memory: Memory, tools: Tools, depth: number): Hit[] {
  const { index, members } = sessionsOf(memory, tools);
  const sessions = index.search(query, depth);
  const own = normalised(indexOf(memory, tools).search(query, depth));
  const out: Hit[] = [];
  sessions.forEach((s, rank) => {
    const ids = members[s.unit] ?? [];
    // Lexicographic: a session's rank first (steps of 1), its records' own scores (< 1) inside it.
    const ranked = ids.map((id) => ({ unit: id, score: sessions.length - rank + 0.5 * (own.get(id) ?? 0) })).sort(byScore);
    for (const h of ranked) if (out.length < depth) out.push(h);
  });
  return out;
}

async function denseRanking(query: string, memory: Memory, tools: Tools, depth: number): Promise<Hit[]> {
  const vectors = await vectorsOf(memory, tools);
  const [qv] = await tools.embed.embed([query]);
  if (!qv) return [];
  return memory.units
    .map((u, i) => ({ unit: u.id, score: dot(qv, vectors[i] ?? []) }))
    .sort(byScore)
    .slice(0, depth);
}

function fuse(lexical: readonly Hit[], dense: readonly Hit[]): Hit[] {
  const fused = new Map<string, number>();
  const add = (id: string, s: number) => fused.set(id, (fused.get(id) ?? 0) + s);
  if (FUSION === 'rrf') {
    lexical.forEach((h, rank) => add(h.unit, (1 - EMBEDDING_WEIGHT) / (RRF_K + rank + 1)));
    dense.forEach((h, rank) => add(h.unit, EMBEDDING_WEIGHT / (RRF_K + rank + 1)));
  } else {
    for (const [id, s] of normalised(lexical)) add(id, (1 - EMBEDDING_WEIGHT) * s);
    for (const [id, s] of normalised(dense)) add(id, EMBEDDING_WEIGHT * Math.max(0, s));
  }
  return [...fused].map(([unit, score]) => ({ unit, score })).sort(byScore);
}

/** Each thread's BM25 score as a share of the best thread of its kind, the first depth of each kind. */
function threadScores(index: Bm25Index, query: string, kindOf: Record<string, string>, depth: number): Map<string, number> {
  // Threads of a kind are compared with each other: a day of chat out-scores a short e-mail on its length alone.
  const best = new Map<string, number>();
  const taken = new Map<string, number>();
  const out = new Map<string, number>();
  for (const s of index.search(query, Object.keys(kindOf).length)) {
    const kind = kindOf[s.unit] ?? '';
    const n = taken.get(kind) ?? 0;
    if (n >= depth) continue;
    taken.set(kind, n + 1);
    if (n === 0) best.set(kind, s.score || 1);
    out.set(s.unit, s.score / (best.get(kind) ?? 1));
  }
  return out;
}

/** A record in a session that matches the question as a whole is more likely the evidence than an equal one elsewhere. */
function fuseSessions(query: string, hits: readonly Hit[], memory: Memory, tools: Tools): Hit[] {
  const { index, sessionOf, sessionKind } = sessionsOf(memory, tools);
  const sessionScore = threadScores(index, query, sessionKind, 100);
  const top = hits[0]?.score || 1;
  return hits
    .map((h) => ({ unit: h.unit, score: h.score / top + SESSION_FUSION * (sessionScore.get(sessionOf[h.unit] ?? '') ?? 0) }))
    .sort(byScore);
}

/** "in May 2023", "last June": records dated in the month or year the question names. */
function applyTime(q: Question, hits: Hit[], memory: Memory): Hit[] {
  const text = q.text.toLowerCase();
  const month = MONTHS.findIndex((m) => new RegExp(`\\b${m.toLowerCase()}\\b`).test(text));
  const yearMatch = /\b(19|20)\d{2}\b/.exec(text);
  if (month < 0 && !yearMatch) return hits;
  const year = yearMatch ? yearMatch[0] : '';
  const mm = month >= 0 ? String(month + 1).padStart(2, '0') : '';
  const timeOf = new Map(memory.units.map((u) => [u.id, u.time ?? '']));
  const matches = (id: string) => {
    const t = timeOf.get(id) ?? '';
    return t !== '' && (!year || t.startsWith(year)) && (!mm || t.slice(5, 7) === mm);
  };
  if (TIME_FILTER === 'filter') {
    const kept = hits.filter((h) => matches(h.unit));
    return kept.length > 0 ? kept : hits;
  }
  const top = hits[0]?.score || 1;
  return hits.map((h) => (matches(h.unit) ? { unit: h.unit, score: h.score + TIME_WEIGHT * top } : h)).sort(byScore);
}

/** Unit ids that fit the budget, in rank order, each of the first hits bringing its thread neighbours. */
function pack(hits: readonly Hit[], memory: Memory, tools: Tools, budget: { tokens: number }): string[] {
  const position = new Map(memory.units.map((u, i) => [u.id, i]));
  const out: string[] = [];
  const chosen = new Set<string>();
  const seenTerms = new Set<string>();
  let used = 0;
  const take = (i: number): void => {
    const u = memory.units[i];
    if (!u || chosen.has(u.id)) return;
    let key = '';
    if (PACKING === 'dedupe') {
      key = tools.text.terms(u.text).join(' ');
      if (seenTerms.has(key)) return;
    }
    const cost = tools.countTokens(u.text) + 1;
    // Skip what does not fit and keep going: a shorter unit further down may still fit.
    if (used + cost > budget.tokens) return;
    chosen.add(u.id);
    if (PACKING === 'dedupe') seenTerms.add(key);
    out.push(u.id);
    used += cost;
  };
  hits.forEach((h, rank) => {
    const i = position.get(h.unit);
    if (i === undefined) return;
    take(i);
    if (CONTEXT_NEIGHBOURS <= 0 || rank >= EXPANDED_HITS) return;
    const thread = memory.units[i]!.meta?.thread;
    if (thread === undefined) return;
    for (let d = 1; d <= CONTEXT_NEIGHBOURS; d++) {
      for (const j of [i - d, i + d]) if (memory.units[j]?.meta?.thread === thread) take(j);
    }
  });
  return out;
}

const design = {
  async store(records: SourceRecord[], tools: Tools): Promise<Memory> {
    const units: MemoryUnit[] = records.map((r) => {
      const meta: Record<string, string> = { kind: r.kind };
      if (r.thread) meta.thread = r.thread;
      if (r.speaker) meta.speaker = r.speaker;
      const unit: MemoryUnit = { id: r.id, text: lineOf(r), sources: [r.id], meta };
      if (r.time) unit.time = r.time;
      return unit;
    });
    const memory: Memory = { units, state: {} satisfies State };
    indexOf(memory, tools);
    if (units.length > 0 && (UNIT_GRANULARITY === 'session' || SESSION_FUSION > 0)) sessionsOf(memory, tools);
    if (RETRIEVER !== 'bm25') await vectorsOf(memory, tools);
    return memory;
  },

  async retrieve(q: Question, memory: Memory, tools: Tools): Promise<Hit[]> {
    if (memory.units.length === 0) return [];
    const rescored = RETRIEVER === 'hybrid' || UNIT_GRANULARITY === 'session' || SESSION_FUSION > 0 || TIME_FILTER !== 'off';
    const depth = rescored ? Math.max(TOP_K, RERANK_DEPTH) : TOP_K;
    const query = EXPANSION_TERMS > 0 ? expandedQuery(q, memory, tools) : q.text;
    let lexical: Hit[] = [];
    if (RETRIEVER !== 'embedding') {
      lexical = UNIT_GRANULARITY === 'session' ? sessionRanking(query, memory, tools, depth) : indexOf(memory, tools).search(query, depth);
    }
    let hits = lexical;
    if (RETRIEVER !== 'bm25') {
      // The dense side embeds the question alone: feedback terms are a lexical device.
      const dense = await denseRanking(q.text, memory, tools, depth);
      hits = RETRIEVER === 'embedding' ? dense : fuse(lexical, dense);
    }
    if (SESSION_FUSION > 0 && UNIT_GRANULARITY !== 'session') hits = fuseSessions(query, hits, memory, tools);
    if (TIME_FILTER !== 'off') hits = applyTime(q, hits, memory);
    return hits.slice(0, TOP_K);
  },

  context(q: Question, hits: Hit[], memory: Memory, tools: Tools, budget: { tokens: number }): Context {
    const byId = new Map(memory.units.map((u) => [u.id, u]));
    let units = pack(hits, memory, tools, budget);
    if (CONTEXT_ORDER === 'time') {
      const position = new Map(memory.units.map((u, i) => [u.id, i]));
      units = [...units].sort(
        (a, b) => (byId.get(a)?.time ?? '').localeCompare(byId.get(b)?.time ?? '') || (position.get(a) ?? 0) - (position.get(b) ?? 0),
      );
    }
    return { text: units.map((id) => byId.get(id)!.text).join('\n'), units };
  },
} satisfies MemoryDesign;

export default design;
