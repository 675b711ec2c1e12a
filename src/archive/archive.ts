import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { z } from 'zod';
import { DiagnosisSchema, type Diagnosis } from '../diagnose/diagnosis.ts';
import type { AppliedEdit } from '../design/edit-ops.ts';
import { InputError, MemsteerError, describeZodIssues } from '../errors.ts';
import { QuestionTraceSchema } from '../scoring/trace-schema.ts';
import type { QuestionTrace } from '../scoring/trace.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import { readJsonl, writeJsonl } from '../util/jsonl.ts';
import { collectVersions, readGitCommit } from './environment.ts';
import { createFileExclusive } from './exclusive-write.ts';
import { appendEventLine, readEventLog, type EventLog } from './events.ts';
import { canonicalJson, programId, sha256 } from './program-id.ts';
import {
  ARCHIVE_FORMAT,
  LEGACY_TEST_SCORES_NOTE,
  ManifestSchema,
  TestScoresSchema,
  ProgramRecordSchema,
  ZERO_COST,
  type ArchiveEvent,
  type Cost,
  type Decision,
  type Failure,
  type Manifest,
  type ManifestInput,
  type NewEvent,
  type ProgramRecord,
  type Scores,
  type TestScores,
} from './schemas.ts';
import { buildState, type SearchState } from './state.ts';
import type { FailureCategory } from '../diagnose/diagnosis.ts';

/** A program to add. Give `source` for anything that applied; omit it for a reply whose edits did not apply. */
export interface NewProgram {
  kind?: 'seed' | 'proposal' | 'control';
  iteration: number;
  attempt?: number;
  parent: string | null;
  source?: string;
  edits?: unknown[];
  applied?: AppliedEdit[];
  rationale?: string;
  targets?: FailureCategory;
  proposer?: string;
  cost?: Partial<Cost>;
  /** Set for a proposal that failed before evaluation (edits, compile): stored as `invalid`. */
  failure?: Failure;
}

export interface ArchiveOptions {
  /** Clock for record and event times (tests pass a fixed one). */
  now?: () => Date;
}

/** An archive state error: the caller asked for a transition the program's status does not allow. */
export class ArchiveError extends MemsteerError {
  constructor(code: string, message: string, options: { file?: string } = {}) {
    super(code, message, options);
    this.name = 'ArchiveError';
  }
}

/**
 * One run on disk (`archive/<run>/`). Every file is written atomically; a program's JSON is its state and is
 * written before the event that announces it, so a run killed at any moment reopens to a consistent state.
 * One writer at a time: writers hold the run folder's lock (`acquireRunLock`, run-lock.ts); readers need none.
 */
export class Archive {
  readonly dir: string;
  readonly manifest: Manifest;
  private readonly programs = new Map<string, ProgramRecord>();
  private log: EventLog;
  private readonly now: () => Date;
  private readonly warnings: string[];

  /** Use {@link createArchive} or {@link openArchive}. */
  constructor(dir: string, manifest: Manifest, programs: ProgramRecord[], log: EventLog, warnings: string[], options: ArchiveOptions) {
    this.dir = dir;
    this.manifest = manifest;
    for (const p of programs) this.programs.set(p.id, p);
    this.log = log;
    this.now = options.now ?? (() => new Date());
    this.warnings = warnings;
  }

  /** Paths of a program's files. */
  paths(id: string): { source: string; record: string; traces: string; diagnosis: string } {
    return {
      source: join(this.dir, 'programs', `${id}.ts`),
      record: join(this.dir, 'programs', `${id}.json`),
      traces: join(this.dir, 'traces', `${id}.jsonl`),
      diagnosis: join(this.dir, 'diagnoses', `${id}.json`),
    };
  }

