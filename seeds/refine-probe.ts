/**
 * Iterative refine-and-probe retrieval (after MemMA's query reasoner). Round 1 is BM25 with the question. Then
 * the query is refined from what round 1 found and the memory is probed again; the rounds are fused by
 * reciprocal rank fusion.
 *
 * - With an LLM (tools.llm.available): the model reads the question and the top hits and writes a better
 *   search query (names, synonyms, the missing facts).
 * - Offline fallback: pseudo-relevance feedback. The query is expanded with the highest-weighted terms
 *   (term frequency × IDF, IDF from the whole memory) of round 1's top hits, and memory is probed again.
 */
import type { Bm25Index, Context, Hit, Memory, MemoryDesign, MemoryUnit, Question, SourceRecord, Tools } from '../sandbox/contract.ts';

/** Hits per probe. */
const PROBE_K = 50;
/** Refinement rounds after the first probe. */
const ROUNDS = 1;
/** Round-1 hits the refiner reads (LLM) or mines for terms (offline). */
const FEEDBACK_DOCS = 5;
/** Expansion terms added per offline round. */
const EXPANSION_TERMS = 6;
/** Times the original question is repeated in an expanded query (keeps it dominant). */
const ORIGINAL_REPEAT = 2;
/** RRF constant and the weight of the first round against refined rounds. */
const RRF_K = 60;
const FIRST_ROUND_WEIGHT = 1.5;
const REFINED_WEIGHT = 1;
const LLM_MAX_TOKENS = 80;
const BM25_K1 = 1.2;
const BM25_B = 0.75;

export const description =
  'Refine-and-probe: BM25 with the question, then the query is refined from the first hits and memory probed again, ' +
  'rounds fused by RRF. With an LLM the model rewrites the query; offline fallback: pseudo-relevance feedback ' +
  `(top ${EXPANSION_TERMS} tf·idf terms of the top ${FEEDBACK_DOCS} hits added to the query).`;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function stamp(time: string | undefined): string {
  if (!time) return '';
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?/.exec(time);
  if (!m) return time;
  const date = `${Number(m[3])} ${MONTHS[Number(m[2]) - 1] ?? m[2]} ${m[1]}`;
  return m[4] ? `${date} ${m[4]}:${m[5]}` : date;
}

function lineOf(r: SourceRecord): string {
  const when = stamp(r.time);
  const head = `${when ? `[${when}] ` : ''}${r.speaker ? `${r.speaker}: ` : ''}`;
  return `${head}${r.title ? `(${r.title}) ` : ''}${r.text.replace(/\s*\n\s*/g, ' ')}`;
}

interface State {
  index?: Bm25Index;
  /** Document frequency of each term over the units (for the offline expansion's IDF). */
  df: Record<string, number>;
}

function bm25(memory: Memory, tools: Tools): Bm25Index {
  const state = memory.state as State;
  if (state.index && typeof state.index.search === 'function') return state.index;
  state.index = tools.bm25.index(memory.units.map((u) => ({ id: u.id, text: u.text })), { k1: BM25_K1, b: BM25_B });
  return state.index;
}

/** Offline refinement: the query plus the best tf·idf terms of the feedback units. */
function expandQuery(question: string, feedback: MemoryUnit[], memory: Memory, tools: Tools): string {
  const state = memory.state as State;
  const n = memory.units.length;
  const asked = new Set(tools.text.terms(question));
  const weight = new Map<string, number>();
  for (const u of feedback) {
    const tf = new Map<string, number>();
    for (const t of tools.text.terms(u.text)) if (!asked.has(t) && !/^\d+$/.test(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, c] of tf) {
      const idf = Math.log(1 + n / (1 + (state.df[t] ?? 0)));
      weight.set(t, (weight.get(t) ?? 0) + (1 + Math.log(c)) * idf);
    }
  }
  const extra = [...weight].sort((a, b) => b[1] - a[1]).slice(0, EXPANSION_TERMS).map(([t]) => t);
  return `${Array(ORIGINAL_REPEAT).fill(question).join(' ')} ${extra.join(' ')}`;
}

