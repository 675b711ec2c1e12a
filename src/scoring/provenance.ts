/**
 * Verified provenance: which of the records a text claims to come from it verifiably carries. The rule is the one
 * sandbox/contract.ts documents on `MemoryUnit.sources`; every score that credits a record (R@k, recall at the
 * token budget, context recall, diagnosis, `createMemory().search()`'s evidence) goes through here.
 *
 * Texts are compared as word sequences: `tokenize` (lower-cased letters and digits with inner apostrophes and
 * hyphens; ’ read as '), so line breaks, spacing, punctuation and case never matter. A record is carried when the
 * text holds the record's whole word sequence, or, for a record longer than {@link QUOTE_WORDS} words, any
 * {@link QUOTE_WORDS} consecutive words of it. Every carried record needs its own span: claims are checked longest
 * record first, and a span already credited to one record cannot be credited to another, so a short record cannot
 * ride on words that belong to a longer one. A record with no words is carried when its trimmed text occurs.
 */
import { tokenize } from '../text/text.ts';

/** Consecutive words of a longer record that count as quoting it. */
export const QUOTE_WORDS = 8;

/** A record as the rule reads it. */
export interface ProvenanceRecord {
  id: string;
  text: string;
}

/** The outcome of checking one text's claims. */
export interface VerifiedSources {
  /** Carried records, in the order their spans appear in the text. */
  verified: string[];
  /** Claimed ids the text does not carry (unknown ids included), in claim order. */
  unverified: string[];
}

/** A text prepared for repeated span searches. */
interface Haystack {
  words: string[];
  /** Word → its positions, ascending (built on first search). */
  positions: Map<string, number[]> | null;
  /** Words already credited to a record. */
  used: Uint8Array;
  raw: string;
  /**
   * Work left (word comparisons and occurrences visited). The host does this work outside any sandbox time limit,
   * so it is bounded in proportion to the input; claims left when it runs out are not verified.
   */
  steps: number;
}

/** Steps of search allowed per word of text and claimed record (an honest unit needs a few per word). */
const STEPS_PER_WORD = 200;

function words(text: string): string[] {
  return tokenize(text.replace(/’/g, "'"));
}

function haystack(text: string, claimedWords: number): Haystack {
  const ws = words(text);
  return {
    words: ws,
    positions: null,
    used: new Uint8Array(ws.length),
    raw: text,
    steps: STEPS_PER_WORD * (ws.length + claimedWords) + 10_000,
  };
}

function positionsOf(h: Haystack): Map<string, number[]> {
  if (h.positions) return h.positions;
  const m = new Map<string, number[]>();
  h.words.forEach((w, i) => {
    const list = m.get(w);
    if (list) list.push(i);
    else m.set(w, [i]);
  });
  h.positions = m;
  return m;
}

/**
 * Finds a free occurrence of the word sequence `seq[from, from + n)` and marks it used; returns its first word or
 * -1. Occurrences are found through the sequence's rarest word, so a claim costs about its own length.
 */
function claimSpan(h: Haystack, seq: readonly string[], from: number, n: number): number {
  const positions = positionsOf(h);
  let anchor = -1;
  let anchorHits: number[] | undefined;
  for (let i = 0; i < n; i++) {
    const hits = positions.get(seq[from + i]!);
    if (!hits) return -1;
    if (!anchorHits || hits.length < anchorHits.length) {
      anchor = i;
      anchorHits = hits;
    }
  }
  h.steps -= n;
  for (const at of anchorHits!) {
    if (--h.steps < 0) return -1;
    const first = at - anchor;
    if (first < 0 || first + n > h.words.length) continue;
    let ok = true;
    for (let i = 0; i < n; i++) {
      h.steps--;
      if (h.used[first + i] || h.words[first + i] !== seq[from + i]) {
        ok = false;
        break;
      }
    }
    if (ok) {
      h.used.fill(1, first, first + n);
      return first;
    }
  }
  return -1;
}

/** Where in `h` the record is carried (a word index; raw-text records sort after words), or null. */
function locate(h: Haystack, recordWords: readonly string[], rawText: string): number | null {
  const n = recordWords.length;
  if (n === 0) {
    const t = rawText.trim();
    if (t === '') return null;
    h.steps -= Math.ceil(h.raw.length / 64);
    const at = h.steps < 0 ? -1 : h.raw.indexOf(t);
    return at < 0 ? null : h.words.length + at;
  }
  const whole = claimSpan(h, recordWords, 0, n);
  if (whole >= 0) return whole;
  if (n <= QUOTE_WORDS) return null;
  for (let i = 0; i + QUOTE_WORDS <= n && h.steps > 0; i++) {
    const at = claimSpan(h, recordWords, i, QUOTE_WORDS);
    if (at >= 0) return at;
  }
  return null;
}

/** Record words, cached per record object (a record is checked against many units). */
export class RecordWords {
  #byId: Map<string, ProvenanceRecord>;
  #words = new Map<string, string[]>();

  constructor(records: Iterable<ProvenanceRecord>) {
    this.#byId = new Map([...records].map((r) => [r.id, r]));
  }

  /** Records that became visible later (a memory grown over time); an id already held keeps its text. */
  add(records: Iterable<ProvenanceRecord>): void {
    for (const r of records) if (!this.#byId.has(r.id)) this.#byId.set(r.id, r);
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  text(id: string): string | undefined {
    return this.#byId.get(id)?.text;
  }

  words(id: string): string[] | undefined {
    let w = this.#words.get(id);
    if (w === undefined) {
      const r = this.#byId.get(id);
      if (!r) return undefined;
      w = words(r.text);
      this.#words.set(id, w);
    }
    return w;
  }
}

/**
 * Checks which of `claimed` record ids `text` carries (see the module comment for the rule). Duplicate claims
 * count once; ids that are not records are unverified.
 */
export function verifySources(text: string, claimed: readonly string[], records: RecordWords): VerifiedSources {
  const unique = [...new Set(claimed)];
  const unknown = new Set<string>();
  const candidates: Array<{ id: string; words: string[]; order: number }> = [];
  unique.forEach((id, order) => {
    const w = records.words(id);
    if (w === undefined) unknown.add(id);
    else candidates.push({ id, words: w, order });
  });
  if (candidates.length === 0) return { verified: [], unverified: unique };
  const h = haystack(
    text,
    candidates.reduce((n, c) => n + c.words.length, 0),
  );
  // Longest first: a long record's span is claimed before a short record could take words out of it.
  candidates.sort((a, b) => b.words.length - a.words.length || a.order - b.order);
  const found: Array<{ id: string; at: number }> = [];
  const failed = new Set<string>();
  for (const c of candidates) {
    const at = locate(h, c.words, records.text(c.id) ?? '');
    if (at === null) failed.add(c.id);
    else found.push({ id: c.id, at });
  }
  found.sort((a, b) => a.at - b.at);
  return { verified: found.map((f) => f.id), unverified: unique.filter((id) => unknown.has(id) || failed.has(id)) };
}
