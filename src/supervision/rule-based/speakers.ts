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
