import type { EditOp } from '../../design/edit-ops.ts';
import type { FailureTarget } from '../../config/run-options.ts';

/**
 * The building blocks the offline mutation proposer draws from. Each operator is a list of edit operations
 * (the same typed edits an LLM proposer emits) that turns a design of the Base-BM25 family into one with an
 * extra capability. Operators compose because the first one that touches a stage rewrites it into a small
 * pipeline of named slots (`expandQuery`, `rescoreHits`, `boostByTime`; `packUnits`, `orderUnits`; `indexDocs`),
 * and every later operator replaces one slot. Whether an operator still applies is read off the source:
 * the slot it installs carries a marker comment (`@block <name>`).
 *
 * The blocks only use what the contract gives a design (tools.bm25, tools.text, countTokens, unit provenance),
 * so they run unchanged in the sandbox.
 */

/** Which diagnosed failure an operator addresses. */
export type OperatorTarget = FailureTarget;

export interface MutationOperator {
  /** Stable name, recorded as the proposal's operator. */
  name: string;
  /** Failure categories it addresses, the first being the main one. */
  targets: OperatorTarget[];
  /** One line for the rationale. */
  why: string;
  /** Top-level names the design must already have (the Base-BM25 family's helpers). */
  requires: string[];
  /** Names whose presence means the operator was applied already. */
  marker: string;
  /** Edits to apply, given the names the design has now (so pipeline slots are installed only once). */
  edits(has: (name: string) => boolean, markers: (marker: string) => boolean): EditOp[];
}

// ───────────────────────────── retrieve pipeline ─────────────────────────────

const RETRIEVE_PIPELINE = `retrieve(q: Question, memory: Memory, tools: Tools): Hit[] {
    if (memory.units.length === 0) return [];
    const query = expandQuery(q, memory, tools);
    let hits = indexOf(memory, tools).search(query, Math.max(TOP_K, CANDIDATES));
    hits = rescoreHits(q, hits, memory, tools);
    hits = boostByTime(q, hits, memory);
    return hits.slice(0, TOP_K);
  }`;

/** The catalog's retrieve slots (exported so other offline proposers install the same pipeline). */
export const RETRIEVE_SLOTS = `/** Candidates scored before the final cut to TOP_K (rescoring can lift a unit from deep in the list). */
const CANDIDATES = 200;

/** The query sent to the index. @block query:identity */
function expandQuery(q: Question, memory: Memory, tools: Tools): string {
  void memory;
  void tools;
  return q.text;
}

/** Rescores the candidates. @block rescore:identity */
function rescoreHits(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  void q;
  void memory;
  void tools;
  return hits;
}

/** Adjusts scores by the question's time cues. @block time:identity */
function boostByTime(q: Question, hits: Hit[], memory: Memory): Hit[] {
  void q;
  void memory;
  return hits;
}`;

function retrievePipeline(has: (name: string) => boolean): EditOp[] {
  if (has('expandQuery')) return [];
  return [
    { op: 'add-helper', code: RETRIEVE_SLOTS },
    { op: 'replace-stage', stage: 'retrieve', code: RETRIEVE_PIPELINE },
  ];
}

/**
 * The design-side helper both thread-score blocks call (session fusion and the learned ranking): each thread's BM25
 * score as a share of the best thread of its own kind (chat session, e-mail thread, document), for the first `depth`
 * threads of each kind. Against one global best, a day of chat (thousands of words) out-scores a short e-mail on
 * length alone, and the e-mail questions are lost. Units without a `kind` in their meta form one group.
 */
export const THREAD_SCORES = `/** Each thread's BM25 score as a share of the best thread of its kind, the first depth of each kind. */
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
}`;

/** The edit that adds {@link THREAD_SCORES}, unless the design has it already (another block brought it). */
export function threadScoreEdits(has: (name: string) => boolean): EditOp[] {
  return has('threadScores') ? [] : [{ op: 'add-helper', code: THREAD_SCORES }];
}

