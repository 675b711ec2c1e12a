import { z } from 'zod';
import type { SourceRecord } from '../../../sandbox/contract.ts';
import type { Evidence, History, HistoryWarning, QAItem, UnresolvedEvidence } from '../record.ts';
import { historyWarning } from '../warnings.ts';
import { readJsonFile, checkShape } from '../read-json.ts';
import { parseLocomoDateTime } from '../../text/dataset-dates.ts';
import { inferAnswerType } from '../answer-type.ts';
import { formatSource } from '../source.ts';
import { selectHistories, type LoaderOptions } from './common.ts';

const TurnSchema = z.looseObject({
  speaker: z.string(),
  dia_id: z.string().min(1),
  text: z.string(),
  blip_caption: z.string().optional(),
  img_url: z.array(z.string()).optional(),
  query: z.string().optional(),
});

const QASchema = z.looseObject({
  question: z.string().min(1),
  answer: z.union([z.string(), z.number()]).optional(),
  adversarial_answer: z.union([z.string(), z.number()]).optional(),
  evidence: z.array(z.string()).default([]),
  category: z.number().int(),
});

const SampleSchema = z.looseObject({
  sample_id: z.string().min(1),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(QASchema).default([]),
});

const FileSchema = z.array(z.unknown());

/** The answer LoCoMo's category-5 (adversarial) questions expect; the official scorer looks for "not mentioned". */
export const LOCOMO_UNANSWERABLE = 'Not mentioned in the conversation';

/**
 * Splits an evidence string into references, each a dia_id or a range of them. The data has `'D8:6; D9:17'`,
 * space- and comma-separated lists, ranges (`D12:3-D12:5`, `D12:3 - D12:5`) and stray punctuation (`D5:3.`);
 * a range stays one piece, punctuation around a piece is dropped, and pieces left empty are not references.
 */
export function splitLocomoEvidence(ref: string): string[] {
  return evidencePieces(ref).map((p) => p.piece);
}

/** Each reference of an evidence string, with whether stray punctuation had to be stripped from it. */
function evidencePieces(ref: string): { piece: string; stripped: boolean }[] {
  return ref
    .replace(/\s*[-–—]\s*/g, '-')
    .split(/[;,\s]+/)
    .map((raw) => {
      const piece = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
      return { piece, stripped: piece !== raw };
    })
    .filter((p) => p.piece !== '');
}

/** Normalises one dia_id reference, or returns undefined when it has no recognisable `D<s>:<t>` shape. */
export function normaliseDiaId(ref: string): string | undefined {
  const m = /^D:?(\d+):0*(\d+)$/i.exec(ref.replace(/\s+/g, ''));
  if (!m) return undefined;
  return `D${Number(m[1])}:${Number(m[2])}`;
}

/**
 * The two ends of a range reference (`D12:3-D12:5`, or `D12:3-5` within one session), normalised; undefined when
 * `ref` is not a range or an end is not a dia_id.
 */
export function parseDiaRange(ref: string): [string, string] | undefined {
  const parts = ref.split(/[-–—]/);
  if (parts.length !== 2) return undefined;
  const from = normaliseDiaId(parts[0]!);
  if (from === undefined) return undefined;
  const to = /^\d+$/.test(parts[1]!) ? `${from.slice(0, from.indexOf(':'))}:${Number(parts[1])}` : normaliseDiaId(parts[1]!);
  return to === undefined ? undefined : [from, to];
}

