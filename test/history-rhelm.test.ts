import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadHistories } from '../src/history/load.ts';
import { splitJoinedRef, pickEmail, resolveSection, type SectionEntry } from '../src/history/loaders/rhelm-evidence.ts';

const FIX = resolve(fileURLToPath(new URL('.', import.meta.url)), 'fixtures', 'history');
const ROOT = resolve(FIX, 'rhelm-mini');
const NOTES = '01_notes_task_aaaa1111.md';
const REPORT = '02_report_task_bbbb2222.html';

describe('RHELM reference helpers', () => {
  it('splits comma-joined conversation references', () => {
    expect(splitJoinedRef('2024-05-28:9,2024-05-28:10')).toEqual(['2024-05-28:9', '2024-05-28:10']);
    expect(splitJoinedRef('2024-06-26:13,17,18')).toEqual(['2024-06-26:13', '2024-06-26:17', '2024-06-26:18']);
    expect(splitJoinedRef('notes.md:Costs, Fees and Taxes')).toEqual(['notes.md:Costs, Fees and Taxes']);
  });
  it('resolves headings exactly, loosely, by prefix and by text', () => {
    const s: SectionEntry[] = [
      { id: 'f:T', heading: 'Title', level: 1, text: '# Title' },
      { id: 'f:1', heading: '1. Journal Header', level: 2, parent: 0, text: '## 1. Journal Header' },
      { id: 'f:2', heading: 'Section 2: Costs (Draft)', level: 2, parent: 0, text: '## Section 2\n**Bakery Finds**' },
      { id: 'f:3', heading: 'Details', level: 3, parent: 2, text: '### Details' },
    ];
    expect(resolveSection(s, 'Title')).toEqual({ ids: ['f:T', 'f:1', 'f:2', 'f:3'], approximate: false });
    expect(resolveSection(s, 'Journal Header')).toEqual({ ids: ['f:1'], approximate: true });
    expect(resolveSection(s, 'Header')).toEqual({ ids: ['f:T'], approximate: true });
    expect(resolveSection(s, 'Section 2')).toEqual({ ids: ['f:2', 'f:3'], approximate: true });
    expect(resolveSection(s, 'costs')).toEqual({ ids: ['f:2', 'f:3'], approximate: true });
    expect(resolveSection(s, 'Bakery Finds')).toEqual({ ids: ['f:2'], approximate: true });
    expect(resolveSection(s, 'Nowhere')).toBeUndefined();
  });
  it('picks the e-mail that shares distinctive words with the question, else all of them', () => {
    const mails = [
      { id: 'E:1', text: 'Sender: Pat\nSubject: Clay order for pottery' },
      { id: 'E:2', text: 'Sender: Pat\nSubject: Mortgage statement' },
    ];
    expect(pickEmail(mails, 'Whom did I ask about the clay order?').ids).toEqual(['E:1']);
    expect(pickEmail(mails, 'What did Pat send?').ids).toEqual(['E:1', 'E:2']);
  });
});