const SESSION_FUSION = `function rescoreHits(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  // @block rescore:session-fusion — a turn in a session that matches the question as a whole is more likely
  // to be the evidence than an equally scored turn in an unrelated session.
  if (hits.length === 0) return hits;
  const state = (memory.state ?? {}) as {
    sessionIndex?: Bm25Index;
    threadOf?: Record<string, string>;
    threadKind?: Record<string, string>;
  };
  if (!state.sessionIndex || !state.threadOf || !state.threadKind) {
    const threadOf: Record<string, string> = {};
    const threadKind: Record<string, string> = {};
    const texts = new Map<string, string[]>();
    for (const u of memory.units) {
      const thread = String(u.meta?.thread ?? u.id);
      threadOf[u.id] = thread;
      threadKind[thread] = String(u.meta?.kind ?? '');
      const list = texts.get(thread);
      if (list) list.push(u.text);
      else texts.set(thread, [u.text]);
    }
    const docs = [...texts].map(([id, parts]) => ({ id, text: parts.join(' ') }));
    state.sessionIndex = tools.bm25.index(docs, { stem: STEM });
    state.threadOf = threadOf;
    state.threadKind = threadKind;
    memory.state = state;
  }
  const sessionScore = threadScores(state.sessionIndex, q.text, state.threadKind!, SESSION_CANDIDATES);
  const topTurn = hits[0]?.score || 1;
  return hits
    .map((h) => ({ unit: h.unit, score: h.score / topTurn + SESSION_WEIGHT * (sessionScore.get(state.threadOf![h.unit] ?? '') ?? 0) }))
    .sort((a, b) => b.score - a.score);
}`;

const PSEUDO_RELEVANCE = `function expandQuery(q: Question, memory: Memory, tools: Tools): string {
  // @block query:prf — pseudo-relevance feedback: the question's own words miss paraphrases that the best
  // first-round units use; their rarest shared terms are added to the query.
  const first = indexOf(memory, tools).search(q.text, PRF_DOCS);
  if (first.length === 0) return q.text;
  const state = (memory.state ?? {}) as { df?: Record<string, number> };
  if (!state.df) {
    const df: Record<string, number> = {};
    for (const u of memory.units) for (const t of new Set(tools.text.terms(u.text))) df[t] = (df[t] ?? 0) + 1;
    state.df = df;
    memory.state = state;
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
      if (own.has(t) || t.length < 3 || /^\\d+$/.test(t)) continue;
      const idf = Math.log(1 + n / (1 + (df[t] ?? 0)));
      weight.set(t, (weight.get(t) ?? 0) + idf);
    }
  }
  const extra = [...weight].filter(([, w]) => w > 0).sort((a, b) => b[1] - a[1]).slice(0, PRF_TERMS).map(([t]) => t);
  return extra.length ? q.text + ' ' + extra.join(' ') : q.text;
}`;

const TIME_BOOST = `function boostByTime(q: Question, hits: Hit[], memory: Memory): Hit[] {
  // @block time:month-year — "in May 2023", "last June": units dated in the month or year the question names
  // are more likely to hold the answer.
  const months = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
  const text = q.text.toLowerCase();
  const month = months.findIndex((m) => new RegExp('\\\\b' + m + '\\\\b').test(text));
  const yearMatch = /\\b(19|20)\\d{2}\\b/.exec(text);
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
}`;

// ───────────────────────────── store: what gets indexed ─────────────────────────────

const RECORD_UNITS = `const units: MemoryUnit[] = records.map((r) => {
      const meta: Record<string, string> = {};
      if (r.thread) meta.thread = r.thread;
      if (r.speaker) meta.speaker = r.speaker;
      const unit: MemoryUnit = { id: r.id, text: lineOf(r), sources: [r.id], meta };
      if (r.time) unit.time = r.time;
      return unit;
    });`;

const PASSAGE_UNITS = `// @block units:passages — long records are stored as passages (see passagesOf), each indexed with its neighbours.
    const units = records.flatMap(passagesOf);`;

/**
 * The store stage of a design that indexes `indexDocs(units)` (the index window). Its units are the design's own:
 * passages when it has `passagesOf` (the passage move came first), else one unit per record. Why both moves write
 * the store through here: each replaces the store stage, and a store that forgot the other move's units or index
 * documents would silently undo it while its marker stayed in the source (the move would never be proposed again).
 */
export function windowStore(passages: boolean): string {
  return `store(records: SourceRecord[], tools: Tools): Memory {
    ${passages ? PASSAGE_UNITS : RECORD_UNITS}
    const index = tools.bm25.index(indexDocs(units), { stem: STEM, k1: BM25_K1, b: BM25_B });
    return { units, state: { index } };
  }`;
}

/**
 * The add stage of a design whose store indexes `indexDocs(units)`: a unit's indexed text includes its neighbours,
 * which new records change, so the index is rebuilt over every unit (what store over all records would build).
 */
