import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createArchive, openArchive, programId, sha256, type ManifestInput, type Scores } from '../src/archive/index.ts';
import { diagnose } from '../src/diagnose/index.ts';
import { qa, trace } from './fixtures/edits/qa-traces.ts';

const dirs: string[] = [];
function tempRun(name = 'run-1'): string {
  const d = mkdtempSync(join(tmpdir(), 'memsteer-archive-'));
  dirs.push(d);
  return join(d, name);
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

let tick = 0;
const clock = () => new Date(Date.UTC(2025, 0, 1, 0, 0, tick++));
const manifest: ManifestInput = {
  config: { iterations: 3, objective: 'evidence', select: 'greedy' },
  seeds: [{ path: 'seeds/base-bm25.ts', sha256: sha256('seed') }],
  models: { proposer: 'offline', answerer: 'offline' },
  promptVersions: { proposer: 'v1' },
  rngSeed: 7,
};
const scores = (value: number, per: Record<string, number> = {}): Scores => ({
  objective: 'evidence',
  value,
  n: Object.keys(per).length,
  perQuestion: per,
  metrics: { 'recall@10': value },
});

describe('archive files', () => {
  it('writes the manifest with versions and the layout, and refuses to create over a run', () => {
    const dir = tempRun();
    const a = createArchive(dir, manifest, { now: clock });
    expect(a.manifest.run).toBe('run-1');
    expect(a.manifest.format).toBe(1);
    expect(a.manifest.versions.node).toBe(process.version);
    expect(a.manifest.versions.packages.zod).toBe('4.6.7');
    expect(a.manifest.versions.memsteer).toBe('0.1.0');
    expect(a.manifest.gitCommit === null || /^[0-9a-f]{40}$/.test(a.manifest.gitCommit)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['diagnoses', 'events.jsonl', 'manifest.json', 'programs', 'traces']);
    expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).rngSeed).toBe(7);
    expect(() => createArchive(dir, manifest)).toThrow(expect.objectContaining({ code: 'E_ARCHIVE_EXISTS' }));
    expect(() => openArchive(join(dir, 'nope'))).toThrow(expect.objectContaining({ code: 'E_ARCHIVE_MISSING' }));
  });

  it('stores programs with deterministic ids, sources, traces, diagnoses and lineage', () => {
    const dir = tempRun();
    const a = createArchive(dir, manifest, { now: clock });
    const seed = a.addProgram({ iteration: 0, parent: null, source: 'const K = 10;\n', proposer: 'seed:seeds/base-bm25.ts' });
    expect(seed.id).toBe(programId(0, sha256('const K = 10;\n')));
    expect(seed.id).toMatch(/^i000-[0-9a-f]{12}$/);
    expect(seed).toMatchObject({ kind: 'seed', status: 'proposed', hasSource: true, attempt: 0 });
    // Adding the same content in the same iteration is idempotent (a resumed run re-adding its proposal).
    expect(a.addProgram({ iteration: 0, parent: null, source: 'const K = 10;\n' })).toBe(seed);

    const tr = [trace('q1', { delivered: ['r1'], correct: true }), trace('q2', { delivered: [] })];
    a.recordEvaluation(seed.id, { scores: scores(0.5, { q1: 1, q2: 0 }), traces: tr, cost: { evaluateMs: 120 } });
    a.recordDecision(seed.id, { accepted: true, reason: 'seed baseline', against: null });
    const d = diagnose([qa('q1', ['r1']), qa('q2', ['r2'])], tr, new Set(['r1']), { objective: 'evidence' });
    a.recordDiagnosis(seed.id, d);

    const child = a.addProgram({
      iteration: 1,
      parent: seed.id,
      source: 'const K = 20;\n',
      edits: [{ op: 'set-constant', name: 'K', value: 20 }],
      rationale: 'retrieval failures dominate: widen K',
      targets: 'retrieval',
      proposer: 'offline:constant-tweak',
      cost: { promptTokens: 0, completionTokens: 0, dollars: 0, proposeMs: 5 },
    });
    const bad = a.addProgram({
      iteration: 2,
      parent: child.id,
      edits: [{ op: 'remove-helper', name: 'nope' }],
      failure: { stage: 'apply', code: 'E_EDIT_UNKNOWN_NAME', message: 'no top-level helper named nope' },
    });
    expect(bad).toMatchObject({ status: 'invalid', hasSource: false });

    const b = openArchive(dir);
    expect(b.source(child.id)).toBe('const K = 20;\n');
    expect(b.traces(seed.id)).toEqual(tr);
    expect(b.traces(child.id)).toBeNull();
    expect(b.diagnosis(seed.id)).toEqual(d);
    expect(b.get(seed.id).cost.evaluateMs).toBe(120);
    expect(b.lineage(bad.id).map((p) => p.id)).toEqual([seed.id, child.id, bad.id]);
    expect(b.children(seed.id).map((p) => p.id)).toEqual([child.id]);
    expect(b.list().map((p) => p.id)).toEqual([seed.id, child.id, bad.id]);
    expect(() => b.source(bad.id)).toThrow(expect.objectContaining({ code: 'E_ARCHIVE_NO_SOURCE' }));
    expect(b.events().map((e) => e.type)).toEqual([
      'run-created',
      'program-added',
      'program-evaluated',
      'program-decided',
      'diagnosis-recorded',
      'program-added',
      'program-added',
    ]);
    expect(b.events().map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('enforces status transitions and known parents', () => {
    const a = createArchive(tempRun(), manifest, { now: clock });
    const seed = a.addProgram({ iteration: 0, parent: null, source: 'x' });
    expect(() => a.recordDecision(seed.id, { accepted: true, reason: 'r', against: null })).toThrow(
      expect.objectContaining({ code: 'E_ARCHIVE_STATE' }),
    );
    a.recordEvaluation(seed.id, { scores: scores(0.1) });
    expect(() => a.recordEvaluation(seed.id, { scores: scores(0.1) })).toThrow(/it is evaluated/);
    expect(() => a.addProgram({ iteration: 1, parent: 'i000-000000000000', source: 'y' })).toThrow(
      expect.objectContaining({ code: 'E_ARCHIVE_UNKNOWN_PROGRAM' }),
    );
    expect(() => a.addProgram({ iteration: 1, parent: seed.id, source: 'y', edits: [{ op: 'bogus' }] })).toThrow(
      expect.objectContaining({ code: 'E_ARCHIVE_BAD_PROGRAM' }),
    );
    // A reply that was not even valid edits is recorded as such.
    const junk = a.addProgram({
      iteration: 1,
      parent: seed.id,
      edits: [{ op: 'bogus' }],
      failure: { stage: 'propose', message: 'not edit operations' },
    });
    expect(junk.status).toBe('invalid');
    const p = a.addProgram({ iteration: 2, parent: seed.id, source: 'z' });
    expect(a.recordFailure(p.id, { stage: 'evaluate', message: 'every sandbox crashed' }).status).toBe('failed');
  });

  it('detects tampering and corruption on open', () => {
    const dir = tempRun();
    const a = createArchive(dir, manifest, { now: clock });
    const seed = a.addProgram({ iteration: 0, parent: null, source: 'const A = 1;\n' });
    writeFileSync(a.paths(seed.id).source, 'const A = 2;\n');
    expect(() => openArchive(dir).source(seed.id)).toThrow(expect.objectContaining({ code: 'E_ARCHIVE_CORRUPT' }));
    writeFileSync(a.paths(seed.id).record, '{"id": "broken"');
    expect(() => openArchive(dir)).toThrow(
      expect.objectContaining({ code: 'E_ARCHIVE_CORRUPT', message: expect.stringContaining(`${seed.id}.json`) }),
    );
  });

  it('tolerates a torn last event line, reports it, and repairs the log on the next append', () => {
    const dir = tempRun();
    const a = createArchive(dir, manifest, { now: clock });
    a.addProgram({ iteration: 0, parent: null, source: 's' });
    const events = join(dir, 'events.jsonl');
    appendFileSync(events, '{"seq":3,"at":"2025-01-01T00:00:0');
    const b = openArchive(dir, { now: clock });
    const state = b.loadState();
    expect(state.events).toEqual({ count: 2, torn: true });
    expect(state.warnings[0]).toMatch(/torn line/);
    // Reading did not write.
    expect(readFileSync(events, 'utf8').endsWith('00:0')).toBe(true);
    b.appendEvent({ type: 'note', message: 'resumed' });
    const lines = readFileSync(events, 'utf8').split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    expect(JSON.parse(lines[2]!)).toMatchObject({ seq: 3, type: 'note' });
    expect(openArchive(dir).loadState().events).toEqual({ count: 3, torn: false });
  });

  it('refuses a damaged line that is not the last', () => {
    const dir = tempRun();
    createArchive(dir, manifest, { now: clock }).addProgram({ iteration: 0, parent: null, source: 's' });
    const events = join(dir, 'events.jsonl');
    const lines = readFileSync(events, 'utf8').split('\n');
    writeFileSync(events, [lines[0]!.slice(0, 10), lines[1]!, ''].join('\n'));
    expect(() => openArchive(dir)).toThrow(expect.objectContaining({ code: 'E_ARCHIVE_CORRUPT', line: 1 }));
  });

  it('ignores temp files and reports orphan sources from a crash between writes', () => {
    const dir = tempRun();
    const a = createArchive(dir, manifest, { now: clock });
    a.addProgram({ iteration: 0, parent: null, source: 's' });
    writeFileSync(join(dir, 'programs', '.i001-abc.json.123.tmp'), '{half');
    writeFileSync(join(dir, 'programs', 'i001-aaaaaaaaaaaa.ts'), 'const x = 1;');
    const state = openArchive(dir).loadState();
    expect(state.programs).toHaveLength(1);
    expect(state.warnings).toEqual(['programs/i001-aaaaaaaaaaaa.ts has no record (a crash while adding it); ignored']);
    expect(existsSync(join(dir, 'programs', 'i001-aaaaaaaaaaaa.json'))).toBe(false);
  });
});
