/**
 * Hybrid retrieval (RHELM's Hybrid baseline): one unit per record, ranked by BM25 and by embedding cosine
 * similarity (tools.embed: the configured endpoint, or the local deterministic embedding offline), the two
 * rankings fused by reciprocal rank fusion, and the fused list packed into the budget in rank order.
 */
import type { Bm25Index, Context, Hit, Memory, MemoryDesign, MemoryUnit, Question, SourceRecord, Tools } from '../sandbox/contract.ts';

/** Candidates taken from each ranking. */
const BM25_K = 50;
const EMBED_K = 50;
/** Hits returned after fusion. */
const TOP_K = 50;
/** RRF constant: score = Σ weight / (RRF_K + rank). */
const RRF_K = 60;
const BM25_WEIGHT = 1;
const EMBED_WEIGHT = 1;
/** Texts per embed call. */
const EMBED_BATCH = 256;
const BM25_K1 = 1.2;
const BM25_B = 0.75;

export const description =
  `Hybrid: BM25 (top ${BM25_K}) and embedding cosine (top ${EMBED_K}) over one unit per record, fused by reciprocal ` +
  `rank fusion (k = ${RRF_K}, weights ${BM25_WEIGHT}/${EMBED_WEIGHT}), packed into the budget in fused order.`;

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
  /** Unit-length vectors, aligned with memory.units. */
  vectors: number[][];
}

function bm25(memory: Memory, tools: Tools): Bm25Index {
  const state = memory.state as State;
  if (state.index && typeof state.index.search === 'function') return state.index;
  state.index = tools.bm25.index(memory.units.map((u) => ({ id: u.id, text: u.text })), { k1: BM25_K1, b: BM25_B });
  return state.index;
}

function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

function unitOf(r: SourceRecord): MemoryUnit {
  const u: MemoryUnit = { id: r.id, text: lineOf(r), sources: [r.id] };
  if (r.time) u.time = r.time;
  return u;
}

async function embedUnits(units: readonly MemoryUnit[], tools: Tools): Promise<number[][]> {
  const vectors: number[][] = [];
  for (let i = 0; i < units.length; i += EMBED_BATCH) {
    // Embed the text without the date stamp: dates carry no meaning for a bag-of-n-grams embedding.
    const batch = units.slice(i, i + EMBED_BATCH).map((u) => u.text.replace(/^\[[^\]]*\]\s*/, ''));
    vectors.push(...(await tools.embed.embed(batch)));
  }
  return vectors;
}

const design = {
  async store(records: SourceRecord[], tools: Tools): Promise<Memory> {
    const units: MemoryUnit[] = records.map(unitOf);
    const vectors = await embedUnits(units, tools);
    const index =
      units.length > 0 ? tools.bm25.index(units.map((u) => ({ id: u.id, text: u.text })), { k1: BM25_K1, b: BM25_B }) : undefined;
    const state: State = { vectors };
    if (index) state.index = index;
    return { units, state };
  },

  /** New units are embedded and appended (vectors stay aligned with units); the bm25 index grows by them. */
  async add(memory: Memory, records: SourceRecord[], tools: Tools): Promise<Memory> {
    const state = memory.state as State;
    const units = records.map(unitOf);
    const vectors = await embedUnits(units, tools);
    const docs = units.map((u) => ({ id: u.id, text: u.text }));
    const index = memory.units.length > 0 ? bm25(memory, tools).add(docs) : tools.bm25.index(docs, { k1: BM25_K1, b: BM25_B });
    memory.units.push(...units);
    state.vectors.push(...vectors);
    state.index = index;
    return memory;
  },

  async retrieve(q: Question, memory: Memory, tools: Tools): Promise<Hit[]> {
    if (memory.units.length === 0) return [];
    const state = memory.state as State;
    const lexical = bm25(memory, tools).search(q.text, BM25_K);
    const [qv] = await tools.embed.embed([q.text]);
    const dense = memory.units
      .map((u, i) => ({ unit: u.id, score: qv ? dot(qv, state.vectors[i] ?? []) : 0 }))
      .sort((a, b) => b.score - a.score)
      .slice(0, EMBED_K);
    const fused = new Map<string, number>();
    lexical.forEach((h, rank) => fused.set(h.unit, (fused.get(h.unit) ?? 0) + BM25_WEIGHT / (RRF_K + rank + 1)));
    dense.forEach((h, rank) => fused.set(h.unit, (fused.get(h.unit) ?? 0) + EMBED_WEIGHT / (RRF_K + rank + 1)));
    return [...fused]
      .map(([unit, score]) => ({ unit, score }))
      .sort((a, b) => b.score - a.score)
      .slice(0, TOP_K);
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