export function windowAdd(passages: boolean): string {
  return `function addRecords(memory: Memory, records: SourceRecord[], tools: Tools): Memory {
  // @block add:reindex — indexDocs reads each unit's thread neighbours, and new records are new neighbours.
  const units = [...memory.units, ...records.${passages ? 'flatMap(passagesOf)' : 'map(unitOf)'}];
  const index = tools.bm25.index(indexDocs(units), { stem: STEM, k1: BM25_K1, b: BM25_B });
  return { units, state: { index } };
}`;
}

const WINDOW_DOCS = `/** Neighbouring units of the same thread indexed with each unit (0 = the unit alone). */
const WINDOW = 1;

function indexDocs(units: MemoryUnit[]): Array<{ id: string; text: string }> {
  // @block index:window — a short chat turn ("Yes, last Tuesday!") is only findable through the turns around
  // it, so each unit is indexed with its neighbours while the context still delivers the unit alone.
  // Neighbours come from other records: a passage indexed with its own record's other passages would outrank the
  // passage that holds the answer for that passage's own words, and the context would deliver the wrong span.
  const recordOf = (u: MemoryUnit): string => String(u.meta?.record ?? u.id);
  return units.map((u, i) => {
    const parts = [u.text];
    const thread = u.meta?.thread;
    const own = recordOf(u);
    let b = i - 1;
    let a = i + 1;
    for (let d = 1; d <= WINDOW; d++, b--, a++) {
      while (b >= 0 && recordOf(units[b]!) === own) b--;
      while (a < units.length && recordOf(units[a]!) === own) a++;
      const before = units[b];
      const after = units[a];
      if (before && before.meta?.thread === thread) parts.unshift(before.text);
      if (after && after.meta?.thread === thread) parts.push(after.text);
    }
    return { id: u.id, text: parts.join(' ') };
  });
}`;

// ───────────────────────────── context pipeline ─────────────────────────────

const CONTEXT_PIPELINE = `context(q: Question, hits: Hit[], memory: Memory, tools: Tools, budget: { tokens: number }): Context {
    const byId = new Map(memory.units.map((u) => [u.id, u]));
    const chosen = orderUnits(packUnits(q, hits, memory, tools, budget), byId);
    return { text: chosen.map((id) => byId.get(id)!.text).join('\\n'), units: chosen };
  }`;

const CONTEXT_SLOTS = `/** Unit ids in rank order that fit the budget. @block pack:rank */
function packUnits(q: Question, hits: Hit[], memory: Memory, tools: Tools, budget: { tokens: number }): string[] {
  void q;
  const byId = new Map(memory.units.map((u) => [u.id, u]));
  const out: string[] = [];
  let used = 0;
  for (const h of hits) {
    const u = byId.get(h.unit);
    if (!u) continue;
    const cost = tools.countTokens(u.text) + 1;
    if (used + cost > budget.tokens) continue;
    out.push(u.id);
    used += cost;
  }
  return out;
}

/** The order units appear in. @block order:rank */
function orderUnits(ids: string[], byId: Map<string, MemoryUnit>): string[] {
  void byId;
  return ids;
}`;

function contextPipeline(has: (name: string) => boolean): EditOp[] {
  if (has('packUnits')) return [];
  return [
    { op: 'add-helper', code: CONTEXT_SLOTS },
    { op: 'replace-stage', stage: 'context', code: CONTEXT_PIPELINE },
  ];
}

const NEIGHBOUR_PACKING = `function packUnits(
  q: Question,
  hits: Hit[],
  memory: Memory,
  tools: Tools,
  budget: { tokens: number },
): string[] {
  // @block pack:neighbours — evidence is often split over adjacent turns (a question and its answer), so each
  // of the first hits brings its thread neighbours along while the budget lasts.
  void q;
  const index = new Map(memory.units.map((u, i) => [u.id, i]));
  const out: string[] = [];
  const seen = new Set<string>();
  let used = 0;
  const take = (i: number): void => {
    const u = memory.units[i];
    if (!u || seen.has(u.id)) return;
    const cost = tools.countTokens(u.text) + 1;
    if (used + cost > budget.tokens) return;
    seen.add(u.id);
    out.push(u.id);
    used += cost;
  };
  hits.forEach((h, rank) => {
    const i = index.get(h.unit);
    if (i === undefined) return;
    take(i);
    if (rank >= NEIGHBOUR_HITS) return;
    const thread = memory.units[i]!.meta?.thread;
    for (let d = 1; d <= NEIGHBOURS; d++) {
      for (const j of [i - d, i + d]) if (memory.units[j]?.meta?.thread === thread) take(j);
    }
  });
  return out;
}`;

