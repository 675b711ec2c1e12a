import { z } from 'zod';
import { LLM_ROLES } from './config.ts';
import type { LlmRole } from './types.ts';

export const LedgerEntrySchema = z.object({
  role: z.enum(LLM_ROLES),
  model: z.string(),
  kind: z.enum(['complete', 'structured', 'embed']),
  /** Tokens billed for this call (all attempts, schema repairs included); 0 when it was served from the cache. */
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  cachedTokens: z.number().int().nonnegative(),
  /** Dollars; null when the model has no price (unknown, not free). 0 for a cache hit. */
  cost: z.number().nonnegative().nullable(),
  latencyMs: z.number().nonnegative(),
  /** True when no request was sent: the reply came from memsteer's response cache. */
  cached: z.boolean(),
  /** HTTP requests sent (retries and schema repairs included). */
  attempts: z.number().int().nonnegative(),
  ok: z.boolean(),
  /** The error code when the call failed. */
  error: z.string().optional(),
  /** True when the endpoint reported no usage and the tokens were estimated. */
  estimated: z.boolean().optional(),
  /** ISO time the call started. */
  at: z.string(),
});
/** One logical call (`complete`, `structured` or `embed`), whatever it took. */
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

export const LedgerTotalsSchema = z.object({
  calls: z.number().int().nonnegative(),
  /** Calls served entirely from the response cache. */
  cacheHits: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
  attempts: z.number().int().nonnegative(),
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  cachedTokens: z.number().int().nonnegative(),
  /** Sum of the known costs. */
  knownCost: z.number().nonnegative(),
  /** The total cost; null as soon as one billed call's cost is unknown. */
  cost: z.number().nonnegative().nullable(),
  /** Billed calls whose cost is unknown (their model has no price). */
  unknownCostCalls: z.number().int().nonnegative(),
  latencyMs: z.number().nonnegative(),
});
export type LedgerTotals = z.infer<typeof LedgerTotalsSchema>;

export const LedgerSnapshotSchema = z.object({
  v: z.literal(1),
  entries: z.array(LedgerEntrySchema),
  totals: LedgerTotalsSchema,
  byRole: z.partialRecord(z.enum(LLM_ROLES), LedgerTotalsSchema),
});
/** The ledger as written to disk (`JSON.stringify(ledger.snapshot())`; read back with `LedgerSnapshotSchema`). */
export type LedgerSnapshot = z.infer<typeof LedgerSnapshotSchema>;

/** The record of every call a client made: tokens, cost, latency, cache use, attempts; totals overall and per role. */
export class Ledger {
  private readonly list: LedgerEntry[] = [];

  constructor(private readonly onEntry?: (entry: LedgerEntry) => void) {}

  record(entry: LedgerEntry): void {
    const e = LedgerEntrySchema.parse(entry);
    this.list.push(e);
    this.onEntry?.(e);
  }

  get entries(): readonly LedgerEntry[] {
    return this.list;
  }

  totals(role?: LlmRole): LedgerTotals {
    return sumEntries(role ? this.list.filter((e) => e.role === role) : this.list);
  }

  byRole(): Partial<Record<LlmRole, LedgerTotals>> {
    const out: Partial<Record<LlmRole, LedgerTotals>> = {};
    for (const role of LLM_ROLES) if (this.list.some((e) => e.role === role)) out[role] = this.totals(role);
    return out;
  }

  snapshot(): LedgerSnapshot {
    return LedgerSnapshotSchema.parse({ v: 1, entries: this.list, totals: this.totals(), byRole: this.byRole() });
  }
}

/** Totals of a list of entries (exported for summarising a ledger read back from disk). */
export function sumEntries(entries: readonly LedgerEntry[]): LedgerTotals {
  const t: LedgerTotals = {
    calls: 0,
    cacheHits: 0,
    failures: 0,
    attempts: 0,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    knownCost: 0,
    cost: 0,
    unknownCostCalls: 0,
    latencyMs: 0,
  };
  for (const e of entries) {
    t.calls++;
    if (e.cached) t.cacheHits++;
    if (!e.ok) t.failures++;
    t.attempts += e.attempts;
    t.promptTokens += e.promptTokens;
    t.completionTokens += e.completionTokens;
    t.cachedTokens += e.cachedTokens;
    t.latencyMs += e.latencyMs;
    if (e.cost === null) t.unknownCostCalls++;
    else t.knownCost += e.cost;
  }
  t.cost = t.unknownCostCalls > 0 ? null : t.knownCost;
  return t;
}
