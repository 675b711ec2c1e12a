import type { ClauseIndex } from './clause-index.ts';
import type { RecordGraph } from '../record-graph.ts';
import type { Postings } from './cues.ts';
import type { TextFact } from './facts.ts';
import type { Kind } from './kinds.ts';
import type { whoAt } from './speakers.ts';

/** What the templates read: the graph, a term index, facts per record, and who is who. */
export interface RuleContext {
  graph: RecordGraph;
  postings: Postings;
  facts(index: number): TextFact[];
  /** Lower-cased speaker names (never cues, never entity answers). */
  speakers: ReadonlySet<string>;
  /** Stems of the speaker names. */
  speakerStems: ReadonlySet<string>;
  /** True when turns have more than one named speaker (who-said questions make sense). */
  multiSpeaker: boolean;
  /** True when `who` (as {@link whoAt} names them) said words with every stem of `stems` in record `index`. */
  saidBy(index: number, who: string, stems: readonly string[]): boolean;
  /**
   * True when the history is a user talking to an assistant ("User: … / Assistant: …" turns): questions are then
   * the user's own, in the first person, with the context first ("After …, which …?").
   */
  userVoice: boolean;
  /**
   * The names the history's owner sends e-mail under, in a user's own history (see mailboxOwner); empty otherwise.
   * Their e-mails are asked of as the user's ("did I mention in an e-mail").
   */
  owner: ReadonlySet<string>;
  /** True when the history's records are short (chat turns of a sentence or two, under ~40 words on average). */
  shortRecords: boolean;
  /** Whether the history uses a word as a noun-phrase head or modifier (see nounUsage). */
  nounUsage(lower: string): 'head' | 'modifier' | undefined;
  /** The "which N" kinds of record `index` within `[from, to)` (see nounKinds; shared: never change the result). */
  kinds(index: number, from?: number, to?: number): ReadonlyMap<string, readonly Kind[]>;
  /** First-person clauses of every record (built on first use: the families need the whole history's). */
  clauses(): ClauseIndex;
  /** The title of the document a section belongs to (its first section's title). */
  documentTitle(index: number): string | undefined;
}
