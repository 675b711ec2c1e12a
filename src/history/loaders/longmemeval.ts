import { z } from 'zod';
import type { SourceRecord } from '../../../sandbox/contract.ts';
import type { Evidence, History, QAItem, UnresolvedEvidence } from '../record.ts';
import { readText, parseJsonText, checkShape } from '../read-json.ts';
import { parseLongMemEvalDate } from '../../text/dataset-dates.ts';
import { inferAnswerType } from '../answer-type.ts';
import { formatSource } from '../source.ts';
import { InputError } from '../../errors.ts';
import { selectHistories, type LoaderOptions } from './common.ts';

const MessageSchema = z.looseObject({
  role: z.string(),
  content: z.string(),
  has_answer: z.boolean().optional(),
});

/** The official LongMemEval item (oracle / _s / _m files and verbatim samples of them). */
const OriginalItemSchema = z.looseObject({
  question_id: z.string().min(1),
  question_type: z.string().optional(),
  question: z.string().min(1),
  answer: z.union([z.string(), z.number()]),
  question_date: z.string().optional(),
  haystack_dates: z.array(z.string()),
  haystack_session_ids: z.array(z.string()),
  haystack_sessions: z.array(z.array(MessageSchema)),
  answer_session_ids: z.array(z.string()).default([]),
});

/** The reformatted samples: `{data: [{id, question_type, conversation: [{role, content, date}], questions: [...]}]}`. */
const ReformattedSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string().min(1),
      question_type: z.string().optional(),
      conversation: z.array(MessageSchema.extend({ date: z.string().optional() })),
      questions: z.array(
        z.looseObject({
          id: z.string().min(1),
          question: z.string().min(1),
          answer: z.union([z.string(), z.number()]),
          is_abstention: z.boolean().optional(),
        }),
      ),
    }),
  ),
});

function fromOriginal(item: z.infer<typeof OriginalItemSchema>, path: string): Omit<History, 'source'> {
  const id = item.question_id;
  const records: SourceRecord[] = [];
  const sessionTurns = new Map<string, string[]>();
  const answerTurns: string[] = [];
  item.haystack_sessions.forEach((session, i) => {
    const sid = item.haystack_session_ids[i] ?? `session_${i + 1}`;
    const time = parseLongMemEvalDate(item.haystack_dates[i] ?? '');
    const ids: string[] = [];
    session.forEach((m, j) => {
      const r: SourceRecord = { id: `${sid}:${j + 1}`, kind: 'turn', text: m.content, thread: sid, speaker: m.role };
      if (time) r.time = time;
      if (m.has_answer) {
        r.meta = { hasAnswer: true };
        answerTurns.push(r.id);
      }
      records.push(r);
      ids.push(r.id);
    });
    sessionTurns.set(sid, ids);
  });
  const unresolvedEvidence: UnresolvedEvidence[] = [];
  let evidence: Evidence[] = answerTurns.map((record) => ({ record }));
  const abstention = id.endsWith('_abs');
  const meta: Record<string, string | number | boolean> = {
    evidenceRefs: item.answer_session_ids.length,
    answerSessions: item.answer_session_ids.join(' '),
  };
  if (abstention) meta.abstention = true;
  for (const sid of item.answer_session_ids) {
    if (!sessionTurns.has(sid))
      unresolvedEvidence.push({ qa: id, ref: sid, reason: `answer session ${sid} is not in the haystack of ${path}` });
  }
  if (evidence.length === 0 && !abstention) {
    // No turn-level marks: fall back to the official session-level evidence.
    evidence = item.answer_session_ids.flatMap((sid) => sessionTurns.get(sid) ?? []).map((record) => ({ record }));
    meta.evidenceLevel = 'session';
  }
  const answer = String(item.answer);
  const q: QAItem = {
    id,
    history: id,
    question: item.question,
    answer,
    answerType: abstention ? 'text' : inferAnswerType(answer),
    evidence,
    generator: 'official:longmemeval',
    meta,
  };
  if (item.question_type) q.category = item.question_type;
  const date = item.question_date ? parseLongMemEvalDate(item.question_date) : undefined;
  if (date) q.date = date;
  return { id, format: 'longmemeval', records, qa: [q], unresolvedEvidence };
}

function fromReformatted(item: z.infer<typeof ReformattedSchema>['data'][number]): Omit<History, 'source'> {
  const records: SourceRecord[] = [];
  // Session boundaries were lost in the reformatting; a change of date starts a new one.
  let session = 0;
  let turn = 0;
  let lastDate: string | undefined;
  for (const m of item.conversation) {
    if (session === 0 || m.date !== lastDate) {
      session++;
      turn = 0;
      lastDate = m.date;
    }
    turn++;
    const r: SourceRecord = {
      id: `session_${session}:${turn}`,
      kind: 'turn',
      text: m.content,
      thread: `session_${session}`,
      speaker: m.role,
    };
    const time = m.date ? parseLongMemEvalDate(m.date) : undefined;
    if (time) r.time = time;
    records.push(r);
  }
  const qa: QAItem[] = item.questions.map((q) => {
    const answer = String(q.answer);
    const meta: Record<string, string | number | boolean> = { evidenceRefs: 0, evidenceAvailable: false };
    if (q.is_abstention) meta.abstention = true;
    const out: QAItem = {
      id: `${item.id}:${q.id}`,
      history: item.id,
      question: q.question,
      answer,
      answerType: q.is_abstention ? 'text' : inferAnswerType(answer),
      evidence: [],
      generator: 'official:longmemeval',
      meta,
    };
    if (item.question_type) out.category = item.question_type;
    return out;
  });
  return { id: item.id, format: 'longmemeval', records, qa, unresolvedEvidence: [] };
}

/**
 * Loads LongMemEval: one history per question (its haystack). Reads the official schema (array of items with
 * `haystack_sessions`; evidence = turns marked `has_answer`, else the answer sessions' turns) and the reformatted
 * samples (`{data: [...]}`; sessions recovered from date changes; no evidence survives in that form).
 */
export function loadLongMemEval(path: string, options: LoaderOptions = {}): History[] {
  const value = parseJsonText(readText(path), path);
  let histories: Array<Omit<History, 'source'>>;
  if (Array.isArray(value)) {
    histories = value.map((v, i) => fromOriginal(checkShape(v, OriginalItemSchema, path, `item ${i}`), path));
  } else if (value && typeof value === 'object' && 'data' in value) {
    histories = checkShape(value, ReformattedSchema, path, 'data').data.map(fromReformatted);
  } else {
    throw new InputError('E_BAD_SOURCE', `${path}: not a LongMemEval file (expected an array of items or an object with 'data')`, {
      file: path,
    });
  }
  const keep = selectHistories(
    options.only,
    histories.map((h) => h.id),
    path,
  );
  return histories.filter((h) => keep(h.id)).map((h) => ({ ...h, source: formatSource('longmemeval', path, h.id) }));
}
