import type { EditOp } from '../../design/edit-ops.ts';
import { casePipeline } from './case-blocks.ts';
import { windowAdd, windowStore } from './mutation-catalog.ts';

/**
 * The passage-units move: a record longer than a passage is stored as several units, each carrying the record's
 * own words (so its provenance verifies as a quote of the record), with a chat turn's user part apart from the
 * assistant's reply. Why: when the evidence is a long record (a document section, a user turn followed by a long
 * reply), delivering it whole spends a large share of the context budget on words the question does not need, and
 * the reply's words dilute the user's own in BM25. A passage competes on its own words, and the context holds the
 * passage that matched instead of the whole record, so more evidence records fit the same budget.
 *
 * The ranking keeps one passage per record (its best): recall@k counts records, and a record's second passage
 * would take a place another record could have had.
 */

/** Passage size and its tweak range (words). */
export const PASSAGE_CONSTANTS = `/** Most words one passage unit holds (a record longer than this is split at sentence ends). */
const PASSAGE_WORDS = 80;
/** A passage shorter than this joins the one before it (too short to stand alone, or to verify as a quote). */
const PASSAGE_MIN_WORDS = 12;`;

const PASSAGES_OF = `/**
 * A record as passage units: a chat turn's user part apart from the assistant's reply, and any part longer than
 * PASSAGE_WORDS split at sentence and line ends. Every passage keeps the record's date, speaker and title and lists
 * the record as its source (its text is the record's own words). @block units:passages
 */
function passagesOf(r: SourceRecord): MemoryUnit[] {
  const when = stamp(r.time);
  const head = \`\${when ? \`[\${when}] \` : ''}\${r.speaker ? \`\${r.speaker}: \` : ''}\${r.title ? \`(\${r.title}) \` : ''}\`;
  const meta: Record<string, string> = { record: r.id, kind: r.kind };
  if (r.thread) meta.thread = r.thread;
  if (r.speaker) meta.speaker = r.speaker;
  const pieces: string[] = [];
  for (const part of r.text.split(/\\n(?=Assistant:)/)) {
    const sentences = part.split(/(?<=[.!?])\\s+|\\n+/).filter((s) => s.trim() !== '');
    const start = pieces.length;
    let current: string[] = [];
    let words = 0;
    for (const s of sentences) {
      const n = s.trim().split(/\\s+/).length;
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
    if (words < PASSAGE_MIN_WORDS && pieces.length > start) pieces[pieces.length - 1] += \` \${current.join(' ')}\`;
    else pieces.push(current.join(' '));
  }
  if (pieces.length === 0) pieces.push(r.text);
  return pieces.map((text, k) => {
    const unit: MemoryUnit = { id: k === 0 ? r.id : \`\${r.id}#p\${k}\`, text: \`\${head}\${text}\`, sources: [r.id], meta };
    if (r.time) unit.time = r.time;
    return unit;
  });
}`;

const PASSAGE_STORE = `store(records: SourceRecord[], tools: Tools): Memory {
    // @block units:passages — long records are stored as passages (see passagesOf).
    const memory: Memory = { units: records.flatMap(passagesOf), state: {} };
    if (memory.units.length > 0) indexOf(memory, tools);
    return memory;
  }`;

/** The Base-BM25 family's incremental add, growing the index by passages instead of whole records. */
const PASSAGE_ADD_RECORDS = `function addRecords(memory: Memory, records: SourceRecord[], tools: Tools): Memory {
  // @block units:passages — added records become passages too, so store and add agree.
  const units = records.flatMap(passagesOf);
  const index = indexOf(memory, tools).add(units.map(docOf));
  memory.units.push(...units);
  memory.state = { index };
  return memory;
}`;

export const ONE_PER_RECORD = `function perRecord(hits: Hit[], memory: Memory): Hit[] {
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
}`;

/** The record-fusion move's constants (their tweak ranges are in mutation-catalog.ts). */
export const RECORD_FUSION_CONSTANTS = `/** Weight of the record's BM25 score (share of the best record's) added to a passage's score. */
const RECORD_WEIGHT = 1;
/** Records scored per question for the fusion (a passage of a record beyond them gets no record score). */
const RECORD_CANDIDATES = 400;`;

/**
 * The record-fusion move (after passage units): a passage is scored on its own words, but a long question often
 * matches one sentence of the evidence record with one clause and another sentence with the next ("which herb did I
 * receive from Frau Lehmann during the visit when …"); no single passage then holds enough of the question. Each
 * passage's score is fused with its whole record's BM25 score, so the record that matches the question as a whole
 * brings its best passage up. The record index is built once per memory, on the passages' own texts joined.
 */
export const FUSE_RECORDS = `function fuseRecords(q: Question, hits: Hit[], memory: Memory, tools: Tools): Hit[] {
  // @block records:fused — a passage's record as a whole matching the question makes the passage likelier evidence.
  if (hits.length === 0) return hits;
  const state = (memory.state ?? {}) as { recordIndex?: Bm25Index; recordOfUnit?: Record<string, string> };
  if (!state.recordIndex || !state.recordOfUnit) {
    const recordOfUnit: Record<string, string> = {};
    const texts = new Map<string, string[]>();
    for (const u of memory.units) {
      const record = String(u.meta?.record ?? u.id);
      recordOfUnit[u.id] = record;
      const list = texts.get(record);
      if (list) list.push(u.text);
      else texts.set(record, [u.text]);
    }
    state.recordIndex = tools.bm25.index([...texts].map(([id, parts]) => ({ id, text: parts.join(' ') })), { stem: STEM });
    state.recordOfUnit = recordOfUnit;
    memory.state = state;
  }
  const recordOfUnit = state.recordOfUnit;
  const found = state.recordIndex.search(q.text, RECORD_CANDIDATES);
  const best = found[0]?.score || 1;
  const recordScore = new Map(found.map((f) => [f.unit, f.score / best]));
  const top = hits[0]?.score || 1;
  return hits
    .map((h) => ({ unit: h.unit, score: h.score / top + RECORD_WEIGHT * (recordScore.get(recordOfUnit[h.unit] ?? '') ?? 0) }))
    .sort((a, b) => b.score - a.score);
}`;

/** Names the record-fusion block reads: passage units, the case pipeline's record slot, and STEM for its index. */
export const RECORD_FUSION_REQUIRES = ['STEM', 'passagesOf', 'fuseRecords'];

/** Names the passage move needs: the case pipeline's helpers and the record header's `stamp`. */
export const PASSAGE_REQUIRES = ['indexOf', 'TOP_K', 'STEM', 'stamp'];

/**
 * The passage move's edits, or null when the design cannot take it: a design with an `add` stage must grow its
 * memory through the Base-BM25 family's `addRecords`/`docOf`, else store and add would build different units.
 */
export function passageEdits(has: (name: string) => boolean, hasAddStage: boolean): EditOp[] | null {
  const incremental = has('addRecords') && has('docOf');
  if (hasAddStage && !incremental) return null;
  // After the index window, passages are indexed with their neighbours (a plain passage store would drop the window).
  const window = has('indexDocs');
  return [
    ...casePipeline(has),
    { op: 'add-helper', code: PASSAGE_CONSTANTS },
    { op: 'add-helper', code: PASSAGES_OF },
    { op: 'replace-stage', stage: 'store', code: window ? windowStore(true) : PASSAGE_STORE },
    ...(incremental ? [{ op: 'replace-function' as const, name: 'addRecords', code: window ? windowAdd(true) : PASSAGE_ADD_RECORDS }] : []),
    { op: 'replace-function', name: 'perRecord', code: ONE_PER_RECORD },
  ];
}
