import type { SourceRecord } from '../../sandbox/contract.ts';

/** A chat turn record for the supervision tests' small histories. */
export const turn = (id: string, speaker: string, time: string, thread: string, text: string): SourceRecord => ({
  id,
  kind: 'turn',
  speaker,
  time,
  thread,
  text,
});

/**
 * A user–assistant turn ("User: … / Assistant: …") of a user-voice history; its thread is the id's part before
 * the colon ("A:1" → "A").
 */
export const userTurn = (id: string, time: string, user: string, assistant = 'Noted.'): SourceRecord => ({
  id,
  kind: 'turn',
  time,
  thread: id.split(':')[0]!,
  text: `User: ${user}\nAssistant: ${assistant}`,
});

/**
 * A section record of document `file` as the document loader writes it: its heading opening the text (`## ` before it
 * in a Markdown file, nothing in an HTML one), its place in the outline in `meta`.
 */
export const documentSection =
  (file: string, time: string, marker: '' | '## ') =>
  (n: number, level: number, title: string, body: string, parent?: string): SourceRecord => ({
    id: `${file}:${title}`,
    kind: 'document',
    thread: file,
    title,
    time,
    text: `${marker}${title}\n\n${body}`,
    meta: { file, section: n, level, ...(parent ? { parent: `${file}:${parent}` } : {}) },
  });
