/**
 * Options several commands share, declared once; each command's table picks the ones it takes. Defaults and
 * bounds come from the shared run options (src/config/run-options.ts) or the library's config schemas.
 */
import { z } from 'zod';
import { ContextBudget, ItemLimit, Jobs, Objective, QueueUrl, RngSeed } from '../config/run-options.ts';
import type { OptionSpec } from './option-table.ts';

const SOURCE_HELP = 'history source: <format>:<path>[#<history>[,…]] (format: jsonl, locomo, rhelm, longmemeval, memorybank)';

/** `--history <source>`, required. */
export const history = {
  flags: '--history <source>',
  description: SOURCE_HELP,
  schema: z.string().min(1),
  path: 'source',
  required: true,
} satisfies OptionSpec;
/** `--history <source>` where a command can do without it (optimize --resume, convert). */
export const optionalHistory = { ...history, required: false, schema: z.string().min(1).optional() } satisfies OptionSpec;

export const json = { flags: '--json', description: 'print the result as JSON', schema: z.boolean().default(false) } satisfies OptionSpec;

export const offline = {
  flags: '--offline',
  description: 'use the offline algorithms (proposer, answerer, generator) even when a model is configured',
  schema: z.boolean().default(false),
} satisfies OptionSpec;

export const jobs = { flags: '--jobs <n>', description: 'sandbox processes (default: one per core)', schema: Jobs } satisfies OptionSpec;

export const rngSeed = { flags: '--rng-seed <n>', description: 'seed of every random choice', schema: RngSeed } satisfies OptionSpec;

export const contextBudget = {
  flags: '--context-budget <tokens>',
  description: 'context budget of the fixed answerer (tokens)',
  schema: ContextBudget,
} satisfies OptionSpec;

export const objective = {
  flags: '--objective <name>',
  description:
    'what is maximised: accuracy, evidence (context recall), ranking (R@10), f1, marginal ' +
    '(default: accuracy with a model, evidence offline)',
  schema: Objective.optional(),
} satisfies OptionSpec;

export const limit = {
  flags: '--limit <n>',
  description: 'use at most n supervision items per split',
  schema: ItemLimit,
} satisfies OptionSpec;

export const testCategories = {
  flags: '--test-categories <list>',
  description: 'official QA categories for the final test, comma-separated (e.g. 1,2,3,4)',
  schema: z.array(z.string()).default([]),
} satisfies OptionSpec;

export const supervision = {
  flags: '--supervision <file>',
  description: 'supervision.jsonl with train and val items (memsteer generate)',
  schema: z.string().min(1).optional(),
  path: 'file',
} satisfies OptionSpec;

/** `--queue <url>`: run evaluation groups on `memsteer worker`s through a Redis queue instead of local processes. */
export const queue = {
  flags: '--queue <url>',
  description: 'run groups on memsteer workers through this Redis queue (redis://host:port[/db])',
  schema: QueueUrl.optional(),
} satisfies OptionSpec;

/** `--strict`: degraded input (history warnings) refuses the command instead of being reported and accepted. */
export const strict = {
  flags: '--strict',
  description: 'refuse degraded input (undated or dropped sessions, replaced bytes, unknown evidence ids) instead of warning',
  schema: z.boolean().default(false),
} satisfies OptionSpec;
