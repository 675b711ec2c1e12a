import { describe, expect, it } from 'vitest';
import { calibrationTable } from '../src/cli/commands/generate-report.ts';
import { calibrate, setStats } from '../src/supervision/calibration.ts';
import { turn, userTurn } from './helpers/turn.ts';

const ua = userTurn(
  'A:1',
  '2024-05-04T09:00:00',
  'I repaired the rear tire with the iFixit kit.',
  'A patch kit and tyre levers help next time.',
);
const chat = turn('B:1', 'Caroline', '2023-05-08T13:56:00', 'B', 'I went to the parade with Melanie.');
const records = new Map([ua, chat].map((r) => [r.id, r]));
const text = (id: string) => records.get(id)?.text;
const item = (answer: string, record = 'A:1', history = 'h') => ({
  id: `${record}:${answer}`,
  history,
  question: 'What did I use?',
  answer,
  answerType: 'text' as const,
  evidence: [{ record }],
});

describe('how often a set asks what the assistant said', () => {
  it('counts the items whose answer words are only in the replies of their user–assistant turns', () => {
    const s = setStats([item('iFixit kit'), item('tyre levers'), item('basil'), item('parade', 'B:1')], text);
    // "basil" is in neither half and "parade" is in a chat between people: neither is counted.
    expect(s.replyAnswerItems).toBe(2);
    expect(s.replyAnswerShare).toBe(0.5);
    // A word in the user's half wins over the same word in the reply ("kit" is in both).
    expect(setStats([item('kit')], text).replyAnswerShare).toBe(0);
    expect(setStats([item('parade', 'B:1')], text).replyAnswerShare).toBeNull();
  });

  it('is pooled over histories by the items it counted, generated and official apart', () => {
    const input = (id: string, generated: ReturnType<typeof item>[]) => ({
      id,
      recordText: text,
      generated,
      official: [item('iFixit kit', 'A:1', id)],
    });
    const report = calibrate(
      [
        input('a', [item('tyre levers', 'A:1', 'a')]),
        input('b', [item('tyre levers', 'A:1', 'b'), item('kit', 'A:1', 'b'), item('basil', 'A:1', 'b')]),
      ],
      () => 'heldout',
    );
    expect(report.heldout!.generated.replyAnswerItems).toBe(3);
    expect(report.heldout!.generated.replyAnswerShare).toBeCloseTo(2 / 3);
    expect(report.heldout!.official!.replyAnswerShare).toBe(0);
    // The table shows it beside the evidence kinds (none here: the inputs give no record kinds).
    const table = calibrationTable(report);
    expect(table).toMatch(/│ reply 66\.7%\s*│/);
    expect(table).toMatch(/│ reply 0\.0%\s*│/);
  });
});
