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
  const meta: Record<string, string> = {};
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
  // @block units:passages — added records become passages too, so store and add agree.
  const units = records.flatMap(passagesOf);
  const index = indexOf(memory, tools).add(units.map(docOf));
  memory.units.push(...units);
  memory.state = { index };
  return memory;
}

/** Candidates scored before the final cut to TOP_K (rescoring can lift a unit from deep in the list). */
const CANDIDATES = 200;

/** The query sent to the index. @block query:identity */
const FRAME = new Set([
  'remind', 'conversation', 'conversations', 'discussion', 'discussions', 'discuss', 'discussed', 'mentioned', 'mention',
  'talked', 'talk', 'asked', 'recall', 'tell', 'previous', 'earlier', 'last', 'recent', 'help', 'draft', 'can', 'could',
]);
function expandQuery(q: Question, memory: Memory, tools: Tools): string {
  void memory;
  return q.text.split(/\s+/).filter((w) => !FRAME.has(w.toLowerCase().replace(/[^a-z]/g, ''))).join(' ');
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
  const sessions = state.sessionIndex.search(q.text, SESSION_CANDIDATES);
  const topSession = sessions[0]?.score || 1;
  const sessionScore = new Map(sessions.map((s) => [s.unit, s.score / topSession]));
  const topTurn = hits[0]?.score || 1;
  return hits
    .map((h) => ({ unit: h.unit, score: h.score / topTurn + SESSION_WEIGHT * (sessionScore.get(state.threadOf![h.unit] ?? '') ?? 0) }))
    .sort((a, b) => b.score - a.score);
}

/** Adjusts scores by the question's time cues. @block time:identity */
function boostByTime(q: Question, hits: Hit[], memory: Memory): Hit[] {
  void q;
  void memory;
  return hits;
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
  void q;
  void memory;
  void tools;
  return hits;
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

/** Weight of the session score fused into each unit's score. */
const SESSION_WEIGHT = 0.6;
/** Sessions scored per question. */
const SESSION_CANDIDATES = 30;

const design = {
  store(records: SourceRecord[], tools: Tools): Memory {
    // @block units:passages — long records are stored as passages (see passagesOf).
    const memory: Memory = { units: records.flatMap(passagesOf), state: {} };
    if (memory.units.length > 0) indexOf(memory, tools);
    return memory;
  },

  add(memory: Memory, records: SourceRecord[], tools: Tools): Memory {
    return addRecords(memory, records, tools);
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
