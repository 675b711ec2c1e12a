import { z } from 'zod';
import type { Archive, NewEvent } from '../archive/index.ts';

/**
 * The archive has no field for official-test scores (the optimizer evaluates on test only at the end, outside the
 * search), so they travel as a `note` event with this message. Export reads the last one per program.
 */
export const TEST_SCORES_NOTE = 'official-test-scores';

/** A program's scores on the official test questions, as the note carries them. */
export const TestScoresSchema = z.object({
  program: z.string().min(1),
  /** Fitness under the run's objective. */
  value: z.number(),
  n: z.number().int().nonnegative(),
  /** accuracy, f1, recall@k, contextRecall, locomoF1… (whatever was measured). */
  metrics: z.record(z.string(), z.number()),
  /** True when the LLM budget ran out during this test: the scores are lower than the design earned. */
  budgetExhausted: z.boolean().optional(),
});
export type TestScores = z.infer<typeof TestScoresSchema>;

/** The event to append (`archive.appendEvent(testScoresEvent(...))`) after testing a program on the official QA. */
export function testScoresEvent(scores: TestScores): NewEvent {
  const data = TestScoresSchema.parse(scores);
  return { type: 'note', message: TEST_SCORES_NOTE, data };
}

/** The latest official-test scores recorded for `program`, or null when the run has none. */
export function readTestScores(archive: Archive, program: string): TestScores | null {
  let found: TestScores | null = null;
  for (const e of archive.events()) {
    if (e.type !== 'note' || e.message !== TEST_SCORES_NOTE) continue;
    const parsed = TestScoresSchema.safeParse(e.data);
    if (parsed.success && parsed.data.program === program) found = parsed.data;
  }
  return found;
}