describe('RHELM loader', () => {
  it('builds turn, e-mail and document records with the ids the QA cites', async () => {
    const [h] = await loadHistories(`rhelm:${ROOT}`);
    expect(h!.id).toBe('Pat');
    expect(h!.source).toBe(`rhelm:${ROOT}#Pat`);
    const ids = h!.records.map((r) => r.id);
    expect(ids).toEqual([
      '2024-03-01:1',
      '2024-03-01:2',
      '2024-03-01:3',
      '2024-03-05:1',
      '2024-03-05:2',
      'Emails_2024-03-01:1',
      'Emails_2024-03-01:2',
      'Emails_2024-03-05:1',
      `${NOTES}:Pottery Class Notes`,
      `${NOTES}:1. Materials`,
      `${NOTES}:Tools`,
      `${NOTES}:2. Teachers (Lena)`,
      `${REPORT}:Kiln Report`,
      `${REPORT}:Table 1. Results`,
      `${REPORT}:Next Steps`,
    ]);
    const byId = new Map(h!.records.map((r) => [r.id, r]));
    expect(byId.get('2024-03-01:2')).toMatchObject({
      kind: 'turn',
      speaker: 'user',
      thread: 'conversation_2024_03_01',
      time: '2024-03-01T08:05:00',
      text: 'User: [Upload 01_notes_task_aaaa1111] Here are my class notes.\nAssistant: Thanks, I read them.',
      refs: [`${NOTES}:Pottery Class Notes`, `${NOTES}:1. Materials`, `${NOTES}:Tools`, `${NOTES}:2. Teachers (Lena)`],
      meta: { turn: 2, messageType: 'attachment_consultation', researchDocument: '01_notes_task_aaaa1111' },
    });
    expect(byId.get('Emails_2024-03-01:2')).toMatchObject({
      kind: 'email',
      title: 'Mortgage statement',
      speaker: 'Pat Doe',
      time: '2024-03-01',
      thread: '01_email_2024_03_01',
      meta: { recipient: 'Sam Lee <sam@bank.com>', index: 2 },
    });
    expect(byId.get('Emails_2024-03-01:2')!.text.startsWith('Sender: Pat Doe')).toBe(true);
    expect(byId.get('Emails_2024-03-01:2')!.text).not.toContain('====');
    const tools = byId.get(`${NOTES}:Tools`)!;
    expect(tools).toMatchObject({
      kind: 'document',
      title: 'Tools',
      thread: NOTES,
      time: '2024-03-01',
      meta: { parent: `${NOTES}:1. Materials`, level: 3, timeSource: 'upload' },
    });
    expect(byId.get(`${NOTES}:2. Teachers (Lena)`)!.text).toContain('# not a heading inside a fence');
    const table = byId.get(`${REPORT}:Table 1. Results`)!;
    expect(table.text).toBe('Table 1. Results\n\nItem | Result\nBowl | cracked\nPlate | fine');
    expect(table).toMatchObject({ time: '2024-03-05', meta: { timeSource: 'event-index' } });
    expect(byId.get(`${REPORT}:Kiln Report`)!.text).toBe('Kiln Report\n\nBowl & plate fired on 2024‑03‑05.');
    expect(byId.get(`${REPORT}:Next Steps`)!.text).toBe('Next Steps\n\n- Fire slower\n- Thicker walls');
  });

  it('maps every kind of evidence reference and lists the ones that do not resolve', async () => {
    const [h] = await loadHistories(`rhelm:${ROOT}#Pat`);
    const ev = Object.fromEntries(h!.qa.map((q) => [q.id, q.evidence.map((e) => e.record)]));
    expect(ev.fact_000001).toEqual(['2024-03-01:1', '2024-03-01:2', '2024-03-01:3']);
    expect(ev.temporal_000002).toEqual(['2024-03-05:1', '2024-03-05:2']);
    expect(ev.email_000003).toEqual(['Emails_2024-03-01:1', 'Emails_2024-03-05:1', 'Emails_2024-03-01:2']);
    expect(ev.attachment_000004).toEqual([
      `${NOTES}:1. Materials`,
      `${NOTES}:Tools`,
      `${NOTES}:Pottery Class Notes`,
      `${NOTES}:2. Teachers (Lena)`,
    ]);
    expect(ev.mixed_000005).toEqual([`${REPORT}:Table 1. Results`, `${REPORT}:Next Steps`, `${REPORT}:Kiln Report`]);
    expect(h!.unresolvedEvidence).toEqual([
      { qa: 'temporal_000002', ref: '2024-03-05:9', reason: 'conversation 2024-03-05 has 2 turns, no turn 9' },
      { qa: 'temporal_000002', ref: '2024-02-30:1', reason: 'no conversation on 2024-02-30' },
      { qa: 'email_000003', ref: 'Emails_2024-03-01:Email 3', reason: 'e-mail 3 of 2024-03-01 does not exist (2 e-mails that day)' },
      { qa: 'email_000003', ref: 'Emails_2024-01-01:Email', reason: 'no e-mails dated 2024-01-01' },
      {
        qa: 'attachment_000004',
        ref: `${NOTES}:Glazing Log`,
        reason: `no section of ${NOTES} has a heading or text matching 'Glazing Log'`,
      },
      { qa: 'attachment_000004', ref: '99_notes_task_ffffffff.md:Anything', reason: 'no attachment named 99_notes_task_ffffffff.md' },
    ]);
    const q = h!.qa.find((x) => x.id === 'temporal_000002')!;
    expect(q).toMatchObject({
      category: 'temporal',
      date: '2024-04-01',
      answerType: 'date',
      history: 'Pat',
      generator: 'official:rhelm',
      meta: { evidenceRefs: 4 },
    });
    expect(h!.qa.find((x) => x.id === 'fact_000001')!.meta).toMatchObject({
      characteristics: 'State-Dependent Attribute',
      evidenceRefs: 3,
    });
  });
});
