import type { ProgramRecord } from '../archive/schemas.ts';
import { InputError, MemsteerError } from '../errors.ts';
import type { CompileDiagnostic } from '../isolate/sandbox-api.ts';
import { deriveSeed } from '../util/rng.ts';
import { decide } from './search-decide.ts';
import { prefetchTraining, trainingDiagnosis } from './search-diagnose.ts';
import { evaluateOnValidation } from './search-evaluate.ts';
import type { SearchRun } from './search-run.ts';

/**
 * A seed design that does not type-check or compile: a user's mistake, reported as one line naming the file, line
 * and column of the first diagnostic (`seeds/x.ts:12:5: TS2322 Type 'number' is not assignable…`).
 */
export function seedCompileError(label: string, diagnostics: readonly CompileDiagnostic[]): InputError {
  const d = diagnostics[0];
  const where = d ? `${label}:${d.line}:${d.column}: ${d.code} ${d.message.replace(/\s*\n\s*/g, ' ')}` : `${label}: does not compile`;
  const more = diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more)` : '';
  return new InputError('E_SEED_COMPILE', `${where}${more}`, { file: label, ...(d ? { line: d.line } : {}) });
}

/**
 * Brings the archive to a settled state before the first new iteration: a new run gets its seeds; a resumed run
 * evaluates what was proposed and not evaluated, and decides what was evaluated and not decided (seeds are accepted
 * as the baseline). Returns the accepted seed.
 */
export async function settleArchive(run: SearchRun): Promise<ProgramRecord> {
  const { archive, options } = run;
  let state = archive.loadState();
  if (state.programs.length === 0) {
    for (const s of options.seeds) {
      const c = await options.compile(s.source);
      if (!c.ok) throw seedCompileError(s.label, c.diagnostics);
      archive.addProgram({
        kind: 'seed',
        iteration: 0,
        parent: null,
        source: s.source,
        proposer: `seed:${s.label}`,
        rationale: `seed ${s.label}`,
      });
    }
    state = archive.loadState();
  } else {
    archive.appendEvent({ type: 'run-resumed', pending: state.pending.map((p) => p.id), lastIteration: state.lastIteration });
  }
  for (const p of state.pending) {
    const validation = evaluateOnValidation(run, p);
    // A seed is accepted as the baseline and diagnosed at once: its training evaluation can start beside.
    if (p.kind === 'seed') prefetchTraining(run, p);
    await validation;
  }
  for (const p of archive.loadState().undecided) {
    if (p.kind === 'seed') {
      await trainingDiagnosis(run, archive.recordDecision(p.id, { accepted: true, reason: 'seed: the baseline', against: null }));
      continue;
    }
    const current = archive.loadState().current;
    if (!current) throw new MemsteerError('E_NO_BASELINE', 'no accepted program to compare with: the seed failed its evaluation');
    const decided = decide(run, p, current, deriveSeed(options.rngSeed, 'accept', p.iteration));
    if (decided.kind === 'accepted' && !options.control) await trainingDiagnosis(run, decided.record);
  }
  const seeds = archive.loadState().seeds;
  const seed = seeds.find((s) => s.status === 'accepted');
  if (!seed) {
    const why = seeds.map((s) => `${s.id}: ${s.failure?.message ?? s.status}`).join('; ');
    throw new MemsteerError('E_SEED_FAILED', `no seed design evaluated successfully: ${why}`);
  }
  return seed;
}
