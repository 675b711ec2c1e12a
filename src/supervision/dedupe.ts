import type { QAItem } from '../history/record.ts';
import { normalizeAnswer, normalizeText } from '../scoring/answer-match.ts';
import { terms } from '../text/text.ts';

/**
 * Keeps the first of near-duplicate questions: the same normalised question; the same normalised answer with the
 * same evidence records; or the same answer with questions whose content terms overlap by ≥ 80% (Jaccard).
 */
export class Deduper {
  private readonly questions = new Set<string>();
  private readonly answerEvidence = new Set<string>();
  private readonly byAnswer = new Map<string, Array<Set<string>>>();

  /** True (and remembered) when `item` is new; false when it duplicates one seen before. */
  add(item: Pick<QAItem, 'question' | 'answer' | 'answerType' | 'evidence'>): boolean {
    const q = normalizeText(item.question);
    const a = normalizeAnswer(item.answer, item.answerType);
    const ev = `${a}\u0000${[...new Set(item.evidence.map((e) => e.record))].sort().join('\u0000')}`;
    if (this.questions.has(q) || this.answerEvidence.has(ev)) return false;
    const qt = new Set(terms(item.question));
    const similar = this.byAnswer.get(a) ?? [];
    for (const other of similar) {
      let inter = 0;
      for (const t of qt) if (other.has(t)) inter++;
      const union = qt.size + other.size - inter;
      if (union > 0 && inter / union >= 0.8) return false;
    }
    this.questions.add(q);
    this.answerEvidence.add(ev);
    similar.push(qt);
    this.byAnswer.set(a, similar);
    return true;
  }
}
