import { describe, expect, it } from 'vitest';
import { NOT_MENTIONED, extractiveAnswer } from '../src/scoring/extractive-reader.ts';

// An invented chat (no benchmark text): the reader is specified on it.
const chat = [
  '[8 May 2023 13:56] Ana: I went to a choir rehearsal yesterday and it was so moving.',
  "[8 May 2023 13:57] Ben: That's great! I'm swamped with the kids & work. We went hiking in the hills last week.",
  '[25 May 2023 13:14] Ben: I swam a charity mile for clean rivers last Saturday. It raised money for clean rivers.',
  '[25 May 2023 13:15] Ana: I have been researching cooking schools. I moved from Norway 4 years ago.',
  '[9 June 2023 10:00] Ana: My tortoise Pip is 3 years old. I adopted him in Porto.',
  '[9 June 2023 10:01] Ben: I read "The Hobbit" to the kids twice this week.',
].join('\n');

describe('extractive reader', () => {
  it('answers "when" from the line date and resolves relative phrases', () => {
    expect(extractiveAnswer('When did Ana go to the choir rehearsal?', chat).answer).toBe('7 May 2023');
    expect(extractiveAnswer('When did Ben swim a charity mile?', chat).answer).toBe('the saturday before 25 May 2023');
    expect(extractiveAnswer('When did Ben go hiking?', chat).answer).toBe('the week before 8 May 2023');
    expect(extractiveAnswer('In which year did Ana move from Norway?', chat).answer).toBe('2019');
  });
  it('answers "how many/how old" with a number (and unit when asked how long/old)', () => {
    expect(extractiveAnswer("How old is Ana's tortoise Pip?", chat).answer).toBe('3 years');
    expect(extractiveAnswer('How many times did Ben read to the kids this week?', chat).answer).toBe('twice');
  });
  it('answers "who" and "where" with capitalised names and places', () => {
    expect(extractiveAnswer("Who is Ana's tortoise?", chat).answer).toBe('Pip');
    // A capitalised name after "in" beats one without (Pip) even in a less central sentence.
    const pet = '[9 June 2023 10:00] Ana: My tortoise Pip is 3 years old. I adopted him in Porto.';
    expect(extractiveAnswer('Where did Ana adopt her tortoise?', pet).answer).toBe('Porto');
    expect(extractiveAnswer('Which country did Ana move from?', chat).answer).toBe('Norway');
  });
  it('cuts a short phrase, not the whole sentence, for what-questions', () => {
    const r = extractiveAnswer('What has Ana been researching?', chat);
    expect(r.answer).toBe('cooking schools');
    expect(r.span).toBeDefined();
    expect(chat.slice(r.span![0], r.span![1])).toBe('cooking schools');
    expect(extractiveAnswer('What did the charity mile raise money for?', chat).answer).toContain('clean rivers');
    expect(extractiveAnswer('What book did Ben read to the kids?', chat).answer).toBe('The Hobbit');
  });
  it('says yes or no by whether the proposition is in the context', () => {
    expect(extractiveAnswer('Did Ben swim a charity mile?', chat).answer).toBe('Yes');
    expect(extractiveAnswer('Did Ben win a chess tournament?', chat).answer).toBe('No');
    expect(extractiveAnswer('Would Ana likely enrol in a cooking school?', chat).answer).toMatch(/^Likely (yes|no)$/);
  });
  it('says "Not mentioned" when the context does not cover the question', () => {
    expect(extractiveAnswer('What instrument does Ben play in the orchestra?', chat)).toEqual({ answer: NOT_MENTIONED, confidence: 0 });
    expect(extractiveAnswer('What is the weather?', '').answer).toBe(NOT_MENTIONED);
  });
  it("counts the line's speaker as a term of its sentences", () => {
    const ctx = [
      '[25 May 2023 13:14] Ana: I swam a charity mile for the animal shelter.',
      '[25 May 2023 13:15] Ben: I swam a charity mile for clean rivers.',
    ].join('\n');
    expect(extractiveAnswer('What did Ben swim a charity mile for?', ctx).answer).toBe('clean rivers');
    expect(extractiveAnswer('What did Ana swim a charity mile for?', ctx).answer).toBe('animal shelter');
  });
  it('takes dates from header lines when lines carry none', () => {
    const ctx = 'Session 2 — 3 March 2024\nJon: I opened my dance studio yesterday!';
    expect(extractiveAnswer('When did Jon open his dance studio?', ctx).answer).toBe('2 March 2024');
  });
  it('reads a line the same wherever it sits: its date from this context, its answer at its own place', () => {
    // Lines are parsed once and reused across contexts; the header date and offsets must still be this context's.
    const line = 'Ana: I went to a choir rehearsal at the Vennskap Hall yesterday.';
    const first = `## 8 May 2023\n${line}`;
    const later = `## 3 July 2024\nBen: We talked about the weather and nothing else at all.\n${line}`;
    for (const [ctx, when] of [
      [first, '7 May 2023'],
      [later, '2 July 2024'],
      [first, '7 May 2023'],
    ] as const) {
      expect(extractiveAnswer('When did Ana go to the choir rehearsal?', ctx).answer).toBe(when);
      expect(extractiveAnswer('Where did Ana go to the choir rehearsal?', ctx).answer).toBe('Vennskap Hall');
    }
  });
  it('gathers several parts for list questions', () => {
    const ctx = [
      '[1 May 2023] Ben: My favourite hobby is gardening.',
      '[2 June 2023] Ben: Another hobby of mine is painting sunsets.',
    ].join('\n');
    const r = extractiveAnswer('What hobbies does Ben have?', ctx, { answerType: 'list' });
    expect(r.answer.split(', ')).toEqual(['gardening', 'painting sunsets']);
  });
});
