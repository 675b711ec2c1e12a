/**
 * How many generated questions share no content word with their evidence is a property of the whole set, not of one
 * item: whether a rephrasing succeeds depends on the history's words, so a fixed share of attempts lands anywhere
 * between 16% and 26% on chats of the same corpus. The generator therefore rephrases every question it can, keeps the
 * original wording beside it when that also passed the blind reader, and this step brings the set's no-overlap share
 * down to a target by giving a seeded, uniform subset of the rephrased items back their original wording.
 */
import { z } from 'zod';
import { createRng } from './rng.ts';
import type { QAItem } from '../history/record.ts';
import { noContentOverlap } from './calibration.ts';
import { withoutSituation } from './rule-based/situation.ts';

/** What {@link holdGapToTarget} did, for the run's summary. */
export const GapTargetReportSchema = z.object({
  /** The no-overlap share aimed at (a share of the items with evidence). */
  target: z.number().min(0).max(1),
  /** Items whose question was rephrased away from their evidence's words before the target was applied. */
  rephrased: z.number().int().nonnegative(),
  /** Rephrased items given back their original wording (only rephrasings that left no shared word). */
  restored: z.number().int().nonnegative(),
  /** Share of items with evidence whose question shares no content word with it, after the target was applied. */
  noOverlapShare: z.number().min(0).max(1).nullable(),
});
export type GapTargetReport = z.infer<typeof GapTargetReportSchema>;

/** The checks fields the offline generator writes for a rephrased item that can go back to its original wording. */
interface Restorable {
  originalQuestion: string;
  originalBlindAnswer: string;
}

function restorable(item: QAItem): Restorable | undefined {
  const c = item.checks ?? {};
  const q = c.originalQuestion;
  const a = c.originalBlindAnswer;
  return typeof q === 'string' && typeof a === 'string' && typeof c.lexicalGap === 'string'
    ? { originalQuestion: q, originalBlindAnswer: a }
    : undefined;
}

/**
 * The item with its original wording back, and a note of the rephrasing it held back. The original is the templated
 * question, before any situation was added (rule-based/situation.ts), so those notes go too.
 */
function restore(item: QAItem, r: Restorable, reader: string): QAItem {
  const {
    lexicalGap,
    originalQuestion: _q,
    originalBlindAnswer: _a,
    explicitQuestion: _e,
    originalExplicitQuestion,
    ...checks
  } = withoutSituation(item.checks ?? {});
  return {
    ...item,
    question: r.originalQuestion,
    checks: {
      ...checks,
      blindReader: reader,
      blindAnswer: r.originalBlindAnswer,
      lexicalGapHeldBack: String(lexicalGap),
      // The original as asked on its day (rule-based/asked-dates.ts), and as the reader read it.
      ...(originalExplicitQuestion !== undefined ? { explicitQuestion: originalExplicitQuestion } : {}),
    },
  };
}

/**
 * Brings the share of `items` whose question shares no content word with its evidence down to `target` (never up:
 * a history whose templates already ask without the evidence's words stays above it). Only rephrasings that took
 * every shared word away are given back, in a seeded order, the shortest prefix that reaches the target: they are
 * what the target counts. Partial rephrasings stay, as real questions also share only some words with their
 * evidence. Deterministic in (items, target, seed), so a resumed run ends with the same set.
 */
export function holdGapToTarget(
  items: readonly QAItem[],
  target: number,
  recordText: (id: string) => string | undefined,
  options: { seed: string; reader: string },
): { items: QAItem[]; report: GapTargetReport } {
  const evidenceText = (it: QAItem): string | undefined => {
    const texts = it.evidence.map((e) => recordText(e.record)).filter((t): t is string => t !== undefined);
    return texts.length ? texts.join('\n') : undefined;
  };
  const out = [...items];
  let withEvidence = 0;
  let noOverlap = 0;
  const candidates: number[] = [];
  out.forEach((it, i) => {
    const text = evidenceText(it);
    if (text === undefined) return;
    withEvidence++;
    if (!noContentOverlap(it.question, text)) return;
    noOverlap++;
    // Giving back an original that also shares no word would change the wording, not the share.
    const r = restorable(it);
    if (r && !noContentOverlap(r.originalQuestion, text)) candidates.push(i);
  });
  const rephrased = out.filter((it) => typeof it.checks?.lexicalGap === 'string').length;
  // Seeded order over item ids (not positions), so the same items are restored whatever order they came in.
  const byId = [...candidates].sort((a, b) => (out[a]!.id < out[b]!.id ? -1 : out[a]!.id > out[b]!.id ? 1 : 0));
  let restored = 0;
  for (const i of createRng(options.seed).shuffle(byId)) {
    if (withEvidence === 0 || noOverlap / withEvidence <= target) break;
    const it = out[i]!;
    out[i] = restore(it, restorable(it)!, options.reader);
    noOverlap--;
    restored++;
  }
  return {
    items: out,
    report: { target, rephrased, restored, noOverlapShare: withEvidence ? noOverlap / withEvidence : null },
  };
}
