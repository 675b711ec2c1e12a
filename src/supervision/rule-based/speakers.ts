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

/** Titles a sender's name carries in some e-mails and not in others ("Dr. Elena Markovic" and "Elena Markovic"). */
const HONORIFIC = /^(?:dr|prof|professor|mr|mrs|ms|miss|sir|justice|advocate)\.?$/i;

/** A sender's name without its titles, lower-cased: one key for the forms a person signs with. */
function nameKey(name: string): string {
  return name
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w && !HONORIFIC.test(w))
    .join(' ');
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
    const k = byKey.get(nameKey(r.speaker)) ?? { n: 0, names: new Set<string>() };
    k.n++;
    k.names.add(r.speaker);
    byKey.set(nameKey(r.speaker), k);
  }
  const top = [...byKey.values()].sort((a, b) => b.n - a.n)[0];
  const out: ReadonlySet<string> = top && top.n >= 0.4 * emails ? top.names : new Set();
  owners.set(records, out);
  return out;
}
