import { z } from 'zod';
import { countTokens } from '../text/text.ts';
import { HistoryWarningSchema, type History } from './record.ts';

const Count = z.number().int().nonnegative();

const UnresolvedSchema = z.object({ qa: z.string(), ref: z.string(), reason: z.string() });

/** Evidence bookkeeping: references in the data, how many named a record, and the ones that did not. */
const EvidenceStatsSchema = z.object({
  /** References in the source data (after splitting joined ones like `2024-06-26:13,17,18`). */
  refs: Count,
  resolved: Count,
  unresolved: Count,
  /** Evidence entries after mapping (one reference may name several records, e.g. a whole document). */
  links: Count,
  /** References resolved through a fallback (normalised heading, text match, best-matching e-mail…). */
  approximate: Count,
  unresolvedList: z.array(UnresolvedSchema),
});

/** The numbers `memsteer inspect` shows for one history (also its `--json` output, validated with this schema). */
export const HistorySummarySchema = z.object({
  id: z.string(),
  source: z.string(),
  format: z.string(),
  records: Count,
  recordsByKind: z.record(z.string(), Count),
  threads: Count,
  time: z.object({ first: z.string().optional(), last: z.string().optional(), recordsWithTime: Count }),
  tokens: z.object({ total: Count, meanPerRecord: z.number().nonnegative() }),
  qa: z.object({ total: Count, byCategory: z.record(z.string(), Count) }),
  evidence: EvidenceStatsSchema,
  /** Degraded input, counted (see History.warnings). */
  warnings: z.array(HistoryWarningSchema),
});
export type HistorySummary = z.infer<typeof HistorySummarySchema>;

/** Summaries of several histories plus their totals (`id` of the totals is `total`). */
export const HistoriesSummarySchema = z.object({
  histories: z.array(HistorySummarySchema),
  total: HistorySummarySchema.omit({ id: true, source: true, format: true }).extend({
    histories: Count,
    evidence: EvidenceStatsSchema.extend({ unresolvedList: z.array(UnresolvedSchema.extend({ history: z.string() })) }),
    warnings: z.array(HistoryWarningSchema.extend({ history: z.string() })),
  }),
});
export type HistoriesSummary = z.infer<typeof HistoriesSummarySchema>;

function bump(map: Record<string, number>, key: string, by = 1): void {
  map[key] = (map[key] ?? 0) + by;
}

/** Orders category keys numerically when they are numbers ("1"…"5"), else alphabetically. */
function sortKeys(map: Record<string, number>): Record<string, number> {
  const keys = Object.keys(map).sort((a, b) => {
    const na = Number(a);
    const nb = Number(b);
    return Number.isFinite(na) && Number.isFinite(nb) ? na - nb : a.localeCompare(b);
  });
  return Object.fromEntries(keys.map((k) => [k, map[k]!]));
}

/** Counts records, threads, time span, tokens, QA by category and evidence resolution of one history. */
export function summarizeHistory(h: History): HistorySummary {
  const recordsByKind: Record<string, number> = {};
  const threads = new Set<string>();
  let first: string | undefined;
  let last: string | undefined;
  let withTime = 0;
  let tokens = 0;
  for (const r of h.records) {
    bump(recordsByKind, r.kind);
    if (r.thread !== undefined) threads.add(r.thread);
    if (r.time) {
      withTime++;
      // ISO strings compare chronologically as text (date-only ones sort before that day's times).
      if (first === undefined || r.time < first) first = r.time;
      if (last === undefined || r.time > last) last = r.time;
    }
    tokens += countTokens(r.text);
  }
  const byCategory: Record<string, number> = {};
  let refs = 0;
  let links = 0;
  let approximate = 0;
  const unresolvedBy = new Map<string, number>();
  for (const u of h.unresolvedEvidence) unresolvedBy.set(u.qa, (unresolvedBy.get(u.qa) ?? 0) + 1);
  for (const q of h.qa) {
    bump(byCategory, q.category ?? '(none)');
    links += q.evidence.length;
    const declared = q.meta?.evidenceRefs;
    // Loaders of official data record how many references the data gave; otherwise count each evidence entry once.
    refs += typeof declared === 'number' ? declared : q.evidence.length + (unresolvedBy.get(q.id) ?? 0);
    const approx = q.meta?.evidenceApproximate;
    if (typeof approx === 'number') approximate += approx;
  }
  const unresolved = h.unresolvedEvidence.length;
  const time: HistorySummary['time'] = { recordsWithTime: withTime };
  if (first !== undefined) time.first = first;
  if (last !== undefined) time.last = last;
  return HistorySummarySchema.parse({
    id: h.id,
    source: h.source,
    format: h.format,
    records: h.records.length,
    recordsByKind: sortKeys(recordsByKind),
    threads: threads.size,
    time,
    tokens: { total: tokens, meanPerRecord: h.records.length ? tokens / h.records.length : 0 },
    qa: { total: h.qa.length, byCategory: sortKeys(byCategory) },
    evidence: { refs, resolved: Math.max(0, refs - unresolved), unresolved, links, approximate, unresolvedList: h.unresolvedEvidence },
    warnings: h.warnings ?? [],
  });
}

/** Summaries of each history and the totals over all of them. */
export function summarizeHistories(hs: readonly History[]): HistoriesSummary {
  const histories = hs.map(summarizeHistory);
  const recordsByKind: Record<string, number> = {};
  const byCategory: Record<string, number> = {};
  let first: string | undefined;
  let last: string | undefined;
  const t = { records: 0, threads: 0, withTime: 0, tokens: 0, qa: 0, refs: 0, resolved: 0, unresolved: 0, links: 0, approximate: 0 };
  const unresolvedList: HistoriesSummary['total']['evidence']['unresolvedList'] = [];
  for (const s of histories) {
    t.records += s.records;
    t.threads += s.threads;
    t.withTime += s.time.recordsWithTime;
    t.tokens += s.tokens.total;
    t.qa += s.qa.total;
    t.refs += s.evidence.refs;
    t.resolved += s.evidence.resolved;
    t.unresolved += s.evidence.unresolved;
    t.links += s.evidence.links;
    t.approximate += s.evidence.approximate;
    unresolvedList.push(...s.evidence.unresolvedList.map((u) => ({ history: s.id, ...u })));
    for (const [k, v] of Object.entries(s.recordsByKind)) bump(recordsByKind, k, v);
    for (const [k, v] of Object.entries(s.qa.byCategory)) bump(byCategory, k, v);
    if (s.time.first !== undefined && (first === undefined || s.time.first < first)) first = s.time.first;
    if (s.time.last !== undefined && (last === undefined || s.time.last > last)) last = s.time.last;
  }
  const time: HistorySummary['time'] = { recordsWithTime: t.withTime };
  if (first !== undefined) time.first = first;
  if (last !== undefined) time.last = last;
  return HistoriesSummarySchema.parse({
    histories,
    total: {
      histories: histories.length,
      records: t.records,
      recordsByKind: sortKeys(recordsByKind),
      threads: t.threads,
      time,
      tokens: { total: t.tokens, meanPerRecord: t.records ? t.tokens / t.records : 0 },
      qa: { total: t.qa, byCategory: sortKeys(byCategory) },
      evidence: {
        refs: t.refs,
        resolved: t.resolved,
        unresolved: t.unresolved,
        links: t.links,
        approximate: t.approximate,
        unresolvedList,
      },
      warnings: histories.flatMap((s) => s.warnings.map((w) => ({ history: s.id, ...w }))),
    },
  });
}
