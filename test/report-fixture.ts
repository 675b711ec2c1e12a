/**
 * A small run archive written directly (no evaluation), with known numbers for the report tests: a seed, an accepted
 * revision whose rationale tries to break out of the page, a rejected one that spent LLM tokens, an invalid one, a
 * second accepted revision, diagnoses, validation traces, and official-test traces and recorded official-test
 * aggregates for the seed and the best program.
 */
import { join } from 'node:path';
import { createArchive, type Archive, type ProgramRecord, type Scores } from '../src/archive/index.ts';
import type { Diagnosis } from '../src/diagnose/diagnosis.ts';
import { QuestionTraceSchema } from '../src/scoring/trace-schema.ts';
import type { QuestionTrace } from '../src/scoring/trace.ts';
import { testScoresEvent } from '../src/export/test-scores.ts';
import { OFFICIAL_TRACES_DIR } from '../src/report/index.ts';
import { writeJsonl } from '../src/util/jsonl.ts';
import { tempDir } from './helpers/temp-dir.ts';

/** Text that would run script or close the JSON block if the report did not escape it. */
export const HOSTILE = `</script><img src=x onerror="window.__xss=1"><!-- & 'quoted' "text"`;

const BASE = `import type { Hit, Memory, MemoryDesign, Question, SourceRecord, Tools } from '../sandbox/contract.ts';

/** Units retrieved per question. */
const TOP_K = 10;

const design: MemoryDesign = {
  store(records: SourceRecord[], tools: Tools): Memory {
    return { units: records.map((r) => ({ id: r.id, text: r.text, sources: [r.id] })) };
  },
  retrieve(q: Question, memory: Memory, tools: Tools): Hit[] {
    return tools.bm25.search(q.text, TOP_K);
  },
  context(q, hits, memory, tools, budget) {
    return { text: '', units: [] };
  },
};
export default design;
`;

export const SOURCES = {
  seed: BASE,
  wider: BASE.replace('const TOP_K = 10;', 'const TOP_K = 20;'),
  narrow: BASE.replace('const TOP_K = 10;', 'const TOP_K = 5;'),
  fused: BASE.replace('const TOP_K = 10;', 'const TOP_K = 20;\n/** Session weight. */\nconst SESSION_WEIGHT = 0.6;'),
  greedy: BASE.replace('const TOP_K = 10;', 'const TOP_K = 40;'),
};

/** A trace with the given category and context recall (R@10 = recall, correct when recall is 1). */
export function trace(question: string, category: string, recall: number, tokens?: { prompt: number; completion: number }): QuestionTrace {
  return {
    question,
    history: 'h1',
    category,
    ranked: [{ unit: 'u1', score: 1, sources: ['r1'] }],
    rankedRecords: ['r1'],
    delivered: ['u1'],
    deliveredRecords: ['r1'],
    contextTokens: 12,
    contextText: 'context',
    answer: recall === 1 ? 'yes' : 'no',
    reference: 'yes',
    scores: {
      correct: recall === 1,
      correctBy: 'exact',
      f1: recall === 1 ? 1 : 0,
      recallAt: { '1': recall, '5': recall, '10': recall },
      contextRecall: recall,
    },
    timeMs: { store: 1, retrieve: 1, context: 1, answer: 1 },
    toolCalls: {},
    ...(tokens ? { llmTokens: tokens } : {}),
  };
}

/** Four validation traces: two single-hop, two temporal, with the given context recalls. */
function traces(r: [number, number, number, number], tokens?: { prompt: number; completion: number }): QuestionTrace[] {
  return [
    trace('q1', 'single-hop', r[0], tokens),
    trace('q2', 'single-hop', r[1], tokens),
    trace('q3', 'temporal', r[2], tokens),
    trace('q4', 'temporal', r[3], tokens),
  ];
}

function scores(ts: QuestionTrace[]): Scores {
  const perQuestion = Object.fromEntries(ts.map((t) => [`h1/${t.question}`, t.scores!.contextRecall]));
  const vals = Object.values(perQuestion);
  const value = vals.reduce((a, b) => a + b, 0) / vals.length;
  return { objective: 'evidence', value, n: vals.length, perQuestion, metrics: { contextRecall: value, 'recall@10': value } };
}

function diagnosis(retrieval: number, storage: number, pass: number): Diagnosis {
  return {
    objective: 'evidence',
    total: retrieval + storage + pass,
    failures: retrieval + storage,
    counts: { pass, answering: 0, retrieval, storage, error: 0, unattributed: 0 },
    dominant: retrieval >= storage ? 'retrieval' : 'storage',
    questions: [],
    undiagnosed: [],
  };
}

export interface ReportFixture {
  /** `run` inside a fresh temp directory, which is removed when the calling test file finishes. */
  dir: string;
  archive: Archive;
  ids: { seed: string; wider: string; narrow: string; invalid: string; fused: string; greedy: string };
}

/**
 * Writes the fixture run. Fitness: seed 0.5 → wider 0.75 (accepted, it 1) → narrow 0.25 (rejected, it 2, 600 proposer
 * + 48 answerer tokens) → invalid (it 2, attempt 1) → fused 0.875 (accepted, it 3) → greedy 0.625 (rejected, it 4).
 */
