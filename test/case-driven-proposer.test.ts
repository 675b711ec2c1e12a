/**
 * The case-driven offline proposer: it reads why each failure lost its evidence, proposes the move the failure
 * profile calls for (so two histories that fail differently get different programs), mines bridges and fits a
 * ranking on the training split, and every move it writes applies, type-checks, compiles and runs in the sandbox.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Question, SourceRecord } from '../sandbox/contract.ts';
import { applyAndCheck, applyEdits } from '../src/design/apply-edits.ts';
import { compileDesign } from '../src/design/compile.ts';
import type { FailureCase } from '../src/diagnose/sample.ts';
import type { QAItem } from '../src/history/record.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import { createSandbox } from '../src/isolate/sandbox-runner.ts';
import { mineBridges } from '../src/optimize/proposers/bridge-mining.ts';
import { analyseCase, failureProfile } from '../src/optimize/proposers/case-analysis.ts';
import { CASE_MOVES, createCaseDrivenProposer } from '../src/optimize/proposers/case-driven-proposer.ts';
import { CONSTANT_RANGES, THREAD_SCORES } from '../src/optimize/proposers/mutation-catalog.ts';
import { declaredNames } from '../src/optimize/proposers/offline-mutation.ts';
import { buildBm25Index } from '../src/isolate/host-tools/bm25-index.ts';
import { fitRanking, rankingExamples, rankingObjective, threadScores } from '../src/optimize/proposers/rank-fitting.ts';
import type { ProposalContext, TrainingView } from '../src/optimize/proposers/types.ts';
import { createRng } from '../src/util/rng.ts';

const seed = readFileSync(join(import.meta.dirname, '..', 'seeds/base-bm25.ts'), 'utf8');

const turn = (id: string, text: string, speaker: string, thread: string, time: string): SourceRecord => ({
  id,
  kind: 'turn',
  text,
  speaker,
  thread,
  time,
});

// Invented two-person chat: Ana and Ben over three sessions.
const records: SourceRecord[] = [
  turn('s1:1', 'I started a new job at the bakery downtown.', 'Ana', 's1', '2023-05-08T10:00:00'),
  turn('s1:2', 'Congratulations! Is the work hard?', 'Ben', 's1', '2023-05-08T10:01:00'),
  turn('s1:3', 'The shifts start at five, but I love kneading dough.', 'Ana', 's1', '2023-05-08T10:02:00'),
  turn('s2:1', 'My job at the garage keeps me busy lately.', 'Ben', 's2', '2023-06-12T18:00:00'),
  turn('s2:2', 'Do you still work weekends there?', 'Ana', 's2', '2023-06-12T18:01:00'),
  turn('s2:3', 'Only Saturdays, the shifts are shorter now.', 'Ben', 's2', '2023-06-12T18:02:00'),
  turn('s3:1', 'We adopted a beagle named Pepper.', 'Ana', 's3', '2023-07-20T09:00:00'),
  turn('s3:2', 'Pepper sounds adorable, how old is she?', 'Ben', 's3', '2023-07-20T09:01:00'),
  turn('s3:3', 'Two years old, she loves the park.', 'Ana', 's3', '2023-07-20T09:02:00'),
];
const byId = new Map(records.map((r) => [r.id, r]));

const qa = (id: string, question: string, evidence: string[], split: QAItem['split'] = 'train'): QAItem => ({
  id,
  history: 'h',
  question,
  answer: 'x',
  answerType: 'text',
  evidence: evidence.map((record) => ({ record })),
  split,
});

/** A training view over the invented history with the given items and the parent's rankings (3 records fit its budget). */
function trainingView(items: QAItem[], ranked: Record<string, string[]> = {}): TrainingView {
  return { items, records: (h) => (h === 'h' ? records : []), ranked: (_h, q) => ranked[q], budgetDepth: () => 3 };
}

