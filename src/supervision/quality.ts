import { z } from 'zod';
import type { SourceRecord } from '../../sandbox/contract.ts';
import type { History, QAItem } from '../history/record.ts';
import { terms } from '../text/text.ts';
import { findDates } from '../text/date-parse.ts';
import { checkBlindReading, type BlindReader } from './blind-recovery.ts';
import { createOfflineBlindReader } from './offline-reader.ts';
import { checkQuestion } from './question-checks.ts';
import { verifySpan } from './spans.ts';

/** Pass rates of a supervision set. */
export const QualityReportSchema = z.object({
  items: z.number().int().nonnegative(),
  /** How the rates were judged. */
  method: z.string(),
  rates: z.object({
    /** The answer is recovered from the evidence records alone (blind reader, type-normalised match). */
    answerSupport: z.number(),
    /** Every evidence record exists and every span/quote is found in it. */
    evidenceSupport: z.number(),
    /** Standalone, one question, no record ids, no answer leak. */
    questionClarity: z.number(),
    /** What the question takes for granted is in the evidence: ≥ half its content words occur in the evidence records. */
    premiseSupport: z.number(),
  }),
  /** Items failing each check (ids, capped). */
  failures: z.record(z.string(), z.array(z.string())),
});
export type QualityReport = z.infer<typeof QualityReportSchema>;

const FRAME = new Set(
  terms(
    'times asked reply right before separate conversations sessions e-mails come came mention mentioned talk talked passed later ' +
      'days many much name given date written document section question',
  ),
);

/**
 * Scores an existing supervision set against its histories with programmatic checks and an offline blind
 * reader that sees only each item's evidence records (a judge model can replace the reader).
 */
export async function scoreSupervision(
  items: readonly QAItem[],
  histories: readonly History[],
  reader: BlindReader = createOfflineBlindReader(),
): Promise<QualityReport> {
  const byHistory = new Map(histories.map((h) => [h.id, new Map<string, SourceRecord>(h.records.map((r) => [r.id, r]))]));
  // A question may name what was said around its evidence ("when Ben asked about …, what did Ana
  // say?"): the reader also sees each evidence record's neighbours in its thread.
  const neighbours = new Map(
    histories.map((h) => [
      h.id,
      new Map<string, SourceRecord[]>(
        h.records.map((r, i) => [
          r.id,
          [h.records[i - 1], h.records[i + 1]].filter((x): x is SourceRecord => !!x && x.thread !== undefined && x.thread === r.thread),
        ]),
      ),
    ]),
  );
  const fails: Record<string, string[]> = { answerSupport: [], evidenceSupport: [], questionClarity: [], premiseSupport: [] };
  const pass = { answerSupport: 0, evidenceSupport: 0, questionClarity: 0, premiseSupport: 0 };
  const note = (k: keyof typeof pass, ok: boolean, id: string): void => {
    if (ok) pass[k]++;
    else if (fails[k]!.length < 50) fails[k]!.push(id);
  };
  for (const item of items) {
    const records = byHistory.get(item.history);
    const evidence = item.evidence.map((e) => ({ e, r: records?.get(e.record) }));
    const found = evidence.filter((x) => x.r).map((x) => x.r!);
    note(
      'evidenceSupport',
      evidence.length > 0 && evidence.every(({ e, r }) => r && (!e.span || verifySpan(r.text, e.span, e.quote))),
      item.id,
    );
    note(
      'questionClarity',
      checkQuestion(
        item.question,
        item.answer,
        item.answerType,
        found.map((r) => r.id),
      ).ok,
      item.id,
    );
    const unique = [...new Map(found.map((r) => [r.id, r])).values()];
    const around = neighbours.get(item.history);
    const order = [...(records?.keys() ?? [])];
    const seen = [...new Map([...unique, ...unique.flatMap((r) => around?.get(r.id) ?? [])].map((r) => [r.id, r])).values()].sort(
      (a, b) => order.indexOf(a.id) - order.indexOf(b.id),
    );
    const reading = unique.length ? await reader.read({ question: item.question, answerType: item.answerType, records: seen }) : undefined;
    note(
      'answerSupport',
      !!reading && checkBlindReading(reading, { answer: item.answer, answerType: item.answerType, evidenceRecords: [] }).ok,
      item.id,
    );
    const evidenceTerms = new Set(seen.flatMap((r) => terms(`${r.title ?? ''} ${r.text} ${r.speaker ?? ''}`)));
    let q = item.question;
    for (const d of findDates(q).reverse()) q = q.slice(0, d.start) + q.slice(d.end);
    const asked = terms(q).filter((t) => !FRAME.has(t) && !/^\d+$/.test(t));
    const covered = asked.filter((t) => evidenceTerms.has(t)).length;
    note('premiseSupport', asked.length === 0 || covered * 2 >= asked.length, item.id);
  }
  const n = items.length;
  const rate = (k: keyof typeof pass): number => (n ? Math.round((1000 * pass[k]) / n) / 1000 : 0);
  return {
    items: n,
    method: `programmatic checks + ${reader.name} over evidence records`,
    rates: {
      answerSupport: rate('answerSupport'),
      evidenceSupport: rate('evidenceSupport'),
      questionClarity: rate('questionClarity'),
      premiseSupport: rate('premiseSupport'),
    },
    failures: fails,
  };
}
