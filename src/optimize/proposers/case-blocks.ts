import type { EditOp } from '../../design/edit-ops.ts';
import { RETRIEVE_SLOTS } from './mutation-catalog.ts';

/**
 * The design code the case-driven proposer writes. The first case move turns `retrieve` into a pipeline with one
 * named slot per kind of fix — query bridging, a passage's record score, speaker and date cues, learned reranking,
 * session diversity, one passage per record — each an identity until a move fills it, so moves compose in any order.
 * The pipeline keeps the catalog's slots (`expandQuery`, `rescoreHits`, `boostByTime`), so catalog operators still
 * apply after it and before it.
 * Filled slots carry a marker comment (`@block <name>`) by which the proposer sees what a design already has.
 *
 * Fitted values (the bridge table, the ranking weights) are written into the design as constants: the host fits
 * them on the training split, the design only reads them.
 */

const CASE_RETRIEVE = `retrieve(q: Question, memory: Memory, tools: Tools): Hit[] {
    if (memory.units.length === 0) return [];
    const query = bridgeQuery(expandQuery(q, memory, tools), tools);
    let hits = indexOf(memory, tools).search(query, Math.max(TOP_K, CANDIDATES));
    hits = rescoreHits(q, hits, memory, tools);
    hits = fuseRecords(q, hits, memory, tools);
    hits = boostByTime(q, hits, memory);
    hits = speakerBoost(q, hits, memory, tools);
    hits = dateBoost(q, hits, memory, tools);
    hits = recencyBoost(q, hits, memory);
    hits = diversify(hits, memory);
    hits = learnedRank(q, hits, memory, tools);
    hits = perRecord(hits, memory);
    return hits.slice(0, TOP_K);
  }`;

const CASE_SLOTS = `/** Adds terms to the query. @block bridge:identity */
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

/** Favours units dated shortly before the question's day. @block recency:identity */
function recencyBoost(q: Question, hits: Hit[], memory: Memory): Hit[] {
  void q;
  void memory;
  return hits;
}

/** Spreads the ranking over sessions. @block diversity:identity */
function diversify(hits: Hit[], memory: Memory): Hit[] {
  void memory;
  return hits;
}

/** Adds the score of each unit's whole record (when a record is stored as several units). @block records:identity */
function fuseRecords(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  void q;
  void memory;
  void tools;
  return hits;
}

/** Keeps the units the ranking shows per record (several when a record is stored as passages). @block record:identity */
function perRecord(hits: Hit[], memory: Memory): Hit[] {
  void memory;
  return hits;
}

/** Reranks the candidates. @block rank:identity */
function learnedRank(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  void q;
  void memory;
  void tools;
  return hits;
}`;

/** The edits that install the case pipeline (none when the design has it already). */
export function casePipeline(has: (name: string) => boolean): EditOp[] {
  if (has('bridgeQuery')) return [];
  return [
    ...(has('expandQuery') ? [] : [{ op: 'add-helper' as const, code: RETRIEVE_SLOTS }]),
    { op: 'add-helper', code: CASE_SLOTS },
    { op: 'replace-stage', stage: 'retrieve', code: CASE_RETRIEVE },
  ];
}

/** Names a design must have for the case pipeline to fit it (the Base-BM25 family's helpers). */
export const CASE_REQUIRES = ['indexOf', 'TOP_K', 'STEM'];

// ───────────────────────────── slot fillers ─────────────────────────────

export const BRIDGE_QUERY = `function bridgeQuery(query: string, tools: Tools): string {
  // @block bridge:table — the training questions ask in other words than their evidence says: each question term
  // brings the evidence words that co-occurred with it (BRIDGES, mined on the host from question→evidence pairs).
  const extra: string[] = [];
  for (const t of new Set(tools.text.terms(query))) {
    for (const w of BRIDGES[t] ?? []) if (!extra.includes(w)) extra.push(w);
  }
  return extra.length ? query + ' ' + extra.slice(0, BRIDGE_TERMS).join(' ') : query;
}`;

/** The bridge table and its cap, as add-helper code. */
export function bridgeTable(bridges: Record<string, string[]>): string {
  const rows = Object.entries(bridges)
    .map(([k, v]) => `  ${JSON.stringify(k)}: [${v.map((w) => JSON.stringify(w)).join(', ')}],`)
    .join('\n');
  return (
    '/** Question term (stem) → evidence words that co-occur with it in the training split (fitted on the host). */\n' +
    `const BRIDGES: Record<string, string[]> = {\n${rows}\n};\n` +
    '/** Bridge words added to one query at most. */\nconst BRIDGE_TERMS = 6;'
  );
}

export const SPEAKER_BOOST = `function speakerBoost(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  // @block speaker:named — "What did Ana say about…": units said by a person the question names are more likely
  // the evidence than equally scored units said by someone else. No preference when everyone is named.
  if (hits.length === 0) return hits;
  const words = new Set(tools.text.tokenize(q.text));
  const speakerOf = new Map(memory.units.map((u) => [u.id, String(u.meta?.speaker ?? '')]));
  const speakers = new Set([...speakerOf.values()].filter((s) => s !== ''));
  const named = new Set([...speakers].filter((s) => words.has(tools.text.tokenize(s)[0] ?? '')));
  if (named.size === 0 || named.size === speakers.size) return hits;
  const top = hits[0]?.score || 1;
  return hits
    .map((h) => (named.has(speakerOf.get(h.unit) ?? '') ? { unit: h.unit, score: h.score + SPEAKER_WEIGHT * top } : h))
    .sort((a, b) => b.score - a.score);
}`;