/** The parent ranks the evidence s1:3 18th, below records of other sessions and ids it shares no word with. */
const lowRanked = ['s3:2', 's3:3', 's1:1', 's1:2', 's2:1', 's2:3', 's2:2', ...Array.from({ length: 10 }, (_, i) => `x${i}`), 's1:3'];

/** A failure case built from record ids: the missing evidence, what was ranked instead, and the evidence's rank. */
function failure(question: string, text: string, evidence: string[], instead: string[], rank: number | null = 30): FailureCase {
  const ev = (id: string) => {
    const r = byId.get(id)!;
    return { record: id, excerpt: r.text, time: r.time, speaker: r.speaker, thread: r.thread, delivered: false, recoverable: true, rank };
  };
  return {
    question,
    history: 'h',
    category: 'retrieval',
    text,
    reference: 'x',
    answer: null,
    evidence: evidence.map(ev),
    instead: instead.map((id, i) => {
      const r = byId.get(id)!;
      return { record: id, rank: i + 1, excerpt: r.text, time: r.time, speaker: r.speaker, thread: r.thread };
    }),
    ranked: instead,
    delivered: instead,
    missing: evidence,
  };
}

/** The unit ids a design ranks for `question` over `history`, in the sandbox. */
async function rankedIn(source: string, history: SourceRecord[], question: Question): Promise<string[]> {
  const compiled = await compileDesign(source);
  if (!compiled.ok) throw new Error('no compile');
  const created = await createSandbox(compiled.program, createHostTools());
  if (!created.ok) throw new Error(created.failure.message);
  try {
    expect((await created.sandbox.store(history)).ok).toBe(true);
    const hits = await created.sandbox.retrieve(question);
    if (!hits.ok) throw new Error(hits.failure.message);
    return hits.value.map((h) => h.unit);
  } finally {
    created.sandbox.dispose();
  }
}

function context(failures: FailureCase[], training?: TrainingView, source = seed): ProposalContext {
  return {
    parent: { id: 'p0', source, score: 0.5, scores: {} },
    diagnosis: null,
    failures,
    ...(training ? { training } : {}),
    revisions: [],
    objective: 'evidence',
    rng: createRng(1),
  };
}

// History A: the questions name a speaker and what ranks instead is the other person's talk.
const speakerCases = [
  failure('a1', 'What did Ana say about the bakery shifts?', ['s1:3'], ['s2:3', 's2:1']),
  failure('a2', 'What does Ana love kneading?', ['s1:3'], ['s2:1', 's2:2']),
  failure('a3', 'Which dog did Ana adopt?', ['s3:1'], ['s3:2', 's2:1']),
];
// History B: the questions carry a date and the evidence is spread over two sessions.
const timeCases = [
  failure('b1', 'What happened on 12 June 2023 and on 20 July 2023?', ['s2:1', 's3:1'], ['s1:1', 's1:2']),
  failure('b2', 'What did they talk about in June 2023 and July 2023?', ['s2:3', 's3:3'], ['s1:3', 's1:1']),
];

