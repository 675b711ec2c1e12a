export { Archive, ArchiveError, createArchive, openArchive, type ArchiveOptions, type NewProgram } from './archive.ts';
export { buildState, type SearchState } from './state.ts';
export { canonicalJson, programId, sha256 } from './program-id.ts';
export { collectVersions, readGitCommit } from './environment.ts';
export { readEventLog, type EventLog } from './events.ts';
export {
  ARCHIVE_FORMAT,
  OFFICIAL_TRACES_DIR,
  CostSchema,
  DecisionSchema,
  EventSchema,
  FailureSchema,
  ManifestSchema,
  ProgramRecordSchema,
  ProgramStatus,
  ScoresSchema,
  LEGACY_TEST_SCORES_NOTE,
  TestScoresSchema,
  type TestScores,
  type ArchiveEvent,
  type Cost,
  type Decision,
  type Failure,
  type Manifest,
  type ManifestInput,
  type NewEvent,
  type ProgramRecord,
  type Scores,
} from './schemas.ts';
export {
  RUN_LOCK_FILE,
  RunLockHolderSchema,
  RunLockedError,
  acquireRunLock,
  readRunLock,
  type RunLock,
  type RunLockHolder,
} from './run-lock.ts';
