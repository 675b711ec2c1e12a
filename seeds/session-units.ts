/**
 * Session units (MemSifter's session-level memory): records are grouped by thread (chat session, e-mail thread,
 * document). BM25 ranks whole sessions; the context then packs the best turns of the top sessions, each turn
 * scored by its own query-term overlap plus its session's score, so a strong session lends weight to its turns.
 * Memory holds both levels: session units (what is ranked) and turn units (what is delivered).
 */
import type { Bm25Index, Context, Hit, Memory, MemoryDesign, MemoryUnit, Question, SourceRecord, Tools } from '../sandbox/contract.ts';

/** Sessions retrieved per question. */
const TOP_SESSIONS = 10;
/** Weight of the session's (normalised) score in each of its turns' scores. */
const SESSION_WEIGHT = 0.6;
/** Neighbouring turns delivered with a selected turn (±1 keeps question–answer pairs together). */
const NEIGHBOURS = 1;
/** A thread longer than this is split into chunks of this many records (keeps session units comparable). */
const MAX_SESSION_RECORDS = 40;
const BM25_K1 = 1.2;
const BM25_B = 0.75;

export const description =
  `Session units: BM25 over sessions/threads (chunks of ≤ ${MAX_SESSION_RECORDS} records); the best turns of the top ` +
  `${TOP_SESSIONS} sessions (turn overlap + ${SESSION_WEIGHT} × session score, ±${NEIGHBOURS} neighbours) packed into the budget ` +
  'in time order.';

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
  /** Session unit id → its turn unit ids, in order. */
  turns: Record<string, string[]>;
  /** Ids of the session units (what the index holds). */
  sessions: string[];
}

function sessionIndex(memory: Memory, tools: Tools): Bm25Index {
  const state = memory.state as State;
  if (state.index && typeof state.index.search === 'function') return state.index;
  const byId = new Map(memory.units.map((u) => [u.id, u]));
  state.index = tools.bm25.index(state.sessions.map((id) => ({ id, text: byId.get(id)?.text ?? '' })), { k1: BM25_K1, b: BM25_B });
  return state.index;
}

const design = {
  store(records: SourceRecord[], tools: Tools): Memory {
    const groups = new Map<string, SourceRecord[]>();
    for (const r of records) {
      const key = r.thread ?? `record:${r.id}`;
      const list = groups.get(key) ?? [];
      list.push(r);
      groups.set(key, list);
    }
    const units: MemoryUnit[] = [];
    const turns: Record<string, string[]> = {};
    const sessions: string[] = [];
    for (const [thread, list] of groups) {
      for (let c = 0; c * MAX_SESSION_RECORDS < list.length; c++) {
        const chunk = list.slice(c * MAX_SESSION_RECORDS, (c + 1) * MAX_SESSION_RECORDS);
        const id = `session:${thread}#${c}`;
        const ids: string[] = [];
        for (const r of chunk) {
          const u: MemoryUnit = { id: `turn:${r.id}`, text: lineOf(r), sources: [r.id], meta: { level: 'turn', session: id } };
          if (r.time) u.time = r.time;
          units.push(u);
          ids.push(u.id);
        }
        const first = chunk[0]!;
        const session: MemoryUnit = {
          id,
          text: `Session ${thread} (${stamp(first.time)})\n${chunk.map(lineOf).join('\n')}`,
          sources: chunk.map((r) => r.id),
          meta: { level: 'session', thread },
        };
        if (first.time) session.time = first.time;
        units.push(session);
        turns[id] = ids;
        sessions.push(id);
      }
    }
    const byId = new Map(units.map((u) => [u.id, u]));
    const index = tools.bm25.index(sessions.map((id) => ({ id, text: byId.get(id)!.text })), { k1: BM25_K1, b: BM25_B });
    return { units, state: { index, turns, sessions } satisfies State };
  },

  retrieve(q: Question, memory: Memory, tools: Tools): Hit[] {
    if ((memory.state as State).sessions.length === 0) return [];
    return sessionIndex(memory, tools).search(q.text, TOP_SESSIONS);
  },

  context(q: Question, hits: Hit[], memory: Memory, tools: Tools, budget: { tokens: number }): Context {
    const state = memory.state as State;
    const byId = new Map(memory.units.map((u) => [u.id, u]));
    const query = new Set(tools.text.terms(q.text));
    const top = hits.length > 0 ? Math.max(...hits.map((h) => h.score)) : 1;
    // Score every turn of the retrieved sessions.
    const scored: Array<{ id: string; score: number; session: string; pos: number }> = [];
    for (const h of hits) {
      const ids = state.turns[h.unit] ?? [];
      ids.forEach((id, pos) => {
        const terms = new Set(tools.text.terms(byId.get(id)?.text ?? ''));
        let overlap = 0;
        for (const t of query) if (terms.has(t)) overlap++;
        const score = (query.size ? overlap / query.size : 0) + SESSION_WEIGHT * (top > 0 ? h.score / top : 0);
        scored.push({ id, score, session: h.unit, pos });
      });
    }
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
    // Deliver in time order (sessions by time, turns in session order): conversations read better that way.
    const order = new Map<string, number>();
    let n = 0;
    const sessionOrder = [...state.sessions].sort((a, b) => (byId.get(a)?.time ?? '').localeCompare(byId.get(b)?.time ?? ''));
    for (const s of sessionOrder) for (const id of state.turns[s] ?? []) order.set(id, n++);
    const units = [...chosen].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    return { text: units.map((id) => byId.get(id)!.text).join('\n'), units };
  },
} satisfies MemoryDesign;

export default design;