describe('case analysis', () => {
  it('reads a speaker-named question whose distractors are the other speaker as a speaker case', () => {
    const why = analyseCase(speakerCases[0]!)!;
    expect(why.signals).toContain('speaker');
    expect(why.signals).toContain('near-miss');
    expect(why.signals).not.toContain('time');
    expect(why.signals).not.toContain('multi-session');
  });

  it('reads dated questions with evidence in two sessions as time and multi-session cases', () => {
    const why = analyseCase(timeCases[0]!)!;
    expect(why.signals).toEqual(expect.arrayContaining(['time', 'multi-session', 'session']));
    expect(why.signals).not.toContain('speaker');
    const profile = failureProfile(timeCases);
    expect(profile.cases).toBe(2);
    expect(profile.shares.time).toBe(1);
    expect(profile.shares.speaker).toBe(0);
  });

  it('reads a question asked days after its evidence, with older records ranked instead, as a recent case', () => {
    const asked = (c: FailureCase, date: string): FailureCase => ({ ...c, date });
    const recent = analyseCase(asked(failure('r1', 'Which dog did we adopt?', ['s3:1'], ['s1:1', 's2:1']), '2023-07-27'))!;
    expect(recent.signals).toContain('recent');
    // The evidence is older than what ranked instead, or the question has no day: not a recency case.
    const older = analyseCase(asked(failure('r2', 'Where is the bakery?', ['s1:1'], ['s3:1', 's2:1']), '2023-07-27'))!;
    expect(older.signals).not.toContain('recent');
    expect(analyseCase(failure('r3', 'Which dog did we adopt?', ['s3:1'], ['s1:1', 's2:1']))!.signals).not.toContain('recent');
  });

  it('sees a neighbour of the evidence ranked instead when positions are known', () => {
    const c = failure('n1', 'How old is Pepper?', ['s3:3'], ['s3:2'], null);
    const position = (_h: string, id: string) => {
      const i = records.findIndex((r) => r.id === id);
      return i < 0 ? undefined : { index: i, thread: records[i]!.thread! };
    };
    expect(analyseCase(c, position)!.signals).toEqual(expect.arrayContaining(['neighbour', 'deep-rank']));
    expect(analyseCase(c)!.signals).not.toContain('neighbour');
  });
});

// A long record: a user turn followed by a long assistant reply (invented), in a history of short ones.
const reply = Array.from({ length: 12 }, (_, i) => `Point ${i + 1} of the reply covers a separate matter in some detail here.`).join(' ');
const longTurn = turn(
  's4:1',
  `User: I repaired the kettle with a spare fuse today.\nAssistant: ${reply}`,
  'user',
  's4',
  '2023-08-01T09:00:00',
);
const withLong = [...records, longTurn];
// A long reply in four passages, each sentence naming its own thing (invented): the last passage is short, and so was
// its window document when siblings were its neighbours, which let it outrank the passage that holds the words.
const things = ['apple', 'bridge', 'candle', 'desert', 'engine', 'falcon', 'garden', 'harbor', 'island', 'jacket'];
const trip = [...things, 'ladder', 'meadow', 'napkin', 'orchard', 'pillow', 'quarry', 'river', 'saddle'];
const tripTurn = turn(
  's5:1',
  `User: Tell me about the trip.\nAssistant: ${trip.map((w) => `The ${w} matters here because it shapes the whole plan.`).join(' ')}`,
  'user',
  's5',
  '2023-08-02T09:00:00',
);
const positionIn = (list: SourceRecord[]) => (_h: string, id: string) => {
  const i = list.findIndex((r) => r.id === id);
  return i < 0 ? undefined : { index: i, thread: list[i]!.thread!, words: list[i]!.text.split(/\s+/).length };
};

/** Three failures whose missing evidence is the long turn, and a training view over the history that holds it. */
function longEvidence(): { cases: FailureCase[]; training: TrainingView } {
  const cases = ['kettle', 'fuse', 'repair'].map((w, i) => {
    const c = failure(`k${i}`, `What about the ${w}?`, ['s1:3'], ['s2:3', 's2:1']);
    c.evidence[0] = { ...c.evidence[0]!, record: 's4:1', excerpt: longTurn.text.slice(0, 300) };
    return c;
  });
  return { cases, training: { items: [], records: (h) => (h === 'h' ? withLong : []), ranked: () => undefined } };
}

