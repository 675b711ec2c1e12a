import type { SourceRecord } from '../../sandbox/contract.ts';
import { terms } from '../text/text.ts';

/** Why two records are joined. */
export type EdgeKind = 'adjacent' | 'ref' | 'upload' | 'subject' | 'lexical';

export interface Edge {
  to: number;
  kind: EdgeKind;
  /** Strength in (0, 1]: 1 for structural edges, the overlap score for lexical ones. */
  weight: number;
}

/** Options of {@link buildRecordGraph}. */
export interface RecordGraphOptions {
  /** Minimum IDF-weighted overlap (0–1) for a lexical edge. Default 0.25. */
  lexicalThreshold?: number;
  /** Terms in more records than this are ignored when looking for lexical neighbours (they join everything). Default 40. */
  maxTermDf?: number;
  /** At most this many lexical neighbours per record, strongest first. Default 8. */
  maxLexicalNeighbours?: number;
}

/**
 * Records as nodes, joined by structure (same thread, adjacent turns or sections, explicit refs, `[Upload …]`
 * naming an attachment, e-mails sharing a subject) and by lexical overlap. The records are kept unchanged:
 * ids, text and metadata are what evidence spans point into.
 */
export interface RecordGraph {
  records: SourceRecord[];
  /** Record id → index into `records`. */
  index: Map<string, number>;
  /** Neighbours of each record (same-thread membership is in `threads`, not repeated here). */
  edges: Edge[][];
  /** Thread (or the record's own id when it has none) → record indices in source order. */
  threads: Map<string, number[]>;
  /** Thread key of each record. */
  threadOf: string[];
  /** Stemmed content terms of each record (a set per record). */
  termSets: Array<Set<string>>;
  /** Number of records containing each stemmed term. */
  df: Map<string, number>;
  /** Edge counts by kind (for the summary). */
  edgeCounts: Record<EdgeKind, number>;
}

const UPLOAD = /\[Upload ([^\]\n]+)\]/g;

/** Lower-cased subject without reply/forward prefixes, so a thread of e-mails shares one key. */
export function normaliseSubject(subject: string): string {
  return subject
    .replace(/^\s*((re|fw|fwd|aw)\s*:\s*)+/i, '')
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ');
}

/** Builds the record graph. Linear in the records apart from the lexical step, which is bounded by `maxTermDf`. */
export function buildRecordGraph(records: readonly SourceRecord[], options: RecordGraphOptions = {}): RecordGraph {
  const threshold = options.lexicalThreshold ?? 0.25;
  const maxDf = options.maxTermDf ?? 40;
  const maxLex = options.maxLexicalNeighbours ?? 8;
  const recs = [...records];
  const n = recs.length;
  const index = new Map<string, number>();
  recs.forEach((r, i) => index.set(r.id, i));
  const edges: Edge[][] = Array.from({ length: n }, () => []);
  const edgeCounts: Record<EdgeKind, number> = { adjacent: 0, ref: 0, upload: 0, subject: 0, lexical: 0 };
  const seen = new Set<string>();
  const link = (a: number, b: number, kind: EdgeKind, weight = 1): void => {
    if (a === b) return;
    const key = a < b ? `${a}|${b}|${kind}` : `${b}|${a}|${kind}`;
    if (seen.has(key)) return;
    seen.add(key);
    edges[a]!.push({ to: b, kind, weight });
    edges[b]!.push({ to: a, kind, weight });
    edgeCounts[kind]++;
  };

  const threads = new Map<string, number[]>();
  const threadOf = recs.map((r) => r.thread ?? r.id);
  threadOf.forEach((t, i) => {
    let list = threads.get(t);
    if (!list) threads.set(t, (list = []));
    list.push(i);
  });
  for (const list of threads.values()) for (let k = 1; k < list.length; k++) link(list[k - 1]!, list[k]!, 'adjacent');

  for (let i = 0; i < n; i++)
    for (const ref of recs[i]!.refs ?? []) {
      const j = index.get(ref);
      if (j !== undefined) link(i, j, 'ref');
      else for (const k of threads.get(ref) ?? []) link(i, k, 'ref'); // a ref may name a whole document/thread
    }

  // `[Upload <name>]` names an attachment; match it against document ids, threads, titles and meta strings.
  const docKeys: Array<{ i: number; key: string }> = [];
  recs.forEach((r, i) => {
    if (r.kind !== 'document' && r.kind !== 'note') return;
    const parts = [r.id, r.thread ?? '', r.title ?? '', ...Object.values(r.meta ?? {}).filter((v): v is string => typeof v === 'string')];
    docKeys.push({ i, key: parts.join('\u0000').toLowerCase() });
  });
  if (docKeys.length) {
    const cache = new Map<string, number[]>();
    for (let i = 0; i < n; i++) {
      for (const m of recs[i]!.text.matchAll(UPLOAD)) {
        const name = m[1]!
          .trim()
          .toLowerCase()
          .replace(/\.(md|html?|txt|pdf|docx?)$/, '');
        if (name.length < 3) continue;
        let hits = cache.get(name);
        if (!hits) cache.set(name, (hits = docKeys.filter((d) => d.key.includes(name)).map((d) => d.i)));
        for (const j of hits) link(i, j, 'upload');
      }
    }
  }

  const bySubject = new Map<string, number[]>();
  recs.forEach((r, i) => {
    if (r.kind !== 'email' || !r.title) return;
    const key = normaliseSubject(r.title);
    if (!key) return;
    let list = bySubject.get(key);
    if (!list) bySubject.set(key, (list = []));
    list.push(i);
  });
  for (const list of bySubject.values()) for (let k = 1; k < list.length; k++) link(list[k - 1]!, list[k]!, 'subject');

  const termSets = recs.map((r) => new Set(terms(`${r.title ?? ''} ${r.text}`)));
  const df = new Map<string, number>();
  for (const set of termSets) for (const t of set) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string): number => Math.log(1 + n / (df.get(t) ?? 1));
  const postings = new Map<string, number[]>();
  termSets.forEach((set, i) => {
    for (const t of set) {
      const d = df.get(t)!;
      if (d < 2 || d > maxDf) continue;
      let list = postings.get(t);
      if (!list) postings.set(t, (list = []));
      list.push(i);
    }
  });
  const mass = termSets.map((set) => {
    let s = 0;
    for (const t of set) if ((df.get(t) ?? 0) <= maxDf) s += idf(t);
    return s;
  });
  for (let i = 0; i < n; i++) {
    const shared = new Map<number, number>();
    for (const t of termSets[i]!) {
      const list = postings.get(t);
      if (!list) continue;
      const w = idf(t);
      for (const j of list) if (j !== i) shared.set(j, (shared.get(j) ?? 0) + w);
    }
    const scored: Array<[number, number]> = [];
    for (const [j, s] of shared) {
      if (threadOf[j] === threadOf[i]) continue; // same thread is already joined
      const score = s / Math.max(1e-9, Math.min(mass[i]!, mass[j]!));
      if (score >= threshold) scored.push([j, Math.min(1, score)]);
    }
    scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    for (const [j, s] of scored.slice(0, maxLex)) link(i, j, 'lexical', s);
  }

  return { records: recs, index, edges, threads, threadOf, termSets, df, edgeCounts };
}

/** Whether a history is a user's with an assistant: most of its turns are the user's ("User: …"). */
export function userVoiceOf(graph: Pick<RecordGraph, 'records'>): boolean {
  const turns = graph.records.filter((r) => r.kind === 'turn');
  return turns.filter((r) => r.text.startsWith('User: ')).length > turns.length / 2;
}
