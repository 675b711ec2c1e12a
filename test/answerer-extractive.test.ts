import { describe, expect, it } from 'vitest';
import { NOT_MENTIONED, extractiveAnswer } from '../src/scoring/extractive-reader.ts';

const chat = [
  '[8 May 2023 13:56] Caroline: I went to a LGBTQ support group yesterday and it was so powerful.',
  "[8 May 2023 13:57] Melanie: That's great! I'm swamped with the kids & work. We went camping at the beach last week.",
  '[25 May 2023 13:14] Melanie: I ran a charity race for mental health last Saturday. It raised awareness for mental health.',
  '[25 May 2023 13:15] Caroline: I have been researching adoption agencies. I moved from Sweden 4 years ago.',
  '[9 June 2023 10:00] Caroline: My guinea pig Oscar is 3 years old. I adopted him in Boston.',
  '[9 June 2023 10:01] Melanie: I read "Charlotte\'s Web" to the kids twice this week.',
].join('\n');

describe('extractive reader', () => {
  it('answers "when" from the line date and resolves relative phrases', () => {
    expect(extractiveAnswer('When did Caroline go to the LGBTQ support group?', chat).answer).toBe('7 May 2023');
    expect(extractiveAnswer('When did Melanie run a charity race?', chat).answer).toBe('the saturday before 25 May 2023');
    expect(extractiveAnswer('When did Melanie go camping?', chat).answer).toBe('the week before 8 May 2023');
    expect(extractiveAnswer('In which year did Caroline move from Sweden?', chat).answer).toBe('2019');
  });
  it('answers "how many/how old" with a number (and unit when asked how long/old)', () => {
    expect(extractiveAnswer("How old is Caroline's guinea pig Oscar?", chat).answer).toBe('3 years');
    expect(extractiveAnswer('How many times did Melanie read to the kids this week?', chat).answer).toBe('twice');
  });
  it('answers "who" and "where" with capitalised names and places', () => {
    expect(extractiveAnswer("Who is Caroline's guinea pig?", chat).answer).toBe('Oscar');
    // A capitalised name after "in" beats one without (Oscar) even in a less central sentence.
    const pet = '[9 June 2023 10:00] Caroline: My guinea pig Oscar is 3 years old. I adopted him in Boston.';
    expect(extractiveAnswer('Where did Caroline adopt her guinea pig?', pet).answer).toBe('Boston');
    expect(extractiveAnswer('Which country did Caroline move from?', chat).answer).toBe('Sweden');
  });
  it('cuts a short phrase, not the whole sentence, for what-questions', () => {
    const r = extractiveAnswer('What has Caroline been researching?', chat);
    expect(r.answer).toBe('adoption agencies');
    expect(r.span).toBeDefined();
    expect(chat.slice(r.span![0], r.span![1])).toBe('adoption agencies');
    expect(extractiveAnswer('What did the charity race raise awareness for?', chat).answer).toContain('mental health');
    expect(extractiveAnswer('What book did Melanie read to the kids?', chat).answer).toBe("Charlotte's Web");
  });
  it('says yes or no by whether the proposition is in the context', () => {
    expect(extractiveAnswer('Did Melanie run a charity race?', chat).answer).toBe('Yes');
    expect(extractiveAnswer('Did Melanie win a chess tournament?', chat).answer).toBe('No');
    expect(extractiveAnswer('Would Caroline likely adopt a child?', chat).answer).toMatch(/^Likely (yes|no)$/);
  });
  it('says "Not mentioned" when the context does not cover the question', () => {
    expect(extractiveAnswer('What instrument does Melanie play in the orchestra?', chat)).toEqual({ answer: NOT_MENTIONED, confidence: 0 });
    expect(extractiveAnswer('What is the weather?', '').answer).toBe(NOT_MENTIONED);
  });
  it("declines a question that pins a speaker's event on the other speaker", () => {
    // Melanie ran the race; the question says Caroline did (LoCoMo's adversarial pattern).
    const ctx = '[25 May 2023 13:14] Melanie: I ran a charity race for mental health last Saturday.';
    expect(extractiveAnswer('What did Caroline run a charity race for?', ctx).answer).toBe(NOT_MENTIONED);
    expect(extractiveAnswer('What did Melanie run a charity race for?', ctx).answer).toBe('mental health');
  });
  it('takes dates from header lines when lines carry none', () => {
    const ctx = 'Session 2 — 3 March 2024\nJon: I opened my dance studio yesterday!';
    expect(extractiveAnswer('When did Jon open his dance studio?', ctx).answer).toBe('2 March 2024');
  });
  it('gathers several parts for list questions', () => {
    const ctx = [
      '[1 May 2023] Melanie: My favourite hobby is pottery.',
      '[2 June 2023] Melanie: Another hobby of mine is painting sunsets.',
    ].join('\n');
    const r = extractiveAnswer('What hobbies does Melanie have?', ctx, { answerType: 'list' });
    expect(r.answer.split(', ')).toEqual(['pottery', 'painting sunsets']);
  });
});