describe('long evidence', () => {
  it('reads missing evidence that is a long record as a long-unit case, a short one not', () => {
    const long = failure('l1', 'How did I repair the kettle?', ['s1:3'], ['s2:3']);
    long.evidence[0] = { ...long.evidence[0]!, record: 's4:1', excerpt: longTurn.text.slice(0, 300) };
    expect(analyseCase(long, positionIn(withLong))!.signals).toContain('long-unit');
    expect(analyseCase(failure('l2', 'What does Ana love?', ['s1:3'], ['s2:3']), positionIn(withLong))!.signals).not.toContain('long-unit');
  });

  it('proposes passage units for long evidence, and they store the long record as verified passages, one per record ranked', async () => {
    const { cases, training } = longEvidence();
    const p = await createCaseDrivenProposer().propose(context(cases, training));
    expect(p!.operator).toBe('passage-units');
    const r = await applyAndCheck(seed, p!.edits, (s) => compileDesign(s));
    if (!r.ok) throw new Error(JSON.stringify(r).slice(0, 600));
    expect(r.source).toContain('@block units:passages');
    const compiled = await compileDesign(r.source);
    if (!compiled.ok) throw new Error('no compile');
    const created = await createSandbox(compiled.program, createHostTools());
    if (!created.ok) throw new Error(created.failure.message);
    const sb = created.sandbox;
    try {
      expect((await sb.store(withLong)).ok).toBe(true);
      const all = await sb.memoryUnits();
      if (!all.ok) throw new Error(all.failure.message);
      const units = all.value.filter((u) => u.sources.includes('s4:1'));
      // The user part alone, then the reply in pieces of at most PASSAGE_WORDS words.
      expect(units.length).toBeGreaterThan(2);
      expect(units[0]!.text).toMatch(/User: I repaired the kettle with a spare fuse today\.$/);
      for (const u of units) expect(u.text.split(/\s+/).length).toBeLessThanOrEqual(80 + 8);
      // Short records stay whole, under their own ids.
      expect(all.value.find((u) => u.id === 's1:3')!.sources).toEqual(['s1:3']);
      const hits = await sb.retrieve({ id: 'q', text: 'Point of the reply covers a separate matter' });
      if (!hits.ok) throw new Error(hits.failure.message);
      const recordOf = new Map(all.value.map((u) => [u.id, u.sources[0]]));
      const ranked = hits.value.map((h) => recordOf.get(h.unit));
      expect(ranked[0]).toBe('s4:1');
      expect(new Set(ranked).size).toBe(ranked.length);
    } finally {
      sb.dispose();
    }
  });

  it('follows passages with record fusion, which lifts a record matching the question across its passages', async () => {
    const { cases, training } = longEvidence();
    const proposer = createCaseDrivenProposer();
    const passages = applyEdits(seed, (await proposer.propose(context(cases, training)))!.edits);
    if (!passages.ok) throw new Error('passages did not apply');
    const p = await proposer.propose(context(cases, training, passages.source));
    expect(p!.operator).toBe('record-fusion');
    const fused = await applyAndCheck(passages.source, p!.edits, (s) => compileDesign(s));
    if (!fused.ok) throw new Error(JSON.stringify(fused).slice(0, 600));
    // The question's two clauses match two passages of one long turn; a short turn matches the first clause alone.
    const steps = Array.from({ length: 7 }, (_, i) => `Step ${i + 1} keeps the ladder steady and the tools close.`).join(' ');
    // Long memos keep the history's mean length realistic, so BM25 does not bury every long record for its length alone.
    const memo = (k: number) =>
      Array.from({ length: 15 }, (_, i) => `Note ${i + 1} of memo ${k} lists a plain errand for the week.`).join(' ');
    const history = [
      ...withLong,
      ...[1, 2, 3, 4].map((k) => ({ id: `m${k}`, kind: 'document' as const, text: memo(k), thread: `m${k}` })),
      turn(
        's5:1',
        `User: I replaced the kettle fuse this morning.\nAssistant: ${steps} The shed needs care first. ${steps} The roof leak needs tar.`,
        'user',
        's5',
        '2023-08-02T09:00:00',
      ),
      turn('s6:1', 'The kettle fuse blew, that kettle fuse again.', 'user', 's6', '2023-08-03T09:00:00'),
    ];
    const question = { id: 'q', text: 'After the kettle fuse, what did the shed and the roof need?' };
    const top = async (source: string) => (await rankedIn(source, history, question)).slice(0, 2).map((u) => u.split('#')[0]);
    expect(await top(passages.source)).toEqual(['s6:1', 's5:1']);
    expect(await top(fused.source)).toEqual(['s5:1', 's6:1']);
  });

  it('keeps passages and the index window together in either order, in store and in add', async () => {
    // Each move as the proposer builds it (the window is a catalog block among the case moves).
    const withMove = (name: string, source: string) => {
      const names = declaredNames(source);
      const move = CASE_MOVES.find((m) => m.name === name)!;
      const built = move.build({ has: (n) => names.has(n), hasAddStage: true, markers: (m) => source.includes(m), training: undefined });
      return applyEdits(source, built!.edits);
    };
    const passagesFirst = withMove('passage-units', seed);
    if (!passagesFirst.ok) throw new Error('passages did not apply');
    const windowFirst = withMove('index-window', seed);
    if (!windowFirst.ok) throw new Error('window did not apply');
    for (const both of [withMove('index-window', passagesFirst.source), withMove('passage-units', windowFirst.source)]) {
      if (!both.ok) throw new Error('the second move did not apply');
      const compiled = await applyAndCheck(both.source, [], (s) => compileDesign(s));
      if (!compiled.ok) throw new Error(JSON.stringify(compiled).slice(0, 600));
      const run = async (stages: SourceRecord[][]) => {
        const created = await createSandbox(compiled.program, createHostTools());
        if (!created.ok) throw new Error(created.failure.message);
        try {
          expect((await created.sandbox.store(stages[0]!)).ok).toBe(true);
          for (const more of stages.slice(1)) expect((await created.sandbox.add(more)).ok).toBe(true);
          const units = await created.sandbox.memoryUnits();
          // Words only the turn before it says: the reply "Congratulations! Is the work hard?" is found through its
          // neighbour (the window), and the long turn is stored as passages.
          const hits = await created.sandbox.retrieve({ id: 'q', text: 'bakery downtown' });
          // Words only the reply's second passage says: the passage delivered for them is that one, not a sibling
          // that was indexed with its words.
          const own = await created.sandbox.retrieve({ id: 'k', text: 'jacket meadow' });
          if (!units.ok || !hits.ok || !own.ok) throw new Error('no units or hits');
          return { ids: units.value.map((u) => u.id), found: hits.value.map((h) => h.unit), own: own.value.map((h) => h.unit) };
        } finally {
          created.sandbox.dispose();
        }
      };
      const all = [...withLong, tripTurn];
      const whole = await run([all]);
      expect(whole.ids.some((id) => id.startsWith('s4:1#p'))).toBe(true);
      expect(whole.ids.filter((id) => id.startsWith('s5:1'))).toEqual(['s5:1', 's5:1#p1', 's5:1#p2', 's5:1#p3']);
      expect(whole.found).toContain('s1:2');
      expect(whole.own[0]).toBe('s5:1#p2');
      // Store then add builds what store over everything builds.
      const grown = await run([all.slice(0, 5), all.slice(5)]);
      expect(grown).toEqual(whole);
    }
  });

  it('leaves a design alone whose add stage would build other units than its store', () => {
    const move = CASE_MOVES.find((m) => m.name === 'passage-units')!;
    expect(move.build({ has: (n) => n !== 'addRecords', hasAddStage: true, markers: () => false, training: undefined })).toBeNull();
    expect(move.build({ has: () => true, hasAddStage: true, markers: () => false, training: undefined })).not.toBeNull();
  });
});

