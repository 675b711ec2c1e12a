import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError, describeZodIssues } from '../../errors.ts';
import type { SourceRecord } from '../../../sandbox/contract.ts';
import type { History, QAItem, UnresolvedEvidence } from '../record.ts';
import { readJsonFile, readText } from '../read-json.ts';
import { splitDocument } from '../document-sections.ts';
import { inferAnswerType } from '../answer-type.ts';
import { formatSource } from '../source.ts';
import { selectHistories, type LoaderOptions } from './common.ts';
import { resolveRhelmEvidence, type RhelmIndex, type SectionEntry } from './rhelm-evidence.ts';

const TurnSchema = z.looseObject({
  turn: z.number().int().positive(),
  timestamp: z.string().optional(),
  message_type: z.string().optional(),
  user: z.string(),
  assistant: z.string(),
  research_document: z.string().nullish(),
});

const ConversationSchema = z.looseObject({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  profile_file: z.string().optional(),
  conversation: z.array(TurnSchema),
});

const QALineSchema = z.looseObject({
  id: z.string().min(1),
  question: z.string().min(1),
  answer: z.union([z.string(), z.number()]),
  question_date: z.string().optional(),
  question_type: z.string().optional(),
  supporting_evidence: z.array(z.string()).default([]),
  characteristics: z.array(z.string()).default([]),
});

