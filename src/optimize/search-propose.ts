import { sha256 } from '../archive/program-id.ts';
import { BudgetExceededError } from '../llm/errors.ts';
import type { SourceRecord } from '../../sandbox/contract.ts';
import { questionKey } from '../diagnose/diagnosis.ts';
import type { QuestionTrace } from '../scoring/trace.ts';
import { pickInspirations } from './inspirations.ts';
import type { Inspiration, Proposal, TrainingView } from './proposers/types.ts';
import type { IterationPlan } from './search-iteration.ts';
import type { SearchRun } from './search-run.ts';
import type { Repair } from './search-types.ts';

/** What asking the proposer gave. */
export type ProposalOutcome =
  | { kind: 'proposal'; proposal: Proposal }
  /** A reply without edits: recorded as invalid and answered with a repair request. */
  | { kind: 'no-edits'; proposal: Proposal }
  /** The proposer has nothing left to try on this parent. */
  | { kind: 'exhausted' }
  /** A malformed reply after the client's own repairs, an HTTP error after retries…: recorded, the loop goes on. */
  | { kind: 'proposer-failed'; code: string; message: string }
  /** The LLM budget ran out: a clean stop. */
  | { kind: 'over-budget'; message: string };

/** Asks the proposer for attempt `attempt` of the iteration (a repair when `repair` is set). */
export async function propose(run: SearchRun, plan: IterationPlan, attempt: number, repair: Repair | undefined): Promise<ProposalOutcome> {
  const { parent, parentSource, feedback } = plan;
  let proposal: Proposal | null;
  // The control sees nothing of the archive; elsewhere the best programs of other lineages, for crossover.
  const inspirations: Inspiration[] = run.options.control
    ? []
    : pickInspirations(run.archive.loadState().programs, parent).map((p) => ({
        id: p.id,
        source: run.archive.source(p.id),
        score: p.scores!.value,
        scores: p.scores!.metrics,
      }));
  try {
    proposal = await run.options.proposer.propose({
      parent: { id: parent.id, source: parentSource, score: parent.scores?.value ?? 0, scores: parent.scores?.metrics ?? {} },
      diagnosis: feedback.diagnosis,
      failures: feedback.failures,
      ...(run.options.control ? {} : { training: trainingView(run, parent.id) }),
      revisions: plan.revisions,
      objective: run.options.objective,
      rng: plan.rng.fork(`propose:${attempt}`),
      isKnownSource: (src) => plan.knownHashes.has(sha256(src)),
      ...(inspirations.length ? { inspirations } : {}),
      ...(repair ? { repair } : {}),
    });
  } catch (err) {
    if (err instanceof BudgetExceededError) return { kind: 'over-budget', message: err.message };
    return {
      kind: 'proposer-failed',
      code: (err as { code?: string }).code ?? 'E_PROPOSER',
      message: err instanceof Error ? err.message : String(err),
    };
  }
  if (!proposal) return { kind: 'exhausted' };
  if (!Array.isArray(proposal.edits) || proposal.edits.length === 0) return { kind: 'no-edits', proposal };
  return { kind: 'proposal', proposal };
}

/**
 * The read-only training view a proposer gets: the evaluator's TRAINING items (never val, and the search's
 * evaluator has no test split), the histories' records, and the parent's training rankings.
 */
function trainingView(run: SearchRun, parentId: string): TrainingView {
  const items = run.evaluator.questions.train;
  const lookup = run.options.records;
  const byHistory = new Map<string, readonly SourceRecord[]>();
  if (typeof lookup !== 'function') for (const h of lookup) byHistory.set(h.id, h.records);
  let traces: Map<string, QuestionTrace> | undefined;
  const traceOf = (history: string, question: string) => {
    if (!traces) traces = new Map((run.trainEvaluations.get(parentId)?.traces ?? []).map((t) => [questionKey(t.history, t.question), t]));
    return traces.get(questionKey(history, question));
  };
  return {
    items,
    records: (history) => byHistory.get(history) ?? [],
    ranked: (history, question) => traceOf(history, question)?.rankedRecords,
    budgetDepth: (history, question) => traceOf(history, question)?.budgetRecords?.length,
  };
}
