/**
 * Think-and-rank over sessions (after MemSifter's proxy reranker). BM25 over turns nominates candidate
 * sessions; the candidates are then reranked as wholes and the best turns of the top sessions are delivered.
 *
 * - With an LLM (tools.llm.available): the model reads the candidate sessions (date + best turns) and returns
 *   their ranking.
 * - Offline fallback: a coverage score. A session ranks by how many distinct query terms it covers (IDF-weighted,
 *   so rare terms count more), plus its best BM25 turn score, plus a time bonus when the question names a month
 *   or year and the session falls in it.
 */
import type { Bm25Index, Context, Hit, Memory, MemoryDesign, MemoryUnit, Question, SourceRecord, Tools } from '../sandbox/contract.ts';

/** Turn hits that nominate sessions. */
const TURN_K = 60;
/** Candidate sessions reranked. */
const CANDIDATES = 12;
/** Sessions returned. */
const TOP_SESSIONS = 6;
/** Offline score = COVERAGE_WEIGHT × covered-IDF share + BM25_WEIGHT × best turn (normalised) + TIME_BONUS. */
const COVERAGE_WEIGHT = 1;
const BM25_WEIGHT = 0.5;
const TIME_BONUS = 0.3;
/** Turns of each candidate session shown to the LLM. */
const LLM_TURNS_PER_SESSION = 4;
const LLM_MAX_TOKENS = 60;
/** Neighbouring turns delivered with a selected turn. */
const NEIGHBOURS = 1;
const BM25_K1 = 1.2;
const BM25_B = 0.75;

export const description =
  `Think-and-rank: BM25 over turns nominates ${CANDIDATES} sessions, which are reranked as wholes (LLM ranking when ` +
  'available; offline fallback: IDF-weighted query-term coverage + best turn score + a bonus for sessions in a month/year ' +
  `the question names); the best turns of the top ${TOP_SESSIONS} sessions are packed into the budget.`;

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
  /** Session id → its turn unit ids in order. */
  turns: Record<string, string[]>;
  /** Turn unit id → session id. */
  sessionOf: Record<string, string>;
  df: Record<string, number>;
}

function turnIndex(memory: Memory, tools: Tools): Bm25Index {
  const state = memory.state as State;
  if (state.index && typeof state.index.search === 'function') return state.index;
  const turnUnits = memory.units.filter((u) => u.meta?.level === 'turn');
  state.index = tools.bm25.index(turnUnits.map((u) => ({ id: u.id, text: u.text })), { k1: BM25_K1, b: BM25_B });
  return state.index;
}

/** Months and years a question names ("in May 2023", "last June", "2022"): [year | undefined, month | undefined]. */
function namedTimes(question: string): Array<[number | undefined, number | undefined]> {
  const out: Array<[number | undefined, number | undefined]> = [];
  const re = new RegExp(
    '\\b(january|february|march|april|may|june|july|august|september|october|november|december)\\b' +
      '(?:\\s*,?\\s*(\\d{4}))?|\\b((?:19|20)\\d{2})\\b',
    'gi',
  );
  for (let m = re.exec(question); m; m = re.exec(question)) {
    if (m[1]) {
      // "may" is usually the verb unless a year follows it.
      if (m[1].toLowerCase() === 'may' && !m[2]) continue;
      out.push([m[2] ? Number(m[2]) : undefined, MONTHS.findIndex((x) => x.toLowerCase() === m![1]!.toLowerCase()) + 1]);
    } else if (m[3]) out.push([Number(m[3]), undefined]);
  }
  return out;
}

function inTime(time: string | undefined, named: Array<[number | undefined, number | undefined]>): boolean {
  const m = /^(\d{4})-(\d{2})/.exec(time ?? '');
  if (!m) return false;
  return named.some(([y, mo]) => (y === undefined || y === Number(m[1])) && (mo === undefined || mo === Number(m[2])));
}

/** Offline rerank: IDF-weighted coverage of the query's distinct terms by the whole session. */
function coverageRank(q: Question, candidates: Array<{ session: string; best: number }>, memory: Memory, tools: Tools): string[] {
  const state = memory.state as State;
  const byId = new Map(memory.units.map((u) => [u.id, u]));
  const n = Math.max(1, memory.units.length);
  const query = [...new Set(tools.text.terms(q.text))];
  const idf = new Map(query.map((t) => [t, Math.log(1 + n / (1 + (state.df[t] ?? 0)))]));
  const totalIdf = query.reduce((a, t) => a + idf.get(t)!, 0) || 1;
  const top = Math.max(...candidates.map((c) => c.best), 1e-9);
  const named = namedTimes(q.text);
  return candidates
    .map((c) => {
      const terms = new Set<string>();
      for (const id of state.turns[c.session] ?? []) for (const t of tools.text.terms(byId.get(id)?.text ?? '')) terms.add(t);
      const covered = query.reduce((a, t) => a + (terms.has(t) ? idf.get(t)! : 0), 0) / totalIdf;
      const firstTurn = byId.get(state.turns[c.session]?.[0] ?? '');
      const bonus = named.length > 0 && inTime(firstTurn?.time, named) ? TIME_BONUS : 0;
      return { session: c.session, score: COVERAGE_WEIGHT * covered + BM25_WEIGHT * (c.best / top) + bonus };
    })
    .sort((a, b) => b.score - a.score)
    .map((c) => c.session);
}

