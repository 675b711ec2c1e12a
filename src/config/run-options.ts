/**
 * The enums, defaults and bounds that several run kinds share (eval, generate, optimize, compare, bench, the
 * runtime), declared once. Library config schemas and the CLI's option tables both build on these, so a default or
 * a bound changes in one place. This module depends on zod only, so every folder may import it.
 */
import { z } from 'zod';

/**
 * What a search maximises: answer accuracy, `evidence` (context recall of the gold evidence, the offline default),
 * `ranking` (recall of the gold evidence among the first {@link RANKING_DEPTH} ranked records, R@10: what a design's
 * ranking gets right whatever its context packs), token F1, or marginal utility.
 */
export const Objective = z.enum(['accuracy', 'evidence', 'ranking', 'f1', 'marginal']);
export type Objective = z.infer<typeof Objective>;

/** How many ranked records the `ranking` objective reads (the R@10 every report shows). */
export const RANKING_DEPTH = 10;

/** Which failure cases reach the proposer: stratified by diagnosed category, the diagnosis only, or a random sample. */
export const FeedbackMode = z.enum(['stratified', 'diagnosis', 'random']);
export type FeedbackMode = z.infer<typeof FeedbackMode>;
/** The paper's feedback: up to N failure cases per diagnosed category. */
export const DEFAULT_FEEDBACK: FeedbackMode = 'stratified';

/** What the proposer may change: the design's code, or only the config constants of seeds/configurable.ts. */
export const SearchSpace = z.enum(['code', 'config']);
export type SearchSpace = z.infer<typeof SearchSpace>;

/**
 * The offline code proposer's moves: case-driven (read the failure cases, mine and fit the training split), the
 * catalog of building blocks (offline mutation), structural search (AST mutation of scoring code and crossover with
 * archive inspirations), or a mix of case-driven and structural moves.
 */
export const OfflineMoves = z.enum(['case-driven', 'catalog', 'structural', 'mixed']);
export type OfflineMoves = z.infer<typeof OfflineMoves>;
/** Share of the mixed proposer's draws that go to structural moves (the rest to case-driven moves). */
export const StructuralShare = z.number().min(0).max(1).default(0.5);

/** The stage a failed question is attributed to by its gold evidence (and the stage an edit or operator aims at). */
export const FailureTarget = z.enum(['storage', 'retrieval', 'answering']);
export type FailureTarget = z.infer<typeof FailureTarget>;

/** What a proposal says it targets: one failure stage, or `general` when it aims at none in particular. */
export const ProposalTarget = z.enum([...FailureTarget.options, 'general']);
export type ProposalTarget = z.infer<typeof ProposalTarget>;

/** Context budget of the fixed answerer when none is given (tokens as `countTokens` counts them). */
export const DEFAULT_CONTEXT_BUDGET = 1000;
/** Seed of every random choice when none is given. */
export const DEFAULT_RNG_SEED = 1;
/** Items `generate` aims for per history, and the share of them that goes to validation. */
export const DEFAULT_GENERATE_ITEMS = 400;
export const DEFAULT_VAL_SHARE = 0.4;

/**
 * Upper bounds on counts. They are far above any run that finishes in a day on a workstation; their job is to
 * turn a typo (`--n 1e9`) into an error instead of a silent spin.
 */
export const LIMITS = {
  contextBudget: 1_000_000,
  generateItems: 100_000,
  iterations: 100_000,
  /** Questions or supervision items a run may be limited to. */
  items: 10_000_000,
  jobs: 256,
  perCategory: 10_000,
  /** LLM tokens a budget may name. */
  tokens: 1e12,
  dollars: 1e6,
  /** Wall-clock limit in seconds (30 days). */
  wallTimeSeconds: 30 * 24 * 3600,
} as const;

/** A whole count from 1 to `max`. */
export const count = (max: number) => z.number().int().positive().max(max);

/** Context budget in tokens, with the shared default. */
export const ContextBudget = count(LIMITS.contextBudget).default(DEFAULT_CONTEXT_BUDGET);
/** Seed of every random choice, with the shared default. */
export const RngSeed = z.number().int().default(DEFAULT_RNG_SEED);
/** Sandbox processes of an evaluation pool (default: one per core, decided by the pool). */
export const Jobs = count(LIMITS.jobs).optional();
/** At most this many questions or supervision items (per split where a run has splits). */
export const ItemLimit = count(LIMITS.items).optional();
/** Search iterations. */
export const Iterations = count(LIMITS.iterations);
/** Target items per history of `generate`. */
export const GenerateItems = count(LIMITS.generateItems).default(DEFAULT_GENERATE_ITEMS);
/** Share of generated items in the validation split. */
export const ValShare = z.number().min(0).lt(1).default(DEFAULT_VAL_SHARE);

/**
 * A Redis queue of `memsteer worker`s (`redis://host:port[/db]`): evaluation groups go there instead of local
 * processes. Its full form is checked by the queue client; here only the scheme, so a typo fails before any work.
 */
export const QueueUrl = z.string().regex(/^rediss?:\/\//, 'expected redis://host:port[/db]');
