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