/** LLM refinement: a rewritten search query; falls back to the offline expansion on any failure. */
async function rewriteQuery(question: string, feedback: MemoryUnit[], memory: Memory, tools: Tools): Promise<string> {
  const prompt =
    'You improve search queries over a personal memory store (keyword search, BM25).\n' +
    `Question: ${question}\n` +
    `Top results so far:\n${feedback.map((u, i) => `${i + 1}. ${u.text.slice(0, 300)}`).join('\n')}\n` +
    'Write ONE search query (keywords only, no explanation) that would find the memory answering the question: ' +
    'include names, synonyms and the facts still missing.';
  try {
    const reply = (await tools.llm.complete(prompt, { maxTokens: LLM_MAX_TOKENS, temperature: 0 })).split('\n')[0]!.trim();
    return reply ? `${question} ${reply}` : expandQuery(question, feedback, memory, tools);
  } catch (err) {
    tools.log(`refine: llm failed (${err instanceof Error ? err.message : String(err)}); using pseudo-relevance feedback`);
    return expandQuery(question, feedback, memory, tools);
  }
}

function unitOf(r: SourceRecord): MemoryUnit {
  const u: MemoryUnit = { id: r.id, text: lineOf(r), sources: [r.id] };
  if (r.time) u.time = r.time;
  return u;
}

function countTerms(units: readonly MemoryUnit[], df: Record<string, number>, tools: Tools): void {
  for (const u of units) for (const t of new Set(tools.text.terms(u.text))) df[t] = (df[t] ?? 0) + 1;
}

const design = {
  store(records: SourceRecord[], tools: Tools): Memory {
    const units: MemoryUnit[] = records.map(unitOf);
    // No prototype: a term such as "constructor" must not find Object.prototype's.
    const df: Record<string, number> = Object.create(null);
    countTerms(units, df, tools);
    const state: State = { df };
    if (units.length > 0) state.index = tools.bm25.index(units.map((u) => ({ id: u.id, text: u.text })), { k1: BM25_K1, b: BM25_B });
    return { units, state };
  },

  /** New units are appended, their terms counted into df, and the bm25 index grows by them. */
  add(memory: Memory, records: SourceRecord[], tools: Tools): Memory {
    const state = memory.state as State;
    const units = records.map(unitOf);
    countTerms(units, state.df, tools);
    const docs = units.map((u) => ({ id: u.id, text: u.text }));
    state.index = memory.units.length > 0 ? bm25(memory, tools).add(docs) : tools.bm25.index(docs, { k1: BM25_K1, b: BM25_B });
    memory.units.push(...units);
    return memory;
  },

  async retrieve(q: Question, memory: Memory, tools: Tools): Promise<Hit[]> {
    if (memory.units.length === 0) return [];
    const index = bm25(memory, tools);
    const byId = new Map(memory.units.map((u) => [u.id, u]));
    const rounds: Hit[][] = [index.search(q.text, PROBE_K)];
    for (let r = 0; r < ROUNDS; r++) {
      const feedback = rounds[rounds.length - 1]!.slice(0, FEEDBACK_DOCS).map((h) => byId.get(h.unit)!).filter(Boolean);
      if (feedback.length === 0) break;
      const query = tools.llm.available
        ? await rewriteQuery(q.text, feedback, memory, tools)
        : expandQuery(q.text, feedback, memory, tools);
      rounds.push(index.search(query, PROBE_K));
    }
    const fused = new Map<string, number>();
    rounds.forEach((hits, r) => {
      const w = r === 0 ? FIRST_ROUND_WEIGHT : REFINED_WEIGHT;
      hits.forEach((h, rank) => fused.set(h.unit, (fused.get(h.unit) ?? 0) + w / (RRF_K + rank + 1)));
    });
    return [...fused].map(([unit, score]) => ({ unit, score })).sort((a, b) => b.score - a.score).slice(0, PROBE_K);
  },

  context(q: Question, hits: Hit[], memory: Memory, tools: Tools, budget: { tokens: number }): Context {
    const byId = new Map(memory.units.map((u) => [u.id, u]));
    const lines: string[] = [];
    const units: string[] = [];
    let used = 0;
    for (const h of hits) {
      const u = byId.get(h.unit);
      if (!u) continue;
      const cost = tools.countTokens(u.text) + 1;
      if (used + cost > budget.tokens) continue;
      lines.push(u.text);
      units.push(u.id);
      used += cost;
    }
    return { text: lines.join('\n'), units };
  },
} satisfies MemoryDesign;

export default design;
