import type { Evidence, UnresolvedEvidence } from '../record.ts';
import { terms } from '../../text/text.ts';

/** One section record of an attachment, as the evidence resolver needs it. */
export interface SectionEntry {
  id: string;
  heading: string;
  level: number;
  parent?: number;
  text: string;
}

/** What the resolver knows about one persona's records. */
export interface RhelmIndex {
  /** All record ids of the persona. */
  ids: Set<string>;
  /** Dates (YYYY-MM-DD) that have a conversation file, with their turn count. */
  conversations: Map<string, number>;
  /** E-mails per date, in file order. */
  emails: Map<string, Array<{ id: string; text: string }>>;
  /** Attachment sections per file name (with extension). */
  documents: Map<string, SectionEntry[]>;
}

/** How one QA item's evidence came out. `count` is the number of references after splitting joined ones. */
export interface ResolvedEvidence {
  evidence: Evidence[];
  unresolved: UnresolvedEvidence[];
  count: number;
  /** References that needed a fallback (normalised or partial heading, text match, best-of-several e-mails…). */
  approximate: number;
}

/** Lower-case words only: the form headings are compared in. */
export function normHeading(s: string): string {
  return s
    .toLowerCase()
    .replace(/[‘’]/g, "'")
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const NUMBERING = /^(?:(?:section|table|figure|part|chapter|step|appendix)\s+)?(?:\d+(?:\s\d+)*|[ivxlc]+|[a-z])\s+(?=\S)/;

/** Heading without its leading numbering (`2.1`, `II.`, `A.`, `Section 3:`). */
export function stripNumbering(normed: string): string {
  return normed.replace(NUMBERING, '');
}

/** Ids of a section and every section nested under it, in document order. */
function withDescendants(sections: readonly SectionEntry[], index: number): string[] {
  const out = [sections[index]!.id];
  const inside = new Set([index]);
  for (let i = index + 1; i < sections.length; i++) {
    const p = sections[i]!.parent;
    if (p === undefined || !inside.has(p)) break;
    inside.add(i);
    out.push(sections[i]!.id);
  }
  return out;
}

const HEADER_ALIASES = new Set(['header', 'title', 'document header', 'heading']);

/**
 * Finds the sections a `<file>:<heading>` reference means. Tries, in order: the exact heading; the heading with
 * punctuation and case ignored; both without numbering; `Header` as the document's opening section; a unique
 * heading the reference is a word-prefix of (`Section 1` → `Section 1: Structured Annotation Log`); and last, the
 * first section whose text contains the reference as a phrase (headings that are bold lines or table cells).
 */
export function resolveSection(sections: readonly SectionEntry[], rawHeading: string): { ids: string[]; approximate: boolean } | undefined {
  let heading = rawHeading.trim();
  const prefixed = /^header\s*:\s*(.+)$/i.exec(heading);
  if (prefixed) heading = prefixed[1]!;
  heading = heading.replace(/^#+\s*/, '').trim();
  const exact = sections.findIndex((s) => s.heading === heading);
  if (exact >= 0) return { ids: withDescendants(sections, exact), approximate: heading !== rawHeading.trim() };
  const n = normHeading(heading);
  if (!n) return undefined;
  const normed = sections.map((s) => normHeading(s.heading));
  let i = normed.indexOf(n);
  if (i >= 0) return { ids: withDescendants(sections, i), approximate: true };
  const stripped = stripNumbering(n);
  i = normed.findIndex((h) => h && stripNumbering(h) === stripped);
  if (i >= 0) return { ids: withDescendants(sections, i), approximate: true };
  if (HEADER_ALIASES.has(n) && sections.length) return { ids: [sections[0]!.id], approximate: true };
  const prefixHits = normed
    .map((h, j) => (h.startsWith(`${n} `) || stripNumbering(h).startsWith(`${stripped} `) ? j : -1))
    .filter((j) => j >= 0);
  if (prefixHits.length >= 1) return { ids: withDescendants(sections, prefixHits[0]!), approximate: true };
  const phrase = ` ${n} `;
  i = sections.findIndex((s) => ` ${normHeading(s.text)} `.includes(phrase));
  if (i >= 0) return { ids: [sections[i]!.id], approximate: true };
  return undefined;
}

/**
 * Picks the e-mail a generic reference (`Emails_<date>:Email`, `:Header`, `:Body`) means when that date has
 * several: the one sharing the most distinctive words with the question and answer. Distinctive = not present in
 * every e-mail of that date (the user's own name and address are). No clear winner → all of that date's e-mails.
 */
export function pickEmail(
  emails: ReadonlyArray<{ id: string; text: string }>,
  questionAndAnswer: string,
): { ids: string[]; approximate: boolean } {
  if (emails.length === 1) return { ids: [emails[0]!.id], approximate: false };
  const sets = emails.map((e) => new Set(terms(e.text)));
  const q = new Set(terms(questionAndAnswer));
  const scores = sets.map((set) => {
    let s = 0;
    for (const t of q) if (set.has(t) && !sets.every((other) => other.has(t))) s++;
    return s;
  });
  const best = Math.max(...scores);
  const winners = scores.filter((s) => s === best).length;
  if (best > 0 && winners === 1) return { ids: [emails[scores.indexOf(best)]!.id], approximate: true };
  return { ids: emails.map((e) => e.id), approximate: true };
}

const CONV_REF = /^(\d{4}-\d{2}-\d{2}):\s*(\d+)$/;
const EMAIL_REF = /^Emails_(\d{4}-\d{2}-\d{2})(?::\s*(.*))?$/;

/** Splits comma-joined conversation refs: `2024-05-28:9,2024-05-28:10` and `2024-06-26:13,17,18`. */
export function splitJoinedRef(ref: string): string[] {
  const m = /^(\d{4}-\d{2}-\d{2}):\s*\d+(?:\s*,\s*(?:\d{4}-\d{2}-\d{2}:\s*)?\d+)+$/.exec(ref.trim());
  if (!m) return [ref.trim()];
  let date = m[1]!;
  return ref.split(',').map((piece) => {
    const p = piece.trim();
    const d = /^(\d{4}-\d{2}-\d{2}):\s*(\d+)$/.exec(p);
    if (d) {
      date = d[1]!;
      return `${date}:${d[2]}`;
    }
    return `${date}:${p}`;
  });
}

/**
 * Maps RHELM `supporting_evidence` strings to record ids: conversation turns (`YYYY-MM-DD:<turn>`), e-mails
 * (`Emails_YYYY-MM-DD:<label>`; the label is `Email`, `Header`, `Body` or `Email <n>`, so it names the e-mail only
 * by position when numbered) and attachment sections (`<file>:<heading>`; a bare file name means the whole
 * document). Whatever does not resolve is returned with the reason, never dropped.
 */
export function resolveRhelmEvidence(
  qaId: string,
  questionAndAnswer: string,
  refs: readonly string[],
  index: RhelmIndex,
): ResolvedEvidence {
  const evidence: Evidence[] = [];
  const unresolved: UnresolvedEvidence[] = [];
  const taken = new Set<string>();
  let count = 0;
  let approximate = 0;
  const add = (ids: readonly string[]) => {
    for (const id of ids) {
      if (!taken.has(id)) {
        taken.add(id);
        evidence.push({ record: id });
      }
    }
  };
  const miss = (ref: string, reason: string) => unresolved.push({ qa: qaId, ref, reason });

  for (const original of refs) {
    for (const ref of splitJoinedRef(original)) {
      count++;
      const conv = CONV_REF.exec(ref);
      if (conv) {
        const id = `${conv[1]}:${Number(conv[2])}`;
        const turns = index.conversations.get(conv[1]!);
        if (index.ids.has(id)) add([id]);
        else if (turns === undefined) miss(original, `no conversation on ${conv[1]}`);
        else miss(original, `conversation ${conv[1]} has ${turns} turns, no turn ${Number(conv[2])}`);
        continue;
      }
      const mail = EMAIL_REF.exec(ref);
      if (mail) {
        const list = index.emails.get(mail[1]!);
        if (!list?.length) {
          miss(original, `no e-mails dated ${mail[1]}`);
          continue;
        }
        const numbered = /^(?:email\s*)?(\d+)$/i.exec((mail[2] ?? '').trim());
        if (numbered) {
          const k = Number(numbered[1]);
          if (k >= 1 && k <= list.length) add([list[k - 1]!.id]);
          else miss(original, `e-mail ${k} of ${mail[1]} does not exist (${list.length} e-mails that day)`);
          continue;
        }
        const picked = pickEmail(list, questionAndAnswer);
        if (picked.approximate) approximate++;
        add(picked.ids);
        continue;
      }
      const colon = ref.indexOf(':');
      const fileRef = (colon >= 0 ? ref.slice(0, colon) : ref).trim();
      const heading = colon >= 0 ? ref.slice(colon + 1).trim() : '';
      const file = [fileRef, `${fileRef}.md`, `${fileRef}.html`].find((f) => index.documents.has(f));
      if (file === undefined) {
        miss(original, `no attachment named ${fileRef}`);
        continue;
      }
      const sections = index.documents.get(file)!;
      if (file !== fileRef) approximate++;
      if (!heading) {
        // A reference to the file alone points at the whole document.
        add(sections.map((s) => s.id));
        continue;
      }
      const found = resolveSection(sections, heading);
      if (!found) {
        miss(original, `no section of ${file} has a heading or text matching '${heading}'`);
        continue;
      }
      if (found.approximate && file === fileRef) approximate++;
      add(found.ids);
    }
  }
  return { evidence, unresolved, count, approximate };
}