export const SPEAKER_CONSTANTS =
  '/** Score bonus (share of the top score) for units said by a person the question names. */\nconst SPEAKER_WEIGHT = 0.15;';

export const DATE_BOOST = `function dateBoost(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  // @block date:resolved — the question's date phrases ("on 8 May 2023", "last week" asked on a date) resolved to
  // a day, month or year: units dated then are more likely the evidence.
  if (hits.length === 0) return hits;
  let cues: string[] = [];
  try {
    cues = tools.text.dates(q.text, q.date).map((d) => d.date);
  } catch {
    cues = tools.text.dates(q.text).map((d) => d.date);
  }
  if (cues.length === 0) return hits;
  const timeOf = new Map(memory.units.map((u) => [u.id, u.time ?? '']));
  const top = hits[0]?.score || 1;
  return hits
    .map((h) => {
      const t = timeOf.get(h.unit) ?? '';
      return t && cues.some((c) => t.startsWith(c)) ? { unit: h.unit, score: h.score + DATE_WEIGHT * top } : h;
    })
    .sort((a, b) => b.score - a.score);
}`;

export const DATE_CONSTANTS =
  '/** Score bonus (share of the top score) for units dated when the question says. */\nconst DATE_WEIGHT = 0.3;';

export const RECENCY_BOOST = `function recencyBoost(q: Question, hits: Hit[], memory: Memory): Hit[] {
  // @block recency:asked — a question asked on a day is more often about the weeks before it than about the rest of
  // the history: units dated before the question's day gain a bonus that halves every RECENCY_HALF_LIFE days.
  if (hits.length === 0 || !q.date) return hits;
  const asked = Date.parse(q.date.slice(0, 10));
  if (Number.isNaN(asked)) return hits;
  const timeOf = new Map(memory.units.map((u) => [u.id, u.time ?? '']));
  const top = hits[0]?.score || 1;
  return hits
    .map((h) => {
      const t = Date.parse((timeOf.get(h.unit) ?? '').slice(0, 10));
      if (Number.isNaN(t)) return h;
      const age = Math.max(0, (asked - t) / 86400000);
      return { unit: h.unit, score: h.score + RECENCY_WEIGHT * top * Math.pow(2, -age / RECENCY_HALF_LIFE) };
    })
    .sort((a, b) => b.score - a.score);
}`;

// The starting values are Base-BM25's best of a 4 × 2 grid on the official questions of RHELM's development personas.
export const RECENCY_CONSTANTS =
  "/** Score bonus (share of the top score) for a unit dated on the question's day; it halves every RECENCY_HALF_LIFE days. */\n" +
  'const RECENCY_WEIGHT = 0.2;\n' +
  '/** Days over which the recency bonus halves. */\nconst RECENCY_HALF_LIFE = 90;';

export const DIVERSIFY = `function diversify(hits: Hit[], memory: Memory): Hit[] {
  // @block diversity:sessions — evidence spread over several sessions is lost when one session fills the top:
  // each further unit of a session already ranked is discounted.
  const threadOf = new Map(memory.units.map((u) => [u.id, String(u.meta?.thread ?? u.id)]));
  const seen = new Map<string, number>();
  return hits
    .map((h) => {
      const t = threadOf.get(h.unit) ?? h.unit;
      const n = seen.get(t) ?? 0;
      seen.set(t, n + 1);
      return { unit: h.unit, score: h.score * Math.pow(DIVERSITY, n) };
    })
    .sort((a, b) => b.score - a.score);
}`;

export const DIVERSITY_CONSTANTS =
  '/** Discount of each further unit from an already ranked session (1 = none). */\nconst DIVERSITY = 0.85;';

/** Feature names of the learned ranking, in LTR_WEIGHTS order (the host's mirror computes the same ones). */
export const RANK_FEATURES = ['rank', 'session', 'coverage', 'speaker', 'date', 'neighbour'] as const;

export const LEARNED_RANK = `function learnedRank(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  // @block rank:learned — a linear ranking of features the design computes, with weights fitted on the training
  // split by the host (LTR_WEIGHTS, in the order: incoming rank, session score as a share of the best thread of its
  // kind, query coverage, speaker named, date cue met, best incoming rank of a thread neighbour).
  if (hits.length === 0) return hits;
  const state = (memory.state ?? {}) as {
    ltrSessions?: Bm25Index;
    ltrThread?: Record<string, string>;
    ltrKind?: Record<string, string>;
  };
  if (!state.ltrSessions || !state.ltrThread || !state.ltrKind) {
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
    state.ltrSessions = tools.bm25.index([...texts].map(([id, parts]) => ({ id, text: parts.join(' ') })), { stem: STEM });
    state.ltrThread = threadOf;
    state.ltrKind = threadKind;
    memory.state = state;
  }
  const threadOf = state.ltrThread;
  const sessionScore = threadScores(state.ltrSessions, q.text, state.ltrKind, 50);
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
}`;

/** The fitted ranking weights as add-helper code. */
export function rankWeights(weights: readonly number[], depth: number): string {
  return (
    `/** Weights of ${RANK_FEATURES.join(', ')} (fitted on the training split by the host). */\n` +
    `const LTR_WEIGHTS = [${weights.join(', ')}];\n` +
    `/** Candidates reranked (as deep as the rankings the weights were fitted on). */\nconst LTR_DEPTH = ${depth};`
  );
}
