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
