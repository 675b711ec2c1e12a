/**
 * The host's view of a memory a design built: every unit's text and claimed sources, checked against the records
 * the design was given (src/scoring/provenance.ts). Everything evaluation credits a design with comes from here:
 * the ranked records (R@k), the records of the ranked units that fit the token budget, the delivered records
 * (context recall) and the recoverable gold records (diagnosis). The design's own lists are claims it checks.
 */
import type { SourceRecord } from '../../sandbox/contract.ts';
import { RecordWords, verifySources, type VerifiedSources } from '../scoring/provenance.ts';
import { countTokens } from '../text/text.ts';

/** A memory unit as the host reads it out of the sandbox. */
export interface UnitText {
  id: string;
  text: string;
  sources: string[];
  time?: string;
}

/** What the answerer was credited with for one context. */
export interface DeliveredRecords {
  /** Declared units that delivered at least one record, in the order their first record appears in the context. */
  units: string[];
  /** Records the context text carries among the declared units' verified sources, in context order. */
  records: string[];
}

const NONE: VerifiedSources = { verified: [], unverified: [] };

export class VerifiedMemory {
  #units: Map<string, UnitText>;
  #records: RecordWords;
  #checked = new Map<string, VerifiedSources>();
  /** Units whose check found a claim that did not verify (it may verify once more records arrive). */
  #failedClaims = new Set<string>();
  #tokens = new Map<string, number>();
  /** Record id → units claiming it (built on first use). */
  #claimants: Map<string, string[]> | null = null;

  /** `records` are the records the design was given: a claim on any other id is never verified. */
  constructor(units: readonly UnitText[], records: readonly Pick<SourceRecord, 'id' | 'text'>[]) {
    this.#units = new Map(units.map((u) => [u.id, u]));
    this.#records = new RecordWords(records);
  }

  get size(): number {
    return this.#units.size;
  }

  /**
   * The memory after the design grew it with `added` records (the one-pass path): `units` is every unit now.
   * Checks are kept for units the host already holds unchanged (same object) whose claims all verified; a claim
   * that failed may name one of the new records, so those units are checked again when asked.
   */
  grow(units: readonly UnitText[], added: readonly Pick<SourceRecord, 'id' | 'text'>[]): void {
    this.#records.add(added);
    // Updated in place, not rebuilt: an app adding one record at a time must not pay for the whole memory per add.
    const changed: string[] = [];
    for (const u of units) {
      if (this.#units.get(u.id) !== u) {
        this.#units.set(u.id, u);
        changed.push(u.id);
      }
    }
    if (this.#units.size !== units.length) {
      const kept = new Set(units.map((u) => u.id));
      for (const id of this.#units.keys()) {
        if (!kept.has(id)) {
          this.#units.delete(id);
          changed.push(id);
        }
      }
    }
    for (const id of changed) {
      this.#forget(id);
      this.#tokens.delete(id);
    }
    if (added.length > 0) for (const id of [...this.#failedClaims]) this.#forget(id);
    if (changed.length > 0) this.#claimants = null;
  }

  /**
   * The memory after the design grew it with `added` records by appending `units` and changing none it had: costs the
   * new units only. A unit id it already holds means the memory was not only appended to (use {@link grow}).
   */
  append(units: readonly UnitText[], added: readonly Pick<SourceRecord, 'id' | 'text'>[]): void {
    for (const u of units) {
      if (this.#units.has(u.id)) throw new Error(`append: unit ${u.id} is already held; the memory changed, use grow`);
    }
    this.#records.add(added);
    for (const u of units) this.#units.set(u.id, u);
    if (added.length > 0) for (const id of [...this.#failedClaims]) this.#forget(id);
    if (units.length > 0) this.#claimants = null;
  }

  #forget(unit: string): void {
    this.#checked.delete(unit);
    this.#failedClaims.delete(unit);
  }

  /** The unit's text as the host read it ('' for a unit the host never saw). */
  text(unit: string): string {
    return this.#units.get(unit)?.text ?? '';
  }

  /** The unit's verified and unverified sources (a unit the host never saw has neither). */
  check(unit: string): VerifiedSources {
    let c = this.#checked.get(unit);
    if (!c) {
      const u = this.#units.get(unit);
      c = u ? verifySources(u.text, u.sources, this.#records) : NONE;
      this.#checked.set(unit, c);
      if (c.unverified.length > 0) this.#failedClaims.add(unit);
    }
    return c;
  }

  /** countTokens of the unit's text (0 for an unknown unit). */
  tokens(unit: string): number {
    let n = this.#tokens.get(unit);
    if (n === undefined) {
      const u = this.#units.get(unit);
      n = u ? countTokens(u.text) : 0;
      this.#tokens.set(unit, n);
    }
    return n;
  }

  /**
   * Units expanded to their verified records in rank order, de-duplicated, at most `cap`. A multi-record unit
   * gives its records in the order they appear in its text, each taking one rank.
   */
  rankedRecords(units: readonly string[], cap = Number.POSITIVE_INFINITY): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    for (const u of units) {
      for (const r of this.check(u).verified) {
        if (seen.has(r)) continue;
        seen.add(r);
        out.push(r);
        if (out.length >= cap) return out;
      }
    }
    return out;
  }

  /**
   * Verified records of the longest prefix of the ranked units whose texts together fit `tokens` (each unit costs
   * countTokens of its text, a repeated unit again): what the ranking could deliver within the budget.
   */
  budgetRecords(units: readonly string[], tokens: number): string[] {
    let used = 0;
    let end = 0;
    while (end < units.length) {
      const cost = this.tokens(units[end]!);
      if (used + cost > tokens) break;
      used += cost;
      end++;
    }
    return this.rankedRecords(units.slice(0, end));
  }

  /**
   * The records the delivered context text carries among the verified sources of the units the design declared:
   * a declared unit whose text was cut by the budget, or never written into the context, delivers nothing.
   */
  delivered(contextText: string, declared: readonly string[]): DeliveredRecords {
    const units = [...new Set(declared)];
    const candidates = this.rankedRecords(units);
    const records = verifySources(contextText, candidates, this.#records).verified;
    const owner = new Map<string, string>();
    for (const u of units) for (const r of this.check(u).verified) if (!owner.has(r)) owner.set(r, u);
    const deliveredUnits: string[] = [];
    const seen = new Set<string>();
    for (const r of records) {
      const u = owner.get(r)!;
      if (!seen.has(u)) {
        seen.add(u);
        deliveredUnits.push(u);
      }
    }
    return { units: deliveredUnits, records };
  }

  /** Claims that failed verification, summed over the distinct units given. */
  unverifiedCount(units: Iterable<string>): number {
    let n = 0;
    for (const u of new Set(units)) n += this.check(u).unverified.length;
    return n;
  }

  /** The gold records some unit of this memory verifiably carries (recoverable from memory), in gold order. */
  recoverable(gold: readonly string[]): string[] {
    if (gold.length === 0) return [];
    if (!this.#claimants) {
      const m = new Map<string, string[]>();
      for (const u of this.#units.values()) {
        for (const s of new Set(u.sources)) {
          let list = m.get(s);
          if (!list) m.set(s, (list = []));
          list.push(u.id);
        }
      }
      this.#claimants = m;
    }
    const claimants = this.#claimants;
    return gold.filter((g) => (claimants.get(g) ?? []).some((u) => this.check(u).verified.includes(g)));
  }
}