export function writeReportFixture(prefix = 'report'): ReportFixture {
  const dir = join(tempDir(`memsteer-${prefix}-`), 'run');
  let t = Date.parse('2026-01-01T00:00:00Z');
  const archive = createArchive(
    dir,
    {
      config: { objective: 'evidence' },
      seeds: [{ path: 'seeds/base-bm25.ts', sha256: '0'.repeat(64) }],
      models: { proposer: 'gpt-test', answerer: 'extractive-reader', judge: 'f1-threshold' },
      promptVersions: {},
      rngSeed: 7,
      versions: { memsteer: '0.1.0', node: 'v20.0.0', packages: {} },
      gitCommit: null,
    },
    { now: () => new Date((t += 1000)) },
  );
  const evaluate = (
    p: ProgramRecord,
    ts: QuestionTrace[],
    accepted: boolean,
    against: string | null,
    cost?: { promptTokens: number; completionTokens: number },
  ) => {
    archive.recordEvaluation(p.id, { scores: scores(ts), traces: ts, cost: { evaluateMs: 2000, ...cost } });
    const before = against ? archive.get(against).scores!.value : 0;
    archive.recordDecision(p.id, { accepted, reason: accepted ? 'better' : 'not better', against, delta: scores(ts).value - before });
  };

  const seed = archive.addProgram({
    kind: 'seed',
    iteration: 0,
    parent: null,
    source: SOURCES.seed,
    proposer: 'seed:seeds/base-bm25.ts',
    rationale: 'seed seeds/base-bm25.ts',
  });
  evaluate(seed, traces([1, 0, 1, 0]), true, null);
  archive.recordDiagnosis(seed.id, diagnosis(30, 10, 20));

  const wider = archive.addProgram({
    iteration: 1,
    parent: seed.id,
    source: SOURCES.wider,
    proposer: 'offline-mutation:set-constant',
    rationale: `widen TOP_K ${HOSTILE}`,
    targets: 'retrieval',
    edits: [{ op: 'set-constant', name: 'TOP_K', value: 20 }],
    applied: [{ edit: 0, op: 'set-constant', targets: ['TOP_K'], summary: 'set TOP_K = 20' }],
    cost: { proposeMs: 500 },
  });
  evaluate(wider, traces([1, 1, 1, 0]), true, seed.id);
  archive.recordDiagnosis(wider.id, diagnosis(20, 10, 30));
  archive.appendEvent({ type: 'iteration-finished', iteration: 1, best: wider.id, bestScore: 0.75 });

  const narrow = archive.addProgram({
    iteration: 2,
    parent: wider.id,
    source: SOURCES.narrow,
    proposer: 'llm:gpt-test',
    rationale: 'narrow TOP_K',
    edits: [{ op: 'set-constant', name: 'TOP_K', value: 5 }],
    cost: { promptTokens: 500, completionTokens: 100, proposeMs: 1500 },
  });
  evaluate(narrow, traces([1, 0, 0, 0], { prompt: 10, completion: 2 }), false, wider.id, { promptTokens: 40, completionTokens: 8 });
  const invalid = archive.addProgram({
    iteration: 2,
    attempt: 1,
    parent: wider.id,
    proposer: 'llm:gpt-test',
    rationale: 'a broken edit',
    edits: [],
    failure: { stage: 'compile', message: 'line 3: <b>Type error</b> & more' },
  });
  archive.appendEvent({ type: 'iteration-finished', iteration: 2, best: wider.id, bestScore: 0.75 });

  const fused = archive.addProgram({
    iteration: 3,
    parent: wider.id,
    source: SOURCES.fused,
    proposer: 'offline-mutation:session-fusion',
    rationale: 'fuse session scores',
    targets: 'retrieval',
    edits: [{ op: 'add-helper', code: '/** Session weight. */\nconst SESSION_WEIGHT = 0.6;' }],
    applied: [{ edit: 0, op: 'add-helper', targets: ['SESSION_WEIGHT'], summary: 'added SESSION_WEIGHT' }],
  });
  evaluate(fused, traces([1, 1, 1, 0.5]), true, wider.id);
  archive.recordDiagnosis(fused.id, diagnosis(12, 8, 40));
  archive.appendEvent({ type: 'iteration-finished', iteration: 3, best: fused.id, bestScore: 0.875 });

  const greedy = archive.addProgram({
    iteration: 4,
    parent: fused.id,
    source: SOURCES.greedy,
    proposer: 'offline-mutation:set-constant',
    rationale: 'more units',
    edits: [],
  });
  evaluate(greedy, traces([1, 0.5, 1, 0]), false, fused.id);
  archive.appendEvent({ type: 'iteration-finished', iteration: 4, best: fused.id, bestScore: 0.875 });
  archive.appendEvent({ type: 'run-stopped', reason: 'reached 4 iterations' });

  // Official test: the seed and the best program on three official questions of two categories.
  const official = (recalls: number[]) => recalls.map((r, i) => trace(`o${i + 1}`, i < 2 ? 'fact' : 'temporal', r));
  writeJsonl(join(dir, OFFICIAL_TRACES_DIR, `${seed.id}.jsonl`), official([0, 1, 0]), QuestionTraceSchema);
  writeJsonl(join(dir, OFFICIAL_TRACES_DIR, `${fused.id}.jsonl`), official([1, 1, 0]), QuestionTraceSchema);
  // The aggregates the optimizer records (deliberately unlike the traces, so a test can tell which one was read).
  archive.appendEvent(testScoresEvent({ program: seed.id, value: 0.3, n: 3, metrics: { contextRecall: 0.3, accuracy: 0.25, f1: 0.25 } }));
  archive.appendEvent(
    testScoresEvent({ program: fused.id, value: 0.9, n: 3, metrics: { contextRecall: 0.9, 'recall@10': 0.95, accuracy: 0.5, f1: 0.5 } }),
  );

  return {
    dir,
    archive,
    ids: { seed: seed.id, wider: wider.id, narrow: narrow.id, invalid: invalid.id, fused: fused.id, greedy: greedy.id },
  };
}
