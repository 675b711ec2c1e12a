/**
 * Span-aware delivery. A record can be long (a chat turn with the assistant's reply, an e-mail, a document
 * section) and a design may deliver only part of it (a passage unit with the user's words). The record rule of
 * provenance.ts credits the record for any eight consecutive words of it (`QUOTE_WORDS`); when a question's evidence names the
 * words that support the answer (generated supervision carries a `quote` per evidence), the record counts as delivered
 * for that question only if the context also carries those words, by the same rule applied to the quote. Evidence
 * without a quote (official QA points at whole records) keeps the record rule.
 */
import type { Evidence } from '../history/record.ts';
import { RecordWords, verifySources } from './provenance.ts';

/**
 * `deliveredRecords` without the gold records whose quoted evidence the context text does not carry. A record cited
 * by several quotes needs each of them. Records that are not cited with a quote pass through unchanged.
 */
export function spanAwareDelivered(contextText: string, evidence: readonly Evidence[], deliveredRecords: readonly string[]): string[] {
  const delivered = new Set(deliveredRecords);
  const quotes: Array<{ id: string; text: string; record: string }> = [];
  const seen = new Set<string>();
  for (const e of evidence) {
    if (!e.quote || e.quote.trim() === '' || !delivered.has(e.record)) continue;
    // The same quote cited twice is one claim: a second claim would need a second occurrence in the context.
    const key = `${e.record}\u0000${e.quote}`;
    if (seen.has(key)) continue;
    seen.add(key);
    quotes.push({ id: String(quotes.length), text: e.quote, record: e.record });
  }
  if (quotes.length === 0) return [...deliveredRecords];
  const { unverified } = verifySources(
    contextText,
    quotes.map((q) => q.id),
    new RecordWords(quotes),
  );
  const missing = new Set(unverified.map((id) => quotes[Number(id)]!.record));
  return deliveredRecords.filter((r) => !missing.has(r));
}
