/**
 * Who asks. In a history of a user talking to an assistant the questions are the user's own ("When did I paint
 * the lake?", "After joining the program, what did I paint?"); in a chat between named people they are asked
 * about them ("When did Ana paint the lake?"). The families write the third person and turn it into the user's
 * first person here; the blind reader turns it back before parsing.
 */

const USER = 'the user';

/** Third-person question forms about the user and their first-person twins, most specific first. */
const PAIRS: ReadonlyArray<[RegExp, string, RegExp, string]> = [
  [/^What is the user's (.+)\?$/, 'What is my $1?', /^What is my (.+)\?$/, "What is the user's $1?"],
  [/^What was the user's (.+)\?$/, 'What was my $1?', /^What was my (.+)\?$/, "What was the user's $1?"],
  [/^What is the user (\S+ing)(.*)\?$/, 'What am I $1$2?', /^What am I (\S+ing)(.*)\?$/, 'What is the user $1$2?'],
  [/^(What|Who) does the user (.+)\?$/, '$1 do I $2?', /^(What|Who) do I (.+)\?$/, '$1 does the user $2?'],
  [
    /^What did the user (.+?) after (.+)\?$/,
    'After $2, what did I $1?',
    /^After (.+), what did I (.+)\?$/,
    'What did the user $2 after $1?',
  ],
  [/^Who did the user (.+?) after (.+)\?$/, 'After $2, who did I $1?', /^After (.+), who did I (.+)\?$/, 'Who did the user $2 after $1?'],
  [/^(What|When|Who) did the user (.+)\?$/, '$1 did I $2?', /^(What|When|Who) did I (.+)\?$/, '$1 did the user $2?'],
  [
    /^(What|Where|What activities) has the user (.+)\?$/,
    '$1 have I $2?',
    /^(What|Where|What activities) have I (.+)\?$/,
    '$1 has the user $2?',
  ],
  [/^Did the user (.+)\?$/, 'Did I $1?', /^Did I (.+)\?$/, 'Did the user $1?'],
  [
    /^Can you remind me whether the user (.+)\?$/,
    'Can you remind me whether I $1?',
    /^Can you remind me whether I (.+)\?$/,
    'Can you remind me whether the user $1?',
  ],
  [
    /^Can you remind me what the user and (.+) talked about when they (.+)\?$/,
    'Can you remind me what $1 and I talked about when we $2?',
    /^Can you remind me what (.+) and I talked about when we (.+)\?$/,
    'Can you remind me what the user and $1 talked about when they $2?',
  ],
  [/^Which (\S+) did the user (.+)\?$/, 'Which $1 did I $2?', /^Which (\S+) did I (.+)\?$/, 'Which $1 did the user $2?'],
  [/^Which (\S+) does the user (.+)\?$/, 'Which $1 do I $2?', /^Which (\S+) do I (.+)\?$/, 'Which $1 does the user $2?'],
  [
    /^In the document the user shared while (.+)$/,
    'In the document I shared while $1',
    /^In the document I shared while (.+)$/,
    'In the document the user shared while $1',
  ],
];

/**
 * Where the context-linked and document questions name a speaker of the conversation as the subject of what was said
 * ("After the user talked about …, which name did the assistant mention?", "In the document the assistant shared
 * while …"): there "the user" is "I" and "the assistant" is "you", as a user asks RHELM's own questions ("When you
 * prompted me to revisit …").
 */
const ROLE_SLOT = /\b(did|After|before|when|document) the (user|assistant) (mention|talk|talked|asked|shared)\b/g;
const OWN_SLOT = /\b(did|After|before|when|document) (I|you) (mention|talk|talked|asked|shared)\b/g;
/** Words that already speak of the user or the assistant in the first or second person. */
const SPOKEN = /\b(?:I|me|my|you|your)\b/i;

/** The user's own wording of a third-person question about "the user" (other questions unchanged). */
export function inUserVoice(question: string): string {
  if (!question.includes(USER) && !question.includes('the assistant')) return question;
  for (const [third, first] of PAIRS) if (third.test(question)) return question.replace(third, first);
  // Only whole: a question keeping a "the user" elsewhere, or already saying "I" or "you", could not be read back.
  if (SPOKEN.test(question)) return question;
  const own = question.replace(
    ROLE_SLOT,
    (_, before: string, who: string, verb: string) => `${before} ${who === 'user' ? 'I' : 'you'} ${verb}`,
  );
  return /\bthe (?:user|assistant)\b/i.test(own) ? question : own;
}

/** The third-person form of a question in the user's voice (the inverse of {@link inUserVoice}). */
export function aboutUser(question: string): string {
  for (const [, , first, third] of PAIRS) if (first.test(question)) return question.replace(first, third);
  return question.replace(
    OWN_SLOT,
    (_, before: string, who: string, verb: string) => `${before} the ${who === 'I' ? 'user' : 'assistant'} ${verb}`,
  );
}