  /**
   * Adds a program (source first, then its record, then the event). The id is {@link programId} of the iteration
   * and the content hash; adding the same content in the same iteration again returns the existing record.
   */
  addProgram(input: NewProgram): ProgramRecord {
    const kind = input.kind ?? (input.parent === null ? 'seed' : 'proposal');
    const attempt = input.attempt ?? 0;
    const contentHash =
      input.source !== undefined
        ? sha256(input.source)
        : sha256(canonicalJson({ attempt, edits: input.edits ?? [], failure: input.failure ?? null }));
    const id = programId(input.iteration, contentHash);
    const existing = this.programs.get(id);
    if (existing) return existing;
    if (input.parent !== null && !this.programs.has(input.parent)) {
      throw new ArchiveError('E_ARCHIVE_UNKNOWN_PROGRAM', `parent ${input.parent} is not in the archive ${this.dir}`);
    }
    const at = this.now().toISOString();
    const record = this.validate({
      id,
      kind,
      iteration: input.iteration,
      attempt,
      parent: input.parent,
      createdAt: at,
      updatedAt: at,
      ...(input.proposer !== undefined ? { proposer: input.proposer } : {}),
      edits: input.edits ?? [],
      ...(input.applied ? { applied: input.applied } : {}),
      ...(input.rationale !== undefined ? { rationale: input.rationale } : {}),
      ...(input.targets ? { targets: input.targets } : {}),
      contentHash,
      hasSource: input.source !== undefined,
      status: input.failure ? 'invalid' : 'proposed',
      ...(input.failure ? { failure: input.failure } : {}),
      cost: { ...ZERO_COST, ...input.cost },
    });
    if (input.source !== undefined) writeFileAtomic(this.paths(id).source, input.source);
    this.writeRecord(record);
    this.appendEvent({ type: 'program-added', program: id, iteration: record.iteration, parent: record.parent, status: record.status });
    return record;
  }

  /** Records a finished evaluation: traces (when given), then scores and status `evaluated`, then the event. */
  recordEvaluation(id: string, result: { scores: Scores; traces?: readonly QuestionTrace[]; cost?: Partial<Cost> }): ProgramRecord {
    const p = this.expect(id, ['proposed'], 'record an evaluation');
    if (result.traces) writeJsonl(this.paths(id).traces, result.traces, QuestionTraceSchema as z.ZodType<QuestionTrace>);
    const record = this.update(p, { status: 'evaluated', scores: result.scores, cost: addCost(p.cost, result.cost) });
    this.appendEvent({ type: 'program-evaluated', program: id, score: result.scores.value });
    return record;
  }

  /** Marks a proposed program as failed (its evaluation could not run at all). */
  recordFailure(id: string, failure: Failure, cost?: Partial<Cost>): ProgramRecord {
    const p = this.expect(id, ['proposed'], 'record a failure');
    const record = this.update(p, { status: 'failed', failure, cost: addCost(p.cost, cost) });
    this.appendEvent({ type: 'program-failed', program: id, stage: failure.stage, message: failure.message });
    return record;
  }

  /** Records the acceptance decision on an evaluated program. */
  recordDecision(id: string, decision: Omit<Decision, 'decidedAt'>): ProgramRecord {
    const p = this.expect(id, ['evaluated'], 'record a decision');
    const record = this.update(p, {
      status: decision.accepted ? 'accepted' : 'rejected',
      decision: { ...decision, decidedAt: this.now().toISOString() },
    });
    this.appendEvent({ type: 'program-decided', program: id, accepted: decision.accepted, reason: decision.reason });
    return record;
  }

  /** Stores the training-set diagnosis of a program (`diagnoses/<id>.json`). */
  recordDiagnosis(id: string, diagnosis: Diagnosis): void {
    this.get(id);
    const parsed = DiagnosisSchema.parse(diagnosis);
    writeFileAtomic(this.paths(id).diagnosis, `${JSON.stringify(parsed, null, 2)}\n`);
    this.appendEvent({ type: 'diagnosis-recorded', program: id, dominant: parsed.dominant, failures: parsed.failures });
  }

  /** Appends an event (validated; `seq` and `at` filled in). */
  appendEvent(event: NewEvent): ArchiveEvent {
    const last = this.log.events[this.log.events.length - 1];
    const full = { ...event, seq: (last?.seq ?? 0) + 1, at: this.now().toISOString() } as ArchiveEvent;
    const tail = appendEventLine(this.eventsPath, full, this.log);
    this.log = { events: [...this.log.events, full], ...tail };
    return full;
  }

  /** The program's record; throws E_ARCHIVE_UNKNOWN_PROGRAM when there is none. */
  get(id: string): ProgramRecord {
    const p = this.programs.get(id);
    if (!p)
      throw new ArchiveError('E_ARCHIVE_UNKNOWN_PROGRAM', `no program ${id} in ${this.dir}; \`memsteer archive ${this.dir}\` lists them`);
    return p;
  }

  has(id: string): boolean {
    return this.programs.has(id);
  }

  /** The program's source (checked against its content hash). */
  source(id: string): string {
    const p = this.get(id);
    if (!p.hasSource) throw new ArchiveError('E_ARCHIVE_NO_SOURCE', `program ${id} has no source: its edits did not apply`);
    const path = this.paths(id).source;
    if (!existsSync(path)) throw new InputError('E_ARCHIVE_CORRUPT', `${path}: source of ${id} is missing`, { file: path });
    const text = readFileSync(path, 'utf8');
    if (sha256(text) !== p.contentHash)
      throw new InputError('E_ARCHIVE_CORRUPT', `${path}: content does not match the hash in ${id}.json; the file was changed`, {
        file: path,
      });
    return text;
  }

