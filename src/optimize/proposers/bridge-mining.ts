import { terms, tokenize, stem, isStopword } from '../../text/text.ts';
import type { TrainingView } from './types.ts';

/**
 * Lexical bridges mined from the training split's question → evidence pairs: a question term that keeps being
 * answered by evidence using another word (asked "job", said "work") maps to that word. A bridge needs support
 * from several training questions and a specific association: the evidence word follows the question term in a good
 * share of the questions that use it, several times more often than it occurs in evidence at large (lift), and
 * in the evidence of several conversations (threads): generated questions often cite one exchange, and a word seen in
 * one conversation only is its vocabulary, not a way people phrase things (three questions on one China Lake outing
 * made the words of those turns "bridges" from "lake"). Neither side is a word of nearly every question or record
 * (question templates, "photo", "love"). Keys are stems (what `tools.text.terms` gives the design); values are surface
 * words, which the design's index stems itself.
 */

export interface BridgeOptions {
  /** Training questions, and distinct threads of their evidence, a bridge must be seen in (default 2). */
  minSupport?: number;
  /** Share of the questions using the term whose evidence holds the word (default 0.3). */
  minShare?: number;
  /** How many times more often than in evidence at large the word must follow the term (default 3). */
  minLift?: number;
  /** A question term in more than this share of the training questions is a template word (default 0.1). */
  maxQuestionShare?: number;
  /** An evidence word in more than this share of the history's records is too common to bridge to (default 0.02). */
  maxRecordShare?: number;
  /** Words per term (default 3) and terms in the table (default 150). */
  perTerm?: number;
  maxTerms?: number;
}

export function mineBridges(training: TrainingView, options: BridgeOptions = {}): Record<string, string[]> {
  const minSupport = options.minSupport ?? 2;
  const minShare = options.minShare ?? 0.3;
  const perTerm = options.perTerm ?? 3;
  const maxTerms = options.maxTerms ?? 150;
  const minLift = options.minLift ?? 3;
  const maxQuestionShare = options.maxQuestionShare ?? 0.1;
  const maxRecordShare = options.maxRecordShare ?? 0.02;
  // In how many training questions' evidence each word occurs (the base rate the lift compares against).
  const evidenceDf = new Map<string, number>();
  let pairs = 0;
  const common = new Set<string>();
  const df = new Map<string, number>();
  const co = new Map<string, Map<string, number>>();
  // The evidence threads (conversations, documents) each (question term, evidence word) pair was seen in.
  const coThreads = new Map<string, Map<string, Set<string>>>();
  // Most frequent surface word of each evidence stem: the design's index stems it back to the same term.
  const surface = new Map<string, Map<string, number>>();
  // How common a word is in the history: a bridge to a word every record has says nothing.
  const recordDf = new Map<string, Map<string, number>>();
  const recordCount = new Map<string, number>();
  const dfIn = (history: string): Map<string, number> => {
    let m = recordDf.get(history);
    if (!m) {
      m = new Map();
      const records = training.records(history);
      for (const r of records) for (const t of new Set(terms(r.text))) m.set(t, (m.get(t) ?? 0) + 1);
      recordDf.set(history, m);
      recordCount.set(history, records.length);
    }
    return m;
  };
  const byIdOf = new Map<string, Map<string, { text: string; thread: string }>>();
  const recordOf = (history: string, id: string): { text: string; thread: string } | undefined => {
    let m = byIdOf.get(history);
    if (!m) {
      m = new Map(training.records(history).map((r) => [r.id, { text: r.text, thread: r.thread ?? r.id }]));
      byIdOf.set(history, m);
    }
    return m.get(id);
  };
  const textOf = (history: string, id: string): string | undefined => recordOf(history, id)?.text;
  const rarity = new Map<string, number>();
  for (const item of training.items) {
    const q = new Set(terms(item.question));
    const evidenceText = item.evidence.map((e) => textOf(item.history, e.record) ?? '').join(' ');
    if (q.size === 0 || evidenceText.trim() === '') continue;
    // Which threads of this item's evidence hold each word (by stem).
    const threadsOf = new Map<string, string[]>();
    for (const e of item.evidence) {
      const r = recordOf(item.history, e.record);
      if (r === undefined) continue;
      for (const t of new Set(terms(r.text))) threadsOf.set(t, [...(threadsOf.get(t) ?? []), `${item.history}\u0000${r.thread}`]);
    }
    const hdf = dfIn(item.history);
    const n = recordCount.get(item.history) ?? 1;
    const ev = new Set<string>();
    for (const w of tokenize(evidenceText)) {
      if (isStopword(w) || /^\d+$/.test(w) || w.length < 3) continue;
      const t = stem(w);
      if (q.has(t)) continue;
      if ((hdf.get(t) ?? 0) > Math.max(3, maxRecordShare * n)) common.add(t);
      ev.add(t);
      const s = surface.get(t) ?? new Map<string, number>();
      s.set(w, (s.get(w) ?? 0) + 1);
      surface.set(t, s);
      rarity.set(t, Math.max(rarity.get(t) ?? 0, Math.log(1 + n / (1 + (hdf.get(t) ?? 0)))));
    }
    pairs++;
    for (const b of ev) evidenceDf.set(b, (evidenceDf.get(b) ?? 0) + 1);
    for (const a of q) {
      df.set(a, (df.get(a) ?? 0) + 1);
      const row = co.get(a) ?? new Map<string, number>();
      const rowThreads = coThreads.get(a) ?? new Map<string, Set<string>>();
      for (const b of ev) {
        row.set(b, (row.get(b) ?? 0) + 1);
        const seen = rowThreads.get(b) ?? new Set<string>();
        for (const t of threadsOf.get(b) ?? []) seen.add(t);
        rowThreads.set(b, seen);
      }
      co.set(a, row);
      coThreads.set(a, rowThreads);
    }
  }
  const scored: Array<{ term: string; words: Array<{ word: string; score: number }> }> = [];
  for (const [a, row] of co) {
    const n = df.get(a) ?? 0;
    if (n < minSupport || n > maxQuestionShare * pairs) continue;
    const words = [...row]
      .filter(([b, c]) => !common.has(b) && c >= minSupport && c / n >= minShare)
      .filter(([b]) => (coThreads.get(a)?.get(b)?.size ?? 0) >= minSupport)
      .filter(([b, c]) => c / n >= minLift * ((evidenceDf.get(b) ?? 0) / Math.max(1, pairs)))
      .map(([b, c]) => ({ word: b, score: (c / n) * (rarity.get(b) ?? 0) }))
      .filter((w) => w.score > 0)
      .sort((x, y) => y.score - x.score || (x.word < y.word ? -1 : 1))
      .slice(0, perTerm);
    if (words.length) scored.push({ term: a, words });
  }
  scored.sort((x, y) => (y.words[0]?.score ?? 0) - (x.words[0]?.score ?? 0) || (x.term < y.term ? -1 : 1));
  const out: Record<string, string[]> = {};
  for (const { term, words } of scored.slice(0, maxTerms)) {
    out[term] = words.map(({ word }) => {
      const forms = [...(surface.get(word) ?? new Map<string, number>())].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
      return forms[0]?.[0] ?? word;
    });
  }
  return out;
}
