import type { SourceRecord } from '../../sandbox/contract.ts';
import { extractiveAnswer, NOT_MENTIONED } from '../evaluate/extractive-reader.ts';
import { findDates, isoDate } from '../evaluate/date-parse.ts';
import { terms } from '../text/text.ts';
import type { BlindInput, BlindReader, BlindReading } from './blind-recovery.ts';
import { recordDate } from './bundles.ts';

/** Name and version of the offline blind reader. */
export const OFFLINE_READER = 'localise+extract@1';

// Words of question phrasing that say nothing about which record is meant.
const FRAME = new Set(terms('separate conversations conversation sessions session e-mails emails mails come came mention mentioned talk talked passed later days many much name given date written document section'));

/** Records ranked by BM25 of the question's terms, IDF taken within the bundle (the reader's own localisation). */
function rank(question: string, records: readonly SourceRecord[]): Array<{ r: SourceRecord; score: number }> {
  const q = [...new Set(terms(question))];
  const docs = records.map((r) => terms(`${r.title ?? ''} ${r.text}`));
  const avg = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  return records
    .map((r, i) => {
      const d = docs[i]!;
      const tf = new Map<string, number>();
      for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
      let score = 0;
      for (const t of q) {
        const f = tf.get(t);
        if (!f) continue;
        const idf = Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
        score += (idf * f * 2.2) / (f + 1.2 * (0.25 + 0.75 * (d.length / Math.max(1, avg))));
      }
      return { r, score };
    })
    .sort((a, b) => b.score - a.score);
}

function dayNumber(iso: string): number {
  return Date.UTC(+iso.slice(0, 4), +iso.slice(5, 7) - 1, +iso.slice(8, 10)) / 86_400_000;
}

/** `[date] Speaker: line` per line of each record, the layout the extractive reader parses; maps offsets to records. */
function contextOf(records: readonly SourceRecord[]): { text: string; owner: (offset: number) => string | undefined } {
  let text = '';
  const ranges: Array<[number, number, string]> = [];
  for (const r of records) {
    const start = text.length;
    const date = recordDate(r);
    for (const line of r.text.split('\n')) {
      if (!line.trim()) continue;
      const speaker = r.speaker && r.kind === 'turn' && !/^(User|Assistant):/.test(line) ? `${r.speaker}: ` : '';
      text += `${date ? `[${date}] ` : ''}${speaker}${line}\n`;
    }
    ranges.push([start, text.length, r.id]);
  }
  return { text, owner: (o) => ranges.find(([s, e]) => o >= s && o < e)?.[2] };
}

/**
 * The offline blind reader. It is not a model: it localises the question in the bundle with BM25 over the
 * bundle's own records, then answers by the question's form — "how many days passed between" subtracts the
 * dates of the two best records; "in how many … between <date> and <date>" counts the conversations (or e-mails)
 * in that window whose records contain the question's topic words; anything else goes to the extractive reader
 * over the best records. It cites the records its answer came from.
 */
export function createOfflineBlindReader(options: { topK?: number } = {}): BlindReader {
  const topK = options.topK ?? 6;
  return {
    name: OFFLINE_READER,
    async read(input: BlindInput): Promise<BlindReading> {
      const ranked = rank(input.question, input.records).filter((x) => x.score > 0);
      if (!ranked.length) return { answerable: false, answer: NOT_MENTIONED, citations: [] };
      const q = input.question;
      if (/^how many days\b/i.test(q)) {
        const first = ranked[0]!;
        const d1 = recordDate(first.r);
        const second = ranked.slice(1, topK).find((x) => recordDate(x.r) && recordDate(x.r) !== d1);
        if (!d1 || !second) return { answerable: false, answer: NOT_MENTIONED, citations: [] };
        const days = Math.abs(dayNumber(recordDate(second.r)!) - dayNumber(d1));
        return { answerable: true, answer: `${days} days`, citations: [first.r.id, second.r.id] };
      }
      const window = findDates(q).filter((d) => d.date.day !== undefined);
      if (/^in how many\b/i.test(q) && window.length === 2) {
        const [from, to] = window.map((d) => isoDate(d.date)).sort() as [string, string];
        const topic = terms(q.slice(0, window[0]!.start) + q.slice(window[1]!.end)).filter((t) => !FRAME.has(t));
        const emails = /\be-?mails\b/i.test(q);
        const hits = input.records.filter((r) => {
          const d = recordDate(r);
          if (!d || d < from || d > to || (emails ? r.kind !== 'email' : r.kind !== 'turn')) return false;
          const set = new Set(terms(`${r.title ?? ''} ${r.text}`));
          return topic.length > 0 && topic.every((t) => set.has(t));
        });
        const groups = new Set(hits.map((r) => (emails ? r.id : r.thread ?? r.id)));
        if (!groups.size) return { answerable: false, answer: NOT_MENTIONED, citations: [] };
        return { answerable: true, answer: String(groups.size), citations: hits.map((r) => r.id) };
      }
      if (/^who\b/i.test(q) && ranked[0]!.r.speaker) {
        // "Who said / sent …": the speaker of the record that says it.
        const best = ranked[0]!.r;
        return { answerable: true, answer: best.speaker!, citations: [best.id] };
      }
      const top = ranked.slice(0, topK).map((x) => x.r);
      const ctx = contextOf(top);
      const got = extractiveAnswer(q, ctx.text, { answerType: input.answerType });
      if (got.answer === NOT_MENTIONED) return { answerable: false, answer: got.answer, citations: [] };
      const needle = got.answer.toLowerCase();
      const citations = top.filter((r) => r.text.toLowerCase().includes(needle) || r.speaker?.toLowerCase() === needle).slice(0, 3).map((r) => r.id);
      const owner = got.span ? ctx.owner(got.span[0]) : undefined;
      if (owner && !citations.includes(owner)) citations.unshift(owner);
      if (!citations.length) citations.push(top[0]!.id);
      return { answerable: true, answer: got.answer, citations };
    },
  };
}
