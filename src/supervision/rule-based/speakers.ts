import type { SourceRecord } from '../../../sandbox/contract.ts';

/** Who said the text at `offset` of a record, as a question names them (undefined: no one in particular). */
export function whoAt(r: SourceRecord, offset: number): string | undefined {
  if (r.kind === 'turn' && r.text.startsWith('User: ')) {
    const a = r.text.indexOf('\nAssistant: ');
    return a >= 0 && offset > a ? 'the assistant' : 'the user';
  }
  if (!r.speaker) return undefined;
  const s = r.speaker.toLowerCase();
  if (s === 'user') return 'the user';
  if (s === 'assistant') return 'the assistant';
  return r.speaker;
}

/** The part of a "User: … / Assistant: …" turn that `who` said; the whole text for any other record. */
export function roleRange(r: SourceRecord, who: string | undefined): [number, number] {
  if (r.kind === 'turn' && r.text.startsWith('User: ')) {
    const a = r.text.indexOf('\nAssistant: ');
    if (a >= 0) return who === 'the assistant' ? [a, r.text.length] : [0, a];
  }
  return [0, r.text.length];
}

/** Titles a name may start with ("Dr. Weber", "Frau Lehmann"): part of the name, not a name of their own. */
export const TITLES = new Set('dr dr. frau herr mr mr. mrs mrs. ms ms. prof prof. professor justice advocate judge'.split(' '));

/** The words of a name that identify the person ("Dr. Emil Weber" → emil, weber). */
export function nameWords(name: string): string[] {
  return name
    .split(/\s+/)
    .map((w) => w.toLowerCase())
    .filter((w) => !TITLES.has(w));
}

const owners = new WeakMap<readonly SourceRecord[], ReadonlySet<string>>();

/**
 * The names the history's owner sends e-mail under, when its e-mails are one person's mailbox: the sender of at
 * least 40% of them, with every form of their name ("Justice Arvind Prakash Mehra", "Arvind Prakash Mehra"). The
 * RHELM personas send 64–91% of their e-mails, the next sender at most 10%. Empty when no one sends that many.
 * A user asks of their own e-mails in the first person ("What flyers did I mention in an e-mail?"), never by name.
 */
export function mailboxOwner(records: readonly SourceRecord[]): ReadonlySet<string> {
  const known = owners.get(records);
  if (known) return known;
  const byKey = new Map<string, { n: number; names: Set<string> }>();
  let emails = 0;
  for (const r of records) {
    if (r.kind !== 'email') continue;
    emails++;
    if (!r.speaker) continue;
    // One key for the forms a person signs with ("Dr. Elena Markovic", "Elena Markovic").
    const key = nameWords(r.speaker).join(' ');
    const k = byKey.get(key) ?? { n: 0, names: new Set<string>() };
    k.n++;
    k.names.add(r.speaker);
    byKey.set(key, k);
  }
  const top = [...byKey.values()].sort((a, b) => b.n - a.n)[0];
  const out: ReadonlySet<string> = top && top.n >= 0.4 * emails ? top.names : new Set();
  owners.set(records, out);
  return out;
}