describe('the case-driven proposer', () => {
  it('gives two histories with different failure profiles different programs', async () => {
    const proposer = createCaseDrivenProposer();
    const a = await proposer.propose(context(speakerCases));
    const b = await proposer.propose(context(timeCases));
    expect(a!.operator).toBe('speaker-boost');
    expect(b!.operator).toBe('date-boost');
    const sa = applyEdits(seed, a!.edits);
    const sb = applyEdits(seed, b!.edits);
    expect(sa.ok && sb.ok).toBe(true);
    if (sa.ok && sb.ok) expect(sa.source).not.toBe(sb.source);
    expect(a!.rationale).toMatch(/speaker \d+%/);
  });

  it('proposes the recency boost for recent cases, and it ranks the unit dated nearer before the question first', async () => {
    const cases = ['Which dog did we adopt?', 'How old is the dog?', 'Where does the dog play?'].map((q, i) => ({
      ...failure(`r${i}`, q, ['s3:1'], ['s1:1', 's2:1']),
      date: '2023-07-27',
    }));
    const p = await createCaseDrivenProposer().propose(context(cases));
    expect(p!.operator).toBe('recency-boost');
    const boosted = await applyAndCheck(seed, p!.edits, (src) => compileDesign(src));
    if (!boosted.ok) throw new Error(JSON.stringify(boosted).slice(0, 600));
    const history = [
      turn('old:1', 'We walked the dog along the river.', 'user', 'old', '2023-01-05T09:00:00'),
      turn('new:1', 'We walked the dog along the canal.', 'user', 'new', '2023-07-20T09:00:00'),
    ];
    const top = async (source: string, date?: string) =>
      (await rankedIn(source, history, { id: 'q', text: 'Where did we walk the dog?', ...(date ? { date } : {}) }))[0];
    // Equal BM25 scores: the seed keeps the history's order; the recency boost prefers July's walk when asked in July.
    expect(await top(seed, '2023-07-27')).toBe('old:1');
    expect(await top(boosted.source, '2023-07-27')).toBe('new:1');
    expect(await top(boosted.source)).toBe('old:1');
  });

  it('moves on to the next move the profile calls for once one was tried on the parent', async () => {
    const proposer = createCaseDrivenProposer();
    const ctx = context(timeCases);
    ctx.revisions = [{ id: 'c1', parent: 'p0', operator: 'date-boost', rationale: '', edits: [], accepted: false, delta: -0.1 }];
    const next = await proposer.propose(ctx);
    expect(next!.operator).toBe('session-diversity');
  });

  it('falls back to the catalog when the cases call for nothing', async () => {
    const p = await createCaseDrivenProposer().propose(context([]));
    expect(p).not.toBeNull();
    expect(CASE_MOVES.slice(0, 5).map((m) => m.name)).not.toContain(p!.operator);
  });
});

