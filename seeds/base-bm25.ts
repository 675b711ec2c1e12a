/**
 * Base-BM25 (MemSteer's baseline): one memory unit per record, BM25 over the units with the question as the
 * query, and the ranked units packed into the budget in rank order. Each context line carries the record's
 * date and speaker ("[8 May 2023 13:56] Caroline: …") so the answerer can resolve "when" questions.
 */
import type { Bm25Index, Context, Hit, Memory, MemoryDesign, MemoryUnit, Question, SourceRecord, Tools } from '../sandbox/contract.ts';

/** Candidates retrieved per question. */
const TOP_K = 50;
/** BM25 term-frequency saturation and length normalisation. */
const BM25_K1 = 1.2;
const BM25_B = 0.75;
/** Porter-stem index and query terms. */
const STEM = true;
/** Put the record's date words ("May 2023") into the indexed text so dated questions can match them. */
const INDEX_DATES = true;

export const description =
  'Base-BM25: one unit per record (text plus time, speaker, title), BM25 over units with the question as query, ' +
  `top ${TOP_K} units packed into the budget in rank order, each line prefixed with its date and speaker.`;

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

interface State {
  index?: Bm25Index;
}

function indexOf(memory: Memory, tools: Tools): Bm25Index {
  const state = (memory.state ?? {}) as State;
  if (state.index && typeof state.index.search === 'function') return state.index;
  // Rebuilt only if state lost the handle; the host caches indexes by content, so this is cheap.
  const index = tools.bm25.index(memory.units.map((u) => ({ id: u.id, text: u.text })), { stem: STEM, k1: BM25_K1, b: BM25_B });
  memory.state = { ...state, index };
  return index;
}

/** One memory unit per record. */
function unitOf(r: SourceRecord): MemoryUnit {
  const meta: Record<string, string> = { kind: r.kind };
  if (r.thread) meta.thread = r.thread;
  if (r.speaker) meta.speaker = r.speaker;
  const unit: MemoryUnit = { id: r.id, text: lineOf(r), sources: [r.id], meta };
  if (r.time) unit.time = r.time;
  return unit;
}

/** What the index holds for a unit. */
function docOf(u: MemoryUnit): { id: string; text: string } {
  return { id: u.id, text: INDEX_DATES ? u.text : u.text.replace(/^\[[^\]]*\]\s*/, '') };
}

/**
 * New records become new units and the index grows by their documents (no rebuild). Anything else kept in state was
 * derived from the smaller memory, so it is dropped and recomputed when next needed.
 */
function addRecords(memory: Memory, records: SourceRecord[], tools: Tools): Memory {
  const units = records.map(unitOf);
  const index = indexOf(memory, tools).add(units.map(docOf));
  memory.units.push(...units);
  memory.state = { index } satisfies State;
  return memory;
}

const design = {
  store(records: SourceRecord[], tools: Tools): Memory {
    const units: MemoryUnit[] = records.map(unitOf);
    const index = tools.bm25.index(units.map(docOf), { stem: STEM, k1: BM25_K1, b: BM25_B });
    return { units, state: { index } satisfies State };
  },

  add(memory: Memory, records: SourceRecord[], tools: Tools): Memory {
    return addRecords(memory, records, tools);
  },

  retrieve(q: Question, memory: Memory, tools: Tools): Hit[] {
    if (memory.units.length === 0) return [];
    return indexOf(memory, tools).search(q.text, TOP_K);
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
      // Skip what does not fit and keep going: a shorter unit further down may still fit.
      if (used + cost > budget.tokens) continue;
      lines.push(u.text);
      units.push(u.id);
      used += cost;
    }
    return { text: lines.join('\n'), units };
  },
} satisfies MemoryDesign;

export default design;