/** Session numbers whose value is a list of turns, and the sessions that are not lists (their turns cannot be read). */
function sessionNumbers(conversation: Record<string, unknown>): { lists: number[]; dropped: { n: number; turns: number }[] } {
  const lists: number[] = [];
  const dropped: { n: number; turns: number }[] = [];
  for (const [k, v] of Object.entries(conversation)) {
    const m = /^session_(\d+)$/.exec(k);
    if (!m) continue;
    if (Array.isArray(v)) lists.push(Number(m[1]));
    // An object of turns still says how many turns were lost; anything else counts as one lost entry.
    else dropped.push({ n: Number(m[1]), turns: v !== null && typeof v === 'object' ? Object.keys(v).length : 1 });
  }
  return { lists: lists.sort((a, b) => a - b), dropped: dropped.sort((a, b) => a.n - b.n) };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Counted warnings for the sessions of one conversation that lost their date or their turns. */
function sessionWarnings(undated: { n: number; turns: number }[], dropped: { n: number; turns: number }[]): HistoryWarning[] {
  const out: HistoryWarning[] = [];
  const names = (xs: { n: number }[]) => xs.map((x) => `session_${x.n}`).join(', ');
  if (undated.length) {
    const turns = undated.reduce((a, x) => a + x.turns, 0);
    out.push(
      historyWarning(
        'undated-session',
        undated.length,
        `${plural(undated.length, 'session has', 'sessions have')} no parseable date (${names(undated)}): ` +
          `${plural(turns, 'turn has', 'turns have')} no time, so question dates cannot filter them`,
      ),
    );
  }
  if (dropped.length) {
    const turns = dropped.reduce((a, x) => a + x.turns, 0);
    out.push(
      historyWarning(
        'dropped-session',
        dropped.length,
        `${plural(dropped.length, 'session is', 'sessions are')} not a list of turns (${names(dropped)}): ` +
          `${plural(turns, 'entry was', 'entries were')} dropped`,
      ),
    );
  }
  return out;
}

function turnRecord(turn: z.infer<typeof TurnSchema>, session: number, time: string | undefined): SourceRecord {
  const caption = turn.blip_caption?.trim();
  const r: SourceRecord = {
    id: turn.dia_id.trim(),
    kind: 'turn',
    // The image itself is not in the data; its caption is what a reader of the chat would have seen.
    text: caption ? `${turn.text} [shares a photo: ${caption}]` : turn.text,
    thread: `session_${session}`,
    speaker: turn.speaker,
  };
  if (time) r.time = time;
  const meta: Record<string, string> = {};
  if (caption) meta.blipCaption = caption;
  if (turn.query) meta.imageQuery = turn.query;
  if (turn.img_url?.[0]) meta.imageUrl = turn.img_url[0];
  if (Object.keys(meta).length) r.meta = meta;
  return r;
}

interface SessionInfo {
  /** turns per session number */
  turns: Map<number, number>;
  /** position of each dia_id in turn order (sessions by number, turns as listed): ranges expand along it */
  order: Map<string, number>;
  ids: string[];
}

function missingReason(id: string, info: SessionInfo): string {
  const [s, t] = id.slice(1).split(':').map(Number) as [number, number];
  const n = info.turns.get(s);
  return n === undefined ? `session ${s} does not exist` : `turn ${t} is past the end of session ${s} (${n} turns)`;
}

/** The dia_ids one reference stands for, or why it stands for none. */
function expandReference(piece: string, info: SessionInfo): { ids: string[]; exact: boolean } | { reason: string } {
  if (/[-–—]/.test(piece)) {
    const range = parseDiaRange(piece);
    if (range === undefined) return { reason: `'${piece}' is not a dia_id range (expected D<session>:<turn>-D<session>:<turn>)` };
    const [from, to] = range;
    const a = info.order.get(from);
    const b = info.order.get(to);
    if (a === undefined) return { reason: `range '${piece}': ${missingReason(from, info)}` };
    if (b === undefined) return { reason: `range '${piece}': ${missingReason(to, info)}` };
    if (b < a) return { reason: `range '${piece}' ends before it starts` };
    // A range across sessions takes the rest of the first and the start of the next, as the turns were said.
    return { ids: info.ids.slice(a, b + 1), exact: piece === `${from}-${to}` };
  }
  const id = normaliseDiaId(piece);
  if (id === undefined) return { reason: `'${piece}' is not a dia_id (expected D<session>:<turn>)` };
  if (!info.order.has(id)) return { reason: missingReason(id, info) };
  return { ids: [id], exact: id === piece };
}

/**
 * Maps a QA item's evidence strings to records. Each reference (a dia_id or a range) counts once; one that resolves
 * only by our reading of a malformed id (`D30:05`, `D:11:26`, `D5:3.`) also counts as approximate.
 */
function resolveEvidence(
  qaId: string,
  refs: readonly string[],
  info: SessionInfo,
): { evidence: Evidence[]; unresolved: UnresolvedEvidence[]; count: number; approximate: number } {
  const evidence: Evidence[] = [];
  const unresolved: UnresolvedEvidence[] = [];
  const taken = new Set<string>();
  let count = 0;
  let approximate = 0;
  for (const raw of refs) {
    const pieces = evidencePieces(raw);
    if (pieces.length === 0) {
      count++;
      unresolved.push({ qa: qaId, ref: raw, reason: 'empty evidence reference' });
      continue;
    }
    for (const { piece, stripped } of pieces) {
      count++;
      const got = expandReference(piece, info);
      if ('reason' in got) {
        unresolved.push({ qa: qaId, ref: raw, reason: got.reason });
        continue;
      }
      if (!got.exact || stripped) approximate++;
      for (const id of got.ids) {
        if (taken.has(id)) continue;
        taken.add(id);
        evidence.push({ record: id });
      }
    }
  }
  return { evidence, unresolved, count, approximate };
}

/**
 * Loads LoCoMo (`locomo10.json`): one history per conversation (id = sample_id), one `turn` record per dialogue
 * turn (id = dia_id, thread = `session_<N>`, time = the session's date-time), and the official QA with evidence
 * mapped to dia_ids. QA ids are `<sample_id>:q<index>` with a 0-based index into the sample's `qa` array.
 */
export function loadLocomo(path: string, options: LoaderOptions = {}): History[] {
  const samples = readJsonFile(path, FileSchema, 'LoCoMo (JSON array of conversations)');
  const parsed = samples.map((s, i) => checkShape(s, SampleSchema, path, `item ${i}`));
  const keep = selectHistories(
    options.only,
    parsed.map((s) => s.sample_id),
    path,
  );
  const out: History[] = [];
  for (const [index, sample] of parsed.entries()) {
    if (!keep(sample.sample_id)) continue;
    const conv = sample.conversation;
    const records: SourceRecord[] = [];
    const info: SessionInfo = { turns: new Map(), order: new Map(), ids: [] };
    const sessions = sessionNumbers(conv);
    const undated: { n: number; turns: number }[] = [];
    for (const n of sessions.lists) {
      const turns = conv[`session_${n}`] as unknown[];
      const dt = conv[`session_${n}_date_time`];
      const time = typeof dt === 'string' ? parseLocomoDateTime(dt) : undefined;
      if (typeof dt === 'string' && time === undefined)
        options.logger?.(`${path}: ${sample.sample_id} session_${n}: unparsed date '${dt}'`);
      if (time === undefined && turns.length > 0) undated.push({ n, turns: turns.length });
      info.turns.set(n, turns.length);
      turns.forEach((t, j) => {
        const turn = checkShape(t, TurnSchema, path, `item ${index} (${sample.sample_id}) session_${n}[${j}]`);
        const r = turnRecord(turn, n, time);
        if (typeof dt === 'string') r.meta = { ...r.meta, sessionDateTime: dt };
        records.push(r);
        if (!info.order.has(r.id)) {
          info.order.set(r.id, info.ids.length);
          info.ids.push(r.id);
        }
      });
    }
    const qa: QAItem[] = [];
    const unresolvedEvidence: UnresolvedEvidence[] = [];
    sample.qa.forEach((item, i) => {
      const id = `${sample.sample_id}:q${i}`;
      const category = String(item.category);
      const { evidence, unresolved, count, approximate } = resolveEvidence(id, item.evidence, info);
      unresolvedEvidence.push(...unresolved);
      const meta: Record<string, string | number | boolean> = { evidenceRefs: count };
      if (approximate) meta.evidenceApproximate = approximate;
      let answer: string;
      if (item.category === 5) {
        answer = LOCOMO_UNANSWERABLE;
        if (item.adversarial_answer !== undefined) meta.adversarialAnswer = String(item.adversarial_answer);
        if (item.answer !== undefined) meta.originalAnswer = String(item.answer);
      } else {
        answer = item.answer === undefined ? '' : String(item.answer);
      }
      qa.push({
        id,
        history: sample.sample_id,
        question: item.question,
        answer,
        answerType: item.category === 5 ? 'text' : inferAnswerType(answer),
        category,
        evidence,
        generator: 'official:locomo',
        meta,
      });
    });
    out.push({
      id: sample.sample_id,
      source: formatSource('locomo', path, sample.sample_id),
      format: 'locomo',
      records,
      qa,
      unresolvedEvidence,
      warnings: sessionWarnings(undated, sessions.dropped),
    });
  }
  return out;
}