// Training questions say "job"; their evidence says "work" and "shifts". Other questions ask about Pepper.
const jobItems = [
  qa('t1', 'What job does Ben do on weekends?', ['s2:2']),
  qa('t2', 'When do the job hours begin for Ana?', ['s1:3']),
  qa('t3', 'How has the job changed for Ben?', ['s2:3']),
];
const otherItems = Array.from({ length: 30 }, (_, i) => qa(`o${i}`, `Which puppy${i} toy?`, [i % 2 ? 's3:2' : 's3:3']));

describe('mined and fitted moves', () => {
  const items = [...jobItems, ...otherItems];

  it('mines a bridge from a question term to the evidence words that answer it', () => {
    const bridges = mineBridges(trainingView(items));
    expect(bridges.job).toEqual(expect.arrayContaining(['shifts']));
    // Seen once, it is no bridge; asked in every question, "job" is a template word.
    expect(mineBridges(trainingView([jobItems[0]!, ...otherItems]))).toEqual({});
    expect(mineBridges(trainingView(jobItems)).job).toBeUndefined();
  });

  it('mines no bridge from questions that all cite one conversation: that is its vocabulary, not a phrasing', () => {
    const oneRecord = [
      qa('u1', 'What job does Ana do at dawn?', ['s1:3']),
      qa('u2', 'When does the job start for Ana?', ['s1:3']),
      qa('u3', 'Which job makes Ana knead?', ['s1:3']),
    ];
    expect(mineBridges(trainingView([...oneRecord, ...otherItems])).job).toBeUndefined();
    // The same questions over two conversations that both say "shifts" do bridge.
    const twoRecords = [...oneRecord.slice(0, 2), qa('u3', 'Which job makes Ben busy?', ['s2:3'])];
    expect(mineBridges(trainingView([...twoRecords, ...otherItems])).job).toEqual(expect.arrayContaining(['shifts']));
  });

  it('fits ranking weights that lift evidence the parent ranked low, and keeps the order when nothing helps', () => {
    // The evidence is the only candidate that covers the question's terms.
    const ranked = { r1: lowRanked };
    const view = trainingView([qa('r1', 'Ana bakery shifts kneading dough', ['s1:3'])], ranked);
    const examples = rankingExamples(view);
    expect(examples).toHaveLength(1);
    const fit = fitRanking(examples);
    expect(fit.after).toBeGreaterThan(fit.before);
    expect(fit.after).toBe(1);
    expect(fit.weights.slice(1).some((w) => w > 0)).toBe(true);
    expect(rankingObjective(examples, fit.weights)).toBe(fit.after);
    // Evidence already first: the parent's order stays.
    const top = trainingView([qa('r2', 'Ana bakery shifts kneading dough', ['s3:2'])], { r2: ranked.r1 });
    expect(fitRanking(rankingExamples(top)).weights).toEqual([1, 0, 0, 0, 0, 0]);
  });

  it("reads a thread's score against the best thread of its kind, so a long day of chat does not bury a short e-mail", () => {
    // A chat day that says everything many times over, and two one-line e-mails.
    const chat = Array.from(
      { length: 30 },
      (_, i) => `turn ${i}: the garden shed invoice, the shed roof, the garden fence and the invoice again`,
    );
    const threads = [
      { id: 'day1', text: chat.join(' ') },
      { id: 'mail1', text: 'Invoice for the garden shed attached.' },
      { id: 'mail2', text: 'Lunch on Friday?' },
    ];
    const index = buildBm25Index(threads, { stem: true });
    const oneScale = threadScores(index, 'garden shed invoice', { day1: '', mail1: '', mail2: '' }, 50);
    expect(oneScale.get('day1')).toBe(1);
    expect(oneScale.get('mail1')!).toBeLessThan(1);
    const byKind = threadScores(index, 'garden shed invoice', { day1: 'turn', mail1: 'email', mail2: 'email' }, 50);
    expect(byKind.get('day1')).toBe(1);
    expect(byKind.get('mail1')).toBe(1);
    expect(byKind.has('mail2')).toBe(false);
    // At most `depth` threads of each kind are scored.
    expect(threadScores(index, 'garden shed invoice friday', { day1: 'turn', mail1: 'email', mail2: 'email' }, 1).size).toBe(2);
    // The configurable seed's session fusion reads the same helper, word for word (a design cannot import it).
    expect(readFileSync(join(import.meta.dirname, '..', 'seeds/configurable.ts'), 'utf8')).toContain(THREAD_SCORES);
  });

  it('proposes the fitted ranking with its weights written into the design', async () => {
    const ranked = { r1: lowRanked };
    const view = trainingView([qa('r1', 'Ana bakery shifts kneading dough', ['s1:3'])], ranked);
    const nearMiss = [failure('c1', 'Ana bakery shifts kneading dough', ['s1:3'], ['s3:2', 's3:3'], 18)];
    const p = await createCaseDrivenProposer({ moves: CASE_MOVES.filter((m) => m.name === 'learned-rank') }).propose(
      context(nearMiss, view),
    );
    expect(p!.operator).toBe('learned-rank');
    const r = applyEdits(seed, p!.edits);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.source).toMatch(/const LTR_WEIGHTS = \[1, [\d.]+, [\d.]+/);
    expect(p!.rationale).toMatch(/fitted on 1 training questions/);
  });

  it('shares one threadScores helper between session fusion and the fitted ranking, whichever comes first', async () => {
    const training = trainingView([qa('r1', 'Ana bakery shifts kneading dough', ['s1:3'])], { r1: lowRanked });
    const fusion = CASE_MOVES.find((m) => m.name === 'session-fusion')!;
    const ranking = CASE_MOVES.find((m) => m.name === 'learned-rank')!;
    for (const order of [
      [fusion, ranking],
      [ranking, fusion],
    ]) {
      let source = seed;
      for (const move of order) {
        const names = declaredNames(source);
        const built = move.build({ has: (n) => names.has(n), markers: (m) => source.includes(m), training });
        const r = await applyAndCheck(source, built!.edits, (s) => compileDesign(s));
        if (!r.ok) throw new Error(`${move.name}: ${JSON.stringify(r.stage === 'apply' ? r.errors : r.diagnostics).slice(0, 600)}`);
        source = r.source;
      }
      expect(source.match(/^function threadScores\(/gm)).toHaveLength(1);
    }
  });
});

describe('constants the case moves introduce', () => {
  it('each has a tweak range, so a tweak stays within sense (no negative weight)', () => {
    const introduced = new Set<string>();
    for (const move of CASE_MOVES) {
      const built = move.build({ has: () => false, markers: () => false, training: trainingView([...jobItems, ...otherItems]) });
      for (const e of built?.edits ?? [])
        if (e.op === 'add-helper') for (const m of e.code.matchAll(/^const ([A-Z][A-Z0-9_]*) = -?\d/gm)) introduced.add(m[1]!);
    }
    expect([...introduced].sort()).toEqual(
      expect.arrayContaining(['BRIDGE_TERMS', 'DATE_WEIGHT', 'DIVERSITY', 'PASSAGE_WORDS', 'SPEAKER_WEIGHT']),
    );
    for (const name of introduced) expect(CONSTANT_RANGES[name], name).toBeDefined();
  });
});

describe('every case move on the seed', () => {
  it('applies, type-checks, compiles and runs in the sandbox, all moves composed', async () => {
    const training = trainingView([...jobItems, ...otherItems], {
      t1: ['s2:1', 's1:1', 's2:2'],
      t2: ['s1:1', 's2:1', 's1:3'],
      t3: ['s2:1', 's1:1', 's2:3'],
    });
    let source = seed;
    for (const move of CASE_MOVES) {
      const names = declaredNames(source);
      const built = move.build({ has: (n) => names.has(n), markers: (m) => source.includes(m), training });
      if (!built) continue;
      const r = await applyAndCheck(source, built.edits, (s) => compileDesign(s));
      if (!r.ok) throw new Error(`${move.name}: ${JSON.stringify(r.stage === 'apply' ? r.errors : r.diagnostics).slice(0, 600)}`);
      source = r.source;
    }
    for (const marker of [
      '@block bridge:table',
      '@block speaker:named',
      '@block date:resolved',
      '@block diversity:sessions',
      '@block units:passages',
    ])
      expect(source).toContain(marker);
    const compiled = await compileDesign(source);
    if (!compiled.ok) throw new Error('no compile');
    const created = await createSandbox(compiled.program, createHostTools());
    if (!created.ok) throw new Error(created.failure.message);
    const sb = created.sandbox;
    try {
      expect((await sb.store(records)).ok).toBe(true);
      const hits = await sb.retrieve({ id: 'q', text: 'What did Ana say on 20 July 2023 about the dog?' });
      if (!hits.ok) throw new Error(hits.failure.message);
      expect(hits.value[0]!.unit).toBe('s3:1');
    } finally {
      sb.dispose();
    }
  });
});