  /** The program's traces, or null when none were recorded. */
  traces(id: string): QuestionTrace[] | null {
    this.get(id);
    const path = this.paths(id).traces;
    return existsSync(path) ? readJsonl(path, QuestionTraceSchema as z.ZodType<QuestionTrace>) : null;
  }

  /** The program's diagnosis, or null. */
  diagnosis(id: string): Diagnosis | null {
    this.get(id);
    const path = this.paths(id).diagnosis;
    return existsSync(path) ? readJsonFile(path, DiagnosisSchema) : null;
  }

  /** All programs, by iteration, attempt and creation time. */
  list(): ProgramRecord[] {
    return buildState([...this.programs.values()], [], false).programs;
  }

  /** The ancestry of a program, root (a seed) first, the program last. */
  lineage(id: string): ProgramRecord[] {
    const chain: ProgramRecord[] = [];
    const seen = new Set<string>();
    for (let p: ProgramRecord | undefined = this.get(id); p; p = p.parent ? this.programs.get(p.parent) : undefined) {
      if (seen.has(p.id)) break;
      seen.add(p.id);
      chain.unshift(p);
    }
    return chain;
  }

  /** Programs whose parent is `id`. */
  children(id: string): ProgramRecord[] {
    return this.list().filter((p) => p.parent === id);
  }

  /**
   * The latest official-test scores recorded for each program (`test-scores` events; in runs written before that
   * event existed, the `note` that carried them).
   */
  testScores(): Map<string, TestScores> {
    const out = new Map<string, TestScores>();
    for (const e of this.log.events) {
      const raw = e.type === 'test-scores' ? e : e.type === 'note' && e.message === LEGACY_TEST_SCORES_NOTE ? e.data : null;
      const parsed = raw ? TestScoresSchema.safeParse(raw) : null;
      if (parsed?.success) out.set(parsed.data.program, parsed.data);
    }
    return out;
  }

  /** Records a program's official-test scores (measured after the search). */
  recordTestScores(scores: TestScores): void {
    this.get(scores.program);
    this.appendEvent({ type: 'test-scores', ...TestScoresSchema.parse(scores) });
  }

  /** Events so far (in memory; the log on disk has the same). */
  events(): ArchiveEvent[] {
    return this.log.events.slice();
  }

  /** Rebuilds the search state (current best, accepted, pending, counters) from what is on disk. */
  loadState(): SearchState {
    return buildState([...this.programs.values()], this.log.events, this.log.torn !== null, this.warnings);
  }

  private get eventsPath(): string {
    return join(this.dir, 'events.jsonl');
  }

  private expect(id: string, statuses: ProgramRecord['status'][], what: string): ProgramRecord {
    const p = this.get(id);
    if (!statuses.includes(p.status)) {
      throw new ArchiveError('E_ARCHIVE_STATE', `cannot ${what} for ${id}: it is ${p.status} (expected ${statuses.join(' or ')})`);
    }
    return p;
  }

  private validate(record: unknown): ProgramRecord {
    const r = ProgramRecordSchema.safeParse(record);
    if (!r.success) throw new ArchiveError('E_ARCHIVE_BAD_PROGRAM', `refusing to write program: ${describeZodIssues(r.error.issues)}`);
    return r.data;
  }

  private update(p: ProgramRecord, patch: Partial<ProgramRecord>): ProgramRecord {
    const record = this.validate({ ...p, ...patch, updatedAt: this.now().toISOString() });
    this.writeRecord(record);
    return record;
  }

  private writeRecord(record: ProgramRecord): void {
    writeFileAtomic(this.paths(record.id).record, `${JSON.stringify(record, null, 2)}\n`);
    this.programs.set(record.id, record);
  }
}

function addCost(a: Cost, b: Partial<Cost> | undefined): Cost {
  if (!b) return a;
  const out: Cost = {
    promptTokens: a.promptTokens + (b.promptTokens ?? 0),
    completionTokens: a.completionTokens + (b.completionTokens ?? 0),
    dollars: a.dollars + (b.dollars ?? 0),
  };
  const proposeMs = (a.proposeMs ?? 0) + (b.proposeMs ?? 0);
  const evaluateMs = (a.evaluateMs ?? 0) + (b.evaluateMs ?? 0);
  if (a.proposeMs !== undefined || b.proposeMs !== undefined) out.proposeMs = proposeMs;
  if (a.evaluateMs !== undefined || b.evaluateMs !== undefined) out.evaluateMs = evaluateMs;
  return out;
}