const CHRONOLOGICAL = `function orderUnits(ids: string[], byId: Map<string, MemoryUnit>): string[] {
  // @block order:time — the answerer reads events in the order they happened, so "before"/"after" and the
  // latest state of a fact are read off the sequence.
  return [...ids].sort((a, b) => (byId.get(a)?.time ?? '').localeCompare(byId.get(b)?.time ?? ''));
}`;

const DEDUPE_PACKING = `function packUnits(q: Question, hits: Hit[], memory: Memory, tools: Tools, budget: { tokens: number }): string[] {
  // @block pack:dedupe — repeated messages waste the budget that a different piece of evidence could use.
  void q;
  const byId = new Map(memory.units.map((u) => [u.id, u]));
  const out: string[] = [];
  const seenText = new Set<string>();
  let used = 0;
  for (const h of hits) {
    const u = byId.get(h.unit);
    if (!u) continue;
    const key = tools.text.terms(u.text).join(' ');
    if (seenText.has(key)) continue;
    const cost = tools.countTokens(u.text) + 1;
    if (used + cost > budget.tokens) continue;
    seenText.add(key);
    out.push(u.id);
    used += cost;
  }
  return out;
}`;

/** The catalog, in no particular order; the proposer picks by diagnosed failure category. */
export const MUTATION_OPERATORS: readonly MutationOperator[] = [
  {
    name: 'index-window',
    targets: ['storage', 'retrieval'],
    why: 'index each unit together with its thread neighbours so short turns become findable',
    requires: ['lineOf', 'indexOf', 'STEM', 'BM25_K1', 'BM25_B'],
    marker: '@block index:window',
    edits: (has) => [
      ...(has('indexDocs')
        ? [{ op: 'replace-function' as const, name: 'indexDocs', code: WINDOW_DOCS.slice(WINDOW_DOCS.indexOf('function')) }]
        : [{ op: 'add-helper' as const, code: WINDOW_DOCS }]),
      { op: 'replace-stage', stage: 'store', code: windowStore(has('passagesOf')) },
      // A design with an add stage (addRecords, as seeds/base-bm25.ts has) must keep store(all) ≡ store + add.
      ...(has('addRecords') && (has('passagesOf') || has('unitOf'))
        ? [{ op: 'replace-function' as const, name: 'addRecords', code: windowAdd(has('passagesOf')) }]
        : []),
    ],
  },
  {
    name: 'session-fusion',
    targets: ['retrieval'],
    why: "fuse each unit's score with its session's BM25 score (session-level relevance)",
    requires: ['indexOf', 'TOP_K', 'STEM'],
    marker: '@block rescore:session-fusion',
    edits: (has) => [
      ...retrievePipeline(has),
      {
        op: 'add-helper',
        code:
          "/** Weight of the session score fused into each unit's score. */\nconst SESSION_WEIGHT = 0.6;\n" +
          '/** Sessions scored per question. */\nconst SESSION_CANDIDATES = 30;',
      },
      ...threadScoreEdits(has),
      { op: 'replace-function', name: 'rescoreHits', code: SESSION_FUSION },
    ],
  },
  {
    name: 'query-prf',
    targets: ['retrieval'],
    why: 'expand the query with distinctive terms of the first-round hits (pseudo-relevance feedback)',
    requires: ['indexOf', 'TOP_K', 'STEM'],
    marker: '@block query:prf',
    edits: (has) => [
      ...retrievePipeline(has),
      {
        op: 'add-helper',
        code:
          '/** First-round units read for feedback terms. */\nconst PRF_DOCS = 3;\n' +
          '/** Feedback terms added to the query. */\nconst PRF_TERMS = 4;',
      },
      { op: 'replace-function', name: 'expandQuery', code: PSEUDO_RELEVANCE },
    ],
  },
  {
    name: 'time-boost',
    targets: ['retrieval'],
    why: 'boost units dated in the month/year the question names',
    requires: ['indexOf', 'TOP_K', 'STEM'],
    marker: '@block time:month-year',
    edits: (has) => [
      ...retrievePipeline(has),
      {
        op: 'add-helper',
        code: '/** Score bonus (share of the top score) for units dated when the question says. */\nconst TIME_BOOST = 0.3;',
      },
      { op: 'replace-function', name: 'boostByTime', code: TIME_BOOST },
    ],
  },
  {
    name: 'neighbour-packing',
    targets: ['answering'],
    why: 'deliver the thread neighbours of the best hits with them',
    requires: [],
    marker: '@block pack:neighbours',
    edits: (has) => [
      ...contextPipeline(has),
      {
        op: 'add-helper',
        code:
          '/** Neighbours on each side delivered with a top hit. */\nconst NEIGHBOURS = 1;\n' +
          '/** How many top hits bring neighbours. */\nconst NEIGHBOUR_HITS = 3;',
      },
      { op: 'replace-function', name: 'packUnits', code: NEIGHBOUR_PACKING },
    ],
  },
  {
    name: 'dedupe-packing',
    targets: ['answering'],
    why: 'skip units whose terms repeat a delivered unit, freeing budget',
    requires: [],
    marker: '@block pack:dedupe',
    edits: (has) => [...contextPipeline(has), { op: 'replace-function', name: 'packUnits', code: DEDUPE_PACKING }],
  },
  {
    name: 'chronological-order',
    targets: ['answering'],
    why: 'order the delivered units by time',
    requires: [],
    marker: '@block order:time',
    edits: (has) => [...contextPipeline(has), { op: 'replace-function', name: 'orderUnits', code: CHRONOLOGICAL }],
  },
];