/** LLM rerank: the model orders the candidate sessions; unknown or missing numbers keep the offline order. */
async function llmRank(
  q: Question,
  candidates: Array<{ session: string; best: number; turns: string[] }>,
  memory: Memory,
  tools: Tools,
): Promise<string[]> {
  const fallback = coverageRank(q, candidates, memory, tools);
  const byId = new Map(memory.units.map((u) => [u.id, u]));
  const listing = candidates
    .map((c, i) => {
      const turns = c.turns.slice(0, LLM_TURNS_PER_SESSION).map((id) => `  ${(byId.get(id)?.text ?? '').slice(0, 240)}`);
      return `Session ${i + 1}:\n${turns.join('\n')}`;
    })
    .join('\n');
  const prompt =
    `Question: ${q.text}\n\nCandidate memory sessions:\n${listing}\n\n` +
    'Think about which sessions hold the facts needed to answer, then reply with ONLY the session numbers, best first, comma-separated.';
  try {
    const reply = await tools.llm.complete(prompt, { maxTokens: LLM_MAX_TOKENS, temperature: 0 });
    const order: string[] = [];
    for (const m of reply.matchAll(/\d+/g)) {
      const c = candidates[Number(m[0]) - 1];
      if (c && !order.includes(c.session)) order.push(c.session);
    }
    for (const s of fallback) if (!order.includes(s)) order.push(s);
    return order;
  } catch (err) {
    tools.log(`think-rank: llm failed (${err instanceof Error ? err.message : String(err)}); using coverage rerank`);
    return fallback;
  }
}

const design = {
  store(records: SourceRecord[], tools: Tools): Memory {
    const units: MemoryUnit[] = [];
    const turns: Record<string, string[]> = Object.create(null);
    const sessionOf: Record<string, string> = Object.create(null);
    const df: Record<string, number> = Object.create(null);
    const sessionRecords = new Map<string, SourceRecord[]>();
    for (const r of records) {
      const s = `session:${r.thread ?? r.id}`;
      const u: MemoryUnit = { id: `turn:${r.id}`, text: lineOf(r), sources: [r.id], meta: { level: 'turn', session: s } };
      if (r.time) u.time = r.time;
      units.push(u);
      (turns[s] ??= []).push(u.id);
      sessionOf[u.id] = s;
      for (const t of new Set(tools.text.terms(u.text))) df[t] = (df[t] ?? 0) + 1;
      const list = sessionRecords.get(s) ?? [];
      list.push(r);
      sessionRecords.set(s, list);
    }
    for (const [s, list] of sessionRecords) {
      const u: MemoryUnit = { id: s, text: list.map(lineOf).join('\n'), sources: list.map((r) => r.id), meta: { level: 'session' } };
      if (list[0]!.time) u.time = list[0]!.time;
      units.push(u);
    }
    const turnUnits = units.filter((u) => u.meta?.level === 'turn');
    const state: State = { turns, sessionOf, df };
    if (turnUnits.length > 0) {
      state.index = tools.bm25.index(turnUnits.map((u) => ({ id: u.id, text: u.text })), { k1: BM25_K1, b: BM25_B });
    }
    return { units, state };
  },

  async retrieve(q: Question, memory: Memory, tools: Tools): Promise<Hit[]> {
    const state = memory.state as State;
    if (Object.keys(state.turns).length === 0) return [];
    const turnHits = turnIndex(memory, tools).search(q.text, TURN_K);
    const best = new Map<string, { best: number; turns: string[] }>();
    for (const h of turnHits) {
      const s = state.sessionOf[h.unit];
      if (!s) continue;
      const c = best.get(s) ?? { best: 0, turns: [] };
      c.best = Math.max(c.best, h.score);
      c.turns.push(h.unit);
      best.set(s, c);
    }
    const candidates = [...best].map(([session, c]) => ({ session, ...c })).sort((a, b) => b.best - a.best).slice(0, CANDIDATES);
    if (candidates.length === 0) return [];
    const order = tools.llm.available ? await llmRank(q, candidates, memory, tools) : coverageRank(q, candidates, memory, tools);
    return order.slice(0, TOP_SESSIONS).map((session, i) => ({ unit: session, score: TOP_SESSIONS - i }));
  },

  context(q: Question, hits: Hit[], memory: Memory, tools: Tools, budget: { tokens: number }): Context {
    const state = memory.state as State;
    const byId = new Map(memory.units.map((u) => [u.id, u]));
    const query = new Set(tools.text.terms(q.text));
    // Turns of the ranked sessions by query overlap, ties to the better session.
    const scored: Array<{ id: string; score: number; session: string; pos: number }> = [];
    hits.forEach((h, rank) => {
      (state.turns[h.unit] ?? []).forEach((id, pos) => {
        const terms = new Set(tools.text.terms(byId.get(id)?.text ?? ''));
        let overlap = 0;
        for (const t of query) if (terms.has(t)) overlap++;
        scored.push({ id, score: (query.size ? overlap / query.size : 0) + 0.5 / (rank + 1), session: h.unit, pos });
      });
    });
    scored.sort((a, b) => b.score - a.score);
    const chosen = new Set<string>();
    let used = 0;
    const take = (id: string): boolean => {
      if (chosen.has(id)) return true;
      const u = byId.get(id);
      if (!u) return false;
      const cost = tools.countTokens(u.text) + 1;
      if (used + cost > budget.tokens) return false;
      chosen.add(id);
      used += cost;
      return true;
    };
    for (const s of scored) {
      if (used >= budget.tokens) break;
      if (!take(s.id)) continue;
      const ids = state.turns[s.session] ?? [];
      for (let d = 1; d <= NEIGHBOURS; d++) {
        const before = ids[s.pos - d];
        const after = ids[s.pos + d];
        if (before) take(before);
        if (after) take(after);
      }
    }
    // Deliver in history order (store keeps the records' order), so conversations read as they happened.
    const position = new Map(memory.units.map((u, i) => [u.id, i]));
    const units = [...chosen].sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
    return { text: units.map((id) => byId.get(id)!.text).join('\n'), units };
  },
} satisfies MemoryDesign;

export default design;
