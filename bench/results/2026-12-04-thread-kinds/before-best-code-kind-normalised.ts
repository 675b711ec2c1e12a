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


function kindOfThreadX(t: string): string {
  return /email/i.test(t) ? 'email' : /\.(md|html?|txt|pdf|docx?)$/i.test(t) ? 'document' : 'turn';
}
function perKindScores(sessions: { unit: string; score: number }[], depth: number): Map<string, number> {
  const top = new Map<string, number>();
  const seen = new Map<string, number>();
  const out = new Map<string, number>();
  for (const s of sessions) {
    const k = kindOfThreadX(s.unit);
    const n = seen.get(k) ?? 0;
    if (n >= depth) continue;
    seen.set(k, n + 1);
    if (!top.has(k)) top.set(k, s.score || 1);
    out.set(s.unit, s.score / (top.get(k) || 1));
  }
  return out;
}

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
): { index: Bm25Index; sessionOf: Record<string, string>; members: Record<string, string[]> } {
  const state = stateOf(memory);
  if (state.sessionIndex && typeof state.sessionIndex.search === 'function' && state.sessionOf && state.members) {
    return { index: state.sessionIndex, sessionOf: state.sessionOf, members: state.members };
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
  const docs: Array<{ id: string; text: string }> = [];
  for (const [thread, list] of byThread) {
    for (let c = 0; c * SESSION_SIZE < list.length; c++) {
      const chunk = list.slice(c * SESSION_SIZE, (c + 1) * SESSION_SIZE);
      const id = `${thread}#${c}`;
      members[id] = chunk.map((u) => u.id);
      for (const u of chunk) sessionOf[u.id] = id;
      docs.push({ id, text: chunk.map((u) => (INDEX_DATES ? u.text : undated(u.text))).join(' ') });
    }
  }
  const index = tools.bm25.index(docs, { stem: STEM, k1: BM25_K1, b: BM25_B });
  state.sessionIndex = index;
  state.sessionOf = sessionOf;
  state.members = members;
  return { index, sessionOf, members };
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

/** A record in a session that matches the question as a whole is more likely the evidence than an equal one elsewhere. */
function fuseSessions(query: string, hits: readonly Hit[], memory: Memory, tools: Tools): Hit[] {
  const { index, sessionOf } = sessionsOf(memory, tools);
  const sessionScore = normalised(index.search(query, 100));
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

/** Candidates scored before the final cut to TOP_K (rescoring can lift a unit from deep in the list). */
const CANDIDATES = 200;

/** The query sent to the index. @block query:identity */
function expandQuery(q: Question, memory: Memory, tools: Tools): string {
  void memory;
  void tools;
  return q.text;
}

/** Rescores the candidates. @block rescore:identity */
function rescoreHits(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  // @block rescore:session-fusion — a turn in a session that matches the question as a whole is more likely
  // to be the evidence than an equally scored turn in an unrelated session.
  if (hits.length === 0) return hits;
  const state = (memory.state ?? {}) as { sessionIndex?: Bm25Index; threadOf?: Record<string, string> };
  if (!state.sessionIndex || !state.threadOf) {
    const threadOf: Record<string, string> = {};
    const texts = new Map<string, string[]>();
    for (const u of memory.units) {
      const thread = String(u.meta?.thread ?? u.id);
      threadOf[u.id] = thread;
      const list = texts.get(thread);
      if (list) list.push(u.text);
      else texts.set(thread, [u.text]);
    }
    const docs = [...texts].map(([id, parts]) => ({ id, text: parts.join(' ') }));
    state.sessionIndex = tools.bm25.index(docs, { stem: STEM });
    state.threadOf = threadOf;
    memory.state = state;
  }
  const sessionScore = perKindScores(state.sessionIndex.search(q.text, 100000), SESSION_CANDIDATES);
  const topTurn = hits[0]?.score || 1;
  return hits
    .map((h) => ({ unit: h.unit, score: h.score / topTurn + SESSION_WEIGHT * (sessionScore.get(state.threadOf![h.unit] ?? '') ?? 0) }))
    .sort((a, b) => b.score - a.score);
}

/** Adjusts scores by the question's time cues. @block time:identity */
function boostByTime(q: Question, hits: Hit[], memory: Memory): Hit[] {
  // @block time:month-year — "in May 2023", "last June": units dated in the month or year the question names
  // are more likely to hold the answer.
  const months = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
  const text = q.text.toLowerCase();
  const month = months.findIndex((m) => new RegExp('\\b' + m + '\\b').test(text));
  const yearMatch = /\b(19|20)\d{2}\b/.exec(text);
  if (month < 0 && !yearMatch) return hits;
  const year = yearMatch ? yearMatch[0] : '';
  const mm = month >= 0 ? String(month + 1).padStart(2, '0') : '';
  const timeOf = new Map(memory.units.map((u) => [u.id, u.time ?? '']));
  const top = hits[0]?.score || 1;
  return hits
    .map((h) => {
      const t = timeOf.get(h.unit) ?? '';
      const okYear = !year || t.startsWith(year);
      const okMonth = !mm || t.slice(5, 7) === mm;
      return okYear && okMonth && t ? { unit: h.unit, score: h.score + TIME_BOOST * top } : h;
    })
    .sort((a, b) => b.score - a.score);
}

/** Adds terms to the query. @block bridge:identity */
function bridgeQuery(query: string, tools: Tools): string {
  void tools;
  return query;
}

/** Favours units said by someone the question names. @block speaker:identity */
function speakerBoost(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  void q;
  void memory;
  void tools;
  return hits;
}

/** Favours units dated when the question says. @block date:identity */
function dateBoost(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  void q;
  void memory;
  void tools;
  return hits;
}

/** Spreads the ranking over sessions. @block diversity:identity */
function diversify(hits: Hit[], memory: Memory): Hit[] {
  void memory;
  return hits;
}

/** Keeps the units the ranking shows per record (several when a record is stored as passages). @block record:identity */
function perRecord(hits: Hit[], memory: Memory): Hit[] {
  // @block record:best-passage — a record's best passage speaks for it: its other passages would take places in
  // the ranking and the budget that another record's evidence could have had.
  const recordOf = new Map(memory.units.map((u) => [u.id, String(u.meta?.record ?? u.id)]));
  const seen = new Set<string>();
  return hits.filter((h) => {
    const r = recordOf.get(h.unit) ?? h.unit;
    if (seen.has(r)) return false;
    seen.add(r);
    return true;
  });
}

/** Reranks the candidates. @block rank:identity */
function learnedRank(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  // @block rank:learned — a linear ranking of features the design computes, with weights fitted on the training
  // split by the host (LTR_WEIGHTS, in the order: incoming rank, session score, query coverage, speaker named,
  // date cue met, best incoming rank of a thread neighbour).
  if (hits.length === 0) return hits;
  const state = (memory.state ?? {}) as { ltrSessions?: Bm25Index; ltrThread?: Record<string, string> };
  if (!state.ltrSessions || !state.ltrThread) {
    const threadOf: Record<string, string> = {};
    const texts = new Map<string, string[]>();
    for (const u of memory.units) {
      const thread = String(u.meta?.thread ?? u.id);
      threadOf[u.id] = thread;
      const list = texts.get(thread);
      if (list) list.push(u.text);
      else texts.set(thread, [u.text]);
    }
    state.ltrSessions = tools.bm25.index([...texts].map(([id, parts]) => ({ id, text: parts.join(' ') })), { stem: STEM });
    state.ltrThread = threadOf;
    memory.state = state;
  }
  const threadOf = state.ltrThread;
  const sessionScore = perKindScores(state.ltrSessions.search(q.text, 100000), 50);
  const qTerms = new Set(tools.text.terms(q.text));
  const words = new Set(tools.text.tokenize(q.text));
  let cues: string[] = [];
  try {
    cues = tools.text.dates(q.text, q.date).map((d) => d.date);
  } catch {
    cues = [];
  }
  const position = new Map(memory.units.map((u, i) => [u.id, i]));
  // Rank discount of each candidate by its position in memory, for the neighbour feature.
  const discountAt = new Map(hits.slice(0, LTR_DEPTH).map((h, i) => [position.get(h.unit) ?? -1, 1 / Math.log2(i + 2)]));
  const byId = new Map(memory.units.map((u) => [u.id, u]));
  const w = LTR_WEIGHTS;
  // Only the first LTR_DEPTH candidates are reranked: the weights were fitted on rankings that deep.
  const head = hits
    .slice(0, LTR_DEPTH)
    .map((h, i) => {
      const u = byId.get(h.unit);
      if (!u) return { unit: h.unit, score: -1 };
      const uTerms = new Set(tools.text.terms(u.text));
      const coverage = qTerms.size ? [...qTerms].filter((t) => uTerms.has(t)).length / qTerms.size : 0;
      const first = tools.text.tokenize(String(u.meta?.speaker ?? ''))[0];
      const speaker = first && words.has(first) ? 1 : 0;
      const date = u.time && cues.some((c) => u.time!.startsWith(c)) ? 1 : 0;
      const p = position.get(u.id) ?? -9;
      const thread = threadOf[u.id];
      let near = 0;
      for (const j of [p - 1, p + 1]) {
        if (threadOf[memory.units[j]?.id ?? ''] === thread) near = Math.max(near, discountAt.get(j) ?? 0);
      }
      const f = [1 / Math.log2(i + 2), sessionScore.get(thread ?? '') ?? 0, coverage, speaker, date, near];
      return { unit: h.unit, score: f.reduce((s, x, k) => s + x * (w[k] ?? 0), 0) };
    })
    .sort((a, b) => b.score - a.score);
  return [...head, ...hits.slice(LTR_DEPTH)];
}

/** Most words one passage unit holds (a record longer than this is split at sentence ends). */
const PASSAGE_WORDS = 80;
/** A passage shorter than this joins the one before it (too short to stand alone, or to verify as a quote). */
const PASSAGE_MIN_WORDS = 12;

/**
 * A record as passage units: a chat turn's user part apart from the assistant's reply, and any part longer than
 * PASSAGE_WORDS split at sentence and line ends. Every passage keeps the record's date, speaker and title and lists
 * the record as its source (its text is the record's own words). @block units:passages
 */
function passagesOf(r: SourceRecord): MemoryUnit[] {
  const when = stamp(r.time);
  const head = `${when ? `[${when}] ` : ''}${r.speaker ? `${r.speaker}: ` : ''}${r.title ? `(${r.title}) ` : ''}`;
  const meta: Record<string, string> = { record: r.id };
  if (r.thread) meta.thread = r.thread;
  if (r.speaker) meta.speaker = r.speaker;
  const pieces: string[] = [];
  for (const part of r.text.split(/\n(?=Assistant:)/)) {
    const sentences = part.split(/(?<=[.!?])\s+|\n+/).filter((s) => s.trim() !== '');
    const start = pieces.length;
    let current: string[] = [];
    let words = 0;
    for (const s of sentences) {
      const n = s.trim().split(/\s+/).length;
      if (words > 0 && words + n > PASSAGE_WORDS) {
        pieces.push(current.join(' '));
        current = [];
        words = 0;
      }
      current.push(s.trim());
      words += n;
    }
    if (current.length === 0) continue;
    // A short tail joins the passage before it within the same part (never across the user/assistant split).
    if (words < PASSAGE_MIN_WORDS && pieces.length > start) pieces[pieces.length - 1] += ` ${current.join(' ')}`;
    else pieces.push(current.join(' '));
  }
  if (pieces.length === 0) pieces.push(r.text);
  return pieces.map((text, k) => {
    const unit: MemoryUnit = { id: k === 0 ? r.id : `${r.id}#p${k}`, text: `${head}${text}`, sources: [r.id], meta };
    if (r.time) unit.time = r.time;
    return unit;
  });
}

/** Weights of rank, session, coverage, speaker, date, neighbour (fitted on the training split by the host). */
const LTR_WEIGHTS = [1, 1, 0.1, 0, 0.3, 0.05];
/** Candidates reranked (as deep as the rankings the weights were fitted on). */
const LTR_DEPTH = 50;

/** Weight of the session score fused into each unit's score. */
const SESSION_WEIGHT = 0.6;
/** Sessions scored per question. */
const SESSION_CANDIDATES = 30;

/** Score bonus (share of the top score) for units dated when the question says. */
const TIME_BOOST = 0.3;

const design = {
  store(records: SourceRecord[], tools: Tools): Memory {
    // @block units:passages — long records are stored as passages (see passagesOf).
    const memory: Memory = { units: records.flatMap(passagesOf), state: {} };
    if (memory.units.length > 0) indexOf(memory, tools);
    return memory;
  },

  retrieve(q: Question, memory: Memory, tools: Tools): Hit[] {
    if (memory.units.length === 0) return [];
    const query = bridgeQuery(expandQuery(q, memory, tools), tools);
    let hits = indexOf(memory, tools).search(query, Math.max(TOP_K, CANDIDATES));
    hits = rescoreHits(q, hits, memory, tools);
    hits = boostByTime(q, hits, memory);
    hits = speakerBoost(q, hits, memory, tools);
    hits = dateBoost(q, hits, memory, tools);
    hits = diversify(hits, memory);
    hits = learnedRank(q, hits, memory, tools);
    hits = perRecord(hits, memory);
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