function listDir(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** The personas of a RHELM folder: its `conversations/` subfolders. */
export function rhelmPersonas(root: string): string[] {
  const dir = join(root, 'conversations');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

interface Conversation {
  date: string;
  /** Event index (`NN_after_event_…` in profile_file); attachments and e-mail files carry the same `NN_` prefix. */
  eventIndex: string | undefined;
  turns: Array<z.infer<typeof TurnSchema>>;
}

function readConversations(root: string, persona: string): Conversation[] {
  const dir = join(root, 'conversations', persona);
  const out: Conversation[] = [];
  for (const name of listDir(dir)) {
    if (!name.endsWith('.json')) continue;
    const c = readJsonFile(join(dir, name), ConversationSchema, 'RHELM conversation');
    out.push({ date: c.date, eventIndex: /(?:^|\/)(\d+)_after_event_/.exec(c.profile_file ?? '')?.[1], turns: c.conversation });
  }
  return out.sort((a, b) => a.date.localeCompare(b.date));
}

/** Parses one e-mail block (`Sender:`, `Recipient:`, `Subject:`, `Summary:` lines). */
function parseEmail(block: string): { sender?: string; recipient?: string; subject?: string } {
  const field = (name: string) => new RegExp(`^${name}:[ \\t]*(.*)$`, 'mi').exec(block)?.[1]?.trim() || undefined;
  return { sender: field('Sender'), recipient: field('Recipient'), subject: field('Subject') };
}

/** `Elena Morales <elena.morales@email.com>` → `Elena Morales`. */
function personName(address: string): string {
  const name = address
    .replace(/<[^>]*>/g, '')
    .replace(/^"|"$/g, '')
    .trim();
  return name || address.trim();
}

function emailRecords(root: string, persona: string): SourceRecord[] {
  const dir = join(root, 'emails', persona);
  const out: SourceRecord[] = [];
  for (const name of listDir(dir)) {
    const m = /_email_(\d{4})_(\d{2})_(\d{2})\.txt$/.exec(name);
    if (!m) continue;
    const date = `${m[1]}-${m[2]}-${m[3]}`;
    const blocks = readText(join(dir, name))
      .split(/^[ \t]*={5,}[ \t]*$/m)
      .map((b) => b.trim())
      .filter(Boolean);
    blocks.forEach((text, i) => {
      const e = parseEmail(text);
      const r: SourceRecord = {
        id: `Emails_${date}:${i + 1}`,
        kind: 'email',
        text,
        time: date,
        thread: name.replace(/\.txt$/, ''),
      };
      if (e.subject) r.title = e.subject;
      if (e.sender) r.speaker = personName(e.sender);
      const meta: Record<string, string | number> = { file: name, index: i + 1 };
      if (e.sender) meta.sender = e.sender;
      if (e.recipient) meta.recipient = e.recipient;
      r.meta = meta;
      out.push(r);
    });
  }
  return out;
}

interface Attachment {
  file: string;
  sections: SectionEntry[];
}

function readAttachments(root: string, persona: string): Attachment[] {
  const dir = join(root, 'attachments', persona);
  const out: Attachment[] = [];
  for (const file of listDir(dir)) {
    if (!/\.(md|html?)$/i.test(file)) continue;
    const parts = splitDocument(file, readText(join(dir, file)));
    const used = new Map<string, number>();
    const sections: SectionEntry[] = parts.map((p) => {
      const base = p.level === 0 ? '(preamble)' : p.heading;
      const n = (used.get(base) ?? 0) + 1;
      used.set(base, n);
      // Ids read like the QA's references (`<file>:<heading>`); a repeated heading gets a counter.
      const id = `${file}:${n === 1 ? base : `${base} (${n})`}`;
      const s: SectionEntry = { id, heading: p.heading, level: p.level, text: p.text };
      if (p.parent !== undefined) s.parent = p.parent;
      return s;
    });
    out.push({ file, sections });
  }
  return out;
}

function conversationTime(date: string, timestamp: string | undefined): string {
  return timestamp && /^\d{4}-\d{2}-\d{2}T/.test(timestamp) ? timestamp : date;
}

/**
 * Loads one RHELM persona: conversation turns (one record per user+assistant exchange, id `YYYY-MM-DD:<turn>`),
 * e-mails (id `Emails_YYYY-MM-DD:<n>`, n = position in that day's file), attachment sections (id
 * `<file>:<heading>`), and the official QA with evidence mapped to those ids.
 */
export function loadRhelmPersona(root: string, persona: string): History {
  const conversations = readConversations(root, persona);
  const attachments = readAttachments(root, persona);
  const byStem = new Map(attachments.map((a) => [a.file.replace(/\.(md|html?)$/i, ''), a]));
  const uploaded = new Map<string, string>();
  const eventDate = new Map<string, string>();
  for (const c of conversations) {
    if (c.eventIndex !== undefined && !eventDate.has(c.eventIndex)) eventDate.set(c.eventIndex, c.date);
    for (const t of c.turns) if (t.research_document && !uploaded.has(t.research_document)) uploaded.set(t.research_document, c.date);
  }

  const records: SourceRecord[] = [];
  const index: RhelmIndex = { ids: new Set(), conversations: new Map(), emails: new Map(), documents: new Map() };
  for (const c of conversations) {
    index.conversations.set(c.date, c.turns.length);
    const thread = `conversation_${c.date.replace(/-/g, '_')}`;
    for (const t of c.turns) {
      const r: SourceRecord = {
        id: `${c.date}:${t.turn}`,
        kind: 'turn',
        text: `User: ${t.user}\nAssistant: ${t.assistant}`,
        time: conversationTime(c.date, t.timestamp),
        thread,
        speaker: 'user',
      };
      const meta: Record<string, string | number> = { turn: t.turn };
      if (t.message_type) meta.messageType = t.message_type;
      if (t.research_document) {
        meta.researchDocument = t.research_document;
        const a = byStem.get(t.research_document);
        if (a) r.refs = a.sections.map((s) => s.id);
      }
      r.meta = meta;
      records.push(r);
    }
  }
  for (const e of emailRecords(root, persona)) {
    records.push(e);
    const date = e.time!;
    const list = index.emails.get(date) ?? [];
    list.push({ id: e.id, text: e.text });
    index.emails.set(date, list);
  }
  for (const a of attachments) {
    const stem = a.file.replace(/\.(md|html?)$/i, '');
    // When it was uploaded in a chat, that chat's date; otherwise the session of the same event index (`NN_`).
    const upload = uploaded.get(stem);
    const time = upload ?? eventDate.get(/^(\d+)_/.exec(a.file)?.[1] ?? '');
    index.documents.set(a.file, a.sections);
    a.sections.forEach((s, i) => {
      const r: SourceRecord = { id: s.id, kind: 'document', text: s.text, thread: a.file, title: s.heading || a.file };
      if (time) r.time = time;
      const meta: Record<string, string | number> = { file: a.file, section: i + 1, level: s.level };
      if (s.parent !== undefined) meta.parent = a.sections[s.parent]!.id;
      if (time) meta.timeSource = upload ? 'upload' : 'event-index';
      r.meta = meta;
      records.push(r);
    });
  }
  for (const r of records) index.ids.add(r.id);

  const qaFile = join(root, 'QA_final', `low_score_qa_${persona}_all_validated.jsonl`);
  const qa: QAItem[] = [];
  const unresolvedEvidence: UnresolvedEvidence[] = [];
  if (existsSync(qaFile)) {
    const lines = readText(qaFile).split('\n');
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        throw new InputError('E_BAD_JSON', `${qaFile}:${i + 1}: invalid JSON (${(err as Error).message})`, { file: qaFile, line: i + 1 });
      }
      const parsed = QALineSchema.safeParse(value);
      if (!parsed.success) {
        throw new InputError('E_BAD_QA', `${qaFile}:${i + 1}: ${describeZodIssues(parsed.error.issues)}`, { file: qaFile, line: i + 1 });
      }
      const item = parsed.data;
      const answer = String(item.answer);
      const res = resolveRhelmEvidence(item.id, `${item.question}\n${answer}`, item.supporting_evidence, index);
      unresolvedEvidence.push(...res.unresolved);
      const meta: Record<string, string | number> = { evidenceRefs: res.count };
      if (res.approximate) meta.evidenceApproximate = res.approximate;
      if (item.characteristics.length) meta.characteristics = item.characteristics.join('; ');
      const q: QAItem = {
        id: item.id,
        history: persona,
        question: item.question,
        answer,
        answerType: inferAnswerType(answer),
        evidence: res.evidence,
        generator: 'official:rhelm',
        meta,
      };
      if (item.question_type) q.category = item.question_type;
      if (item.question_date) q.date = item.question_date;
      qa.push(q);
    });
  }
  return { id: persona, source: formatSource('rhelm', root, persona), format: 'rhelm', records, qa, unresolvedEvidence };
}

/** Loads a RHELM data folder (`QA_final/`, `conversations/`, `emails/`, `attachments/`): one history per persona. */
export function loadRhelm(root: string, options: LoaderOptions = {}): History[] {
  if (!existsSync(join(root, 'conversations'))) {
    throw new InputError(
      'E_NO_FILE',
      `${root}: not a RHELM folder (no conversations/ inside); point to the folder that holds QA_final/ and conversations/`,
      {
        file: root,
      },
    );
  }
  const personas = rhelmPersonas(root);
  const keep = selectHistories(options.only, personas, root);
  return personas.filter(keep).map((p) => loadRhelmPersona(root, p));
}
