import { LEGACY_TEST_SCORES_NOTE, TestScoresSchema, type Archive, type NewEvent, type TestScores } from '../archive/index.ts';

export { TestScoresSchema, type TestScores };

/** Message of the `note` that carried test scores in runs written before the typed `test-scores` event; still read. */
export const TEST_SCORES_NOTE = LEGACY_TEST_SCORES_NOTE;

/** The event to append (`archive.appendEvent(testScoresEvent(...))`) after testing a program on the official QA. */
export function testScoresEvent(scores: TestScores): NewEvent {
  return { type: 'test-scores', ...TestScoresSchema.parse(scores) };
}

/** The latest official-test scores recorded for `program`, or null when the run has none. */
export function readTestScores(archive: Archive, program: string): TestScores | null {
  return archive.testScores().get(program) ?? null;
}