/**
 * Ranges for constant tweaks, by constant name. A constant not listed here is tweaked by ±50% (integers stay
 * integers). `step` is the largest change one tweak makes.
 */
export const CONSTANT_RANGES: Readonly<Record<string, { min: number; max: number; step: number; integer?: boolean }>> = {
  TOP_K: { min: 10, max: 200, step: 20, integer: true },
  CANDIDATES: { min: 50, max: 400, step: 50, integer: true },
  BM25_K1: { min: 0.3, max: 2.5, step: 0.3 },
  BM25_B: { min: 0.1, max: 1, step: 0.15 },
  WINDOW: { min: 0, max: 3, step: 1, integer: true },
  SESSION_WEIGHT: { min: 0, max: 2, step: 0.25 },
  SESSION_CANDIDATES: { min: 5, max: 100, step: 10, integer: true },
  PRF_DOCS: { min: 1, max: 10, step: 2, integer: true },
  PRF_TERMS: { min: 1, max: 15, step: 3, integer: true },
  TIME_BOOST: { min: 0, max: 1.5, step: 0.15 },
  NEIGHBOURS: { min: 0, max: 3, step: 1, integer: true },
  NEIGHBOUR_HITS: { min: 1, max: 10, step: 2, integer: true },
  // The case-driven proposer's blocks (case-blocks.ts).
  BRIDGE_TERMS: { min: 1, max: 15, step: 3, integer: true },
  SPEAKER_WEIGHT: { min: 0, max: 1, step: 0.1 },
  DATE_WEIGHT: { min: 0, max: 1.5, step: 0.15 },
  DIVERSITY: { min: 0.5, max: 1, step: 0.05 },
  RECENCY_WEIGHT: { min: 0, max: 1, step: 0.1 },
  RECENCY_HALF_LIFE: { min: 7, max: 365, step: 30, integer: true },
  LTR_DEPTH: { min: 10, max: 200, step: 15, integer: true },
  // The passage-units move (passage-blocks.ts): at least 8 words, so a passage still verifies as a quote.
  PASSAGE_WORDS: { min: 20, max: 300, step: 20, integer: true },
  PASSAGE_MIN_WORDS: { min: 8, max: 40, step: 4, integer: true },
  RECORD_WEIGHT: { min: 0, max: 3, step: 0.25 },
  RECORD_CANDIDATES: { min: 50, max: 800, step: 100, integer: true },
};

/** Which constants belong to which failure target (tweaks follow the diagnosis like structural operators). */
export const CONSTANT_TARGETS: Readonly<Record<string, OperatorTarget>> = {
  WINDOW: 'storage',
  TOP_K: 'retrieval',
  CANDIDATES: 'retrieval',
  BM25_K1: 'retrieval',
  BM25_B: 'retrieval',
  SESSION_WEIGHT: 'retrieval',
  SESSION_CANDIDATES: 'retrieval',
  PRF_DOCS: 'retrieval',
  PRF_TERMS: 'retrieval',
  TIME_BOOST: 'retrieval',
  NEIGHBOURS: 'answering',
  NEIGHBOUR_HITS: 'answering',
  BRIDGE_TERMS: 'retrieval',
  SPEAKER_WEIGHT: 'retrieval',
  DATE_WEIGHT: 'retrieval',
  DIVERSITY: 'retrieval',
  RECENCY_WEIGHT: 'retrieval',
  RECENCY_HALF_LIFE: 'retrieval',
  LTR_DEPTH: 'retrieval',
  PASSAGE_WORDS: 'storage',
  PASSAGE_MIN_WORDS: 'storage',
  RECORD_WEIGHT: 'retrieval',
  RECORD_CANDIDATES: 'retrieval',
};