function readJsonFile<T>(path: string, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new InputError('E_ARCHIVE_CORRUPT', `${path}: not valid JSON (${(err as Error).message})`, { file: path });
  }
  const r = schema.safeParse(value);
  if (!r.success) throw new InputError('E_ARCHIVE_CORRUPT', `${path}: ${describeZodIssues(r.error.issues)}`, { file: path });
  return r.data;
}

/**
 * Creates a new run directory with its manifest (format, run name, time, package and Node versions and git commit
 * filled in unless given). Refuses a directory that already holds a run: resume it with {@link openArchive}.
 */
export function createArchive(dir: string, input: ManifestInput, options: ArchiveOptions = {}): Archive {
  const root = resolve(dir);
  const manifestPath = join(root, 'manifest.json');
  const exists = (): ArchiveError =>
    new ArchiveError('E_ARCHIVE_EXISTS', `${root} already holds a run; resume it (--resume) or choose another --out`, {
      file: manifestPath,
    });
  if (existsSync(manifestPath)) throw exists();
  const now = options.now ?? (() => new Date());
  const manifest = ManifestSchema.parse({
    format: ARCHIVE_FORMAT,
    run: basename(root),
    createdAt: input.createdAt ?? now().toISOString(),
    config: input.config,
    seeds: input.seeds,
    models: input.models,
    promptVersions: input.promptVersions,
    rngSeed: input.rngSeed,
    versions: input.versions ?? collectVersions(),
    gitCommit: input.gitCommit !== undefined ? input.gitCommit : readGitCommit(),
  });
  // Created exclusively, not checked then written: of two processes creating the same run, exactly one gets it.
  if (!createFileExclusive(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`)) throw exists();
  for (const sub of ['programs', 'traces', 'diagnoses']) mkdirSync(join(root, sub), { recursive: true });
  const archive = new Archive(root, manifest, [], readEventLog(join(root, 'events.jsonl')), [], options);
  archive.appendEvent({ type: 'run-created', run: manifest.run });
  return archive;
}

/**
 * Opens an existing run, validating the manifest, every program record and the event log (a torn last event line
 * is tolerated and reported in `loadState().warnings`). Reading never writes; the first append repairs the log.
 */
export function openArchive(dir: string, options: ArchiveOptions = {}): Archive {
  const root = resolve(dir);
  const manifestPath = join(root, 'manifest.json');
  if (!existsSync(manifestPath)) {
    throw new InputError(
      'E_ARCHIVE_MISSING',
      `${root}: no manifest.json — not a memsteer run (start one with memsteer optimize --out ${dir})`,
      { file: manifestPath },
    );
  }
  const manifest = readJsonFile(manifestPath, ManifestSchema);
  const programsDir = join(root, 'programs');
  const files = existsSync(programsDir) ? readdirSync(programsDir).filter((f) => !f.startsWith('.')) : [];
  const programs: ProgramRecord[] = [];
  const warnings: string[] = [];
  for (const f of files.filter((f) => f.endsWith('.json')).sort()) {
    const p = readJsonFile(join(programsDir, f), ProgramRecordSchema);
    if (`${p.id}.json` !== f)
      throw new InputError('E_ARCHIVE_CORRUPT', `${join(programsDir, f)}: holds program ${p.id}`, { file: join(programsDir, f) });
    if (p.hasSource && !existsSync(join(programsDir, `${p.id}.ts`))) {
      throw new InputError('E_ARCHIVE_CORRUPT', `${join(programsDir, f)}: its source ${p.id}.ts is missing`, {
        file: join(programsDir, f),
      });
    }
    programs.push(p);
  }
  const ids = new Set(programs.map((p) => p.id));
  for (const p of programs) {
    if (p.parent !== null && !ids.has(p.parent))
      throw new InputError('E_ARCHIVE_CORRUPT', `${join(programsDir, `${p.id}.json`)}: parent ${p.parent} is missing`);
  }
  // A source without a record is a proposal cut off between its two writes: it never existed for the search.
  for (const f of files.filter((f) => f.endsWith('.ts'))) {
    if (!ids.has(f.slice(0, -3))) warnings.push(`programs/${f} has no record (a crash while adding it); ignored`);
  }
  const log = readEventLog(join(root, 'events.jsonl'));
  return new Archive(root, manifest, programs, log, warnings, options);
}
