import { Node, SyntaxKind, type NumericLiteral, type SourceFile } from 'ts-morph';
import { z } from 'zod';
import { parseSource, topLevelNames, unwrapExpression } from '../design/design-source.ts';
import type { EditOp } from '../design/edit-ops.ts';
import { ConfigError, describeZodIssues } from '../errors.ts';
import type { FailureTarget } from '../config/run-options.ts';
import type { CompileDiagnostic, CompileResult } from '../isolate/sandbox-api.ts';

/**
 * The config search space: the typed top-level constants of seeds/configurable.ts, their schema (enums and
 * ranges), how to read a config off a design's source, and how a config change becomes set-constant edits.
 * `--space config` runs the same search loop as code search, but a candidate may differ from the seed only in
 * these values (see {@link configSpaceProblems}).
 */

/** Which diagnosed failure category a knob mainly addresses (as the code mutation catalog's operators do). */
export type ConfigTarget = FailureTarget;

/** How a knob varies: one of a few options, a number on a grid inside a range, or on/off. */
export type FieldSpec =
  | { kind: 'enum'; options: readonly string[] }
  | { kind: 'int' | 'number'; min: number; max: number; step: number }
  | { kind: 'boolean' };

/**
 * The knobs, in the order they appear in seeds/configurable.ts. Ranges are wide enough to hold every setting
 * worth trying and narrow enough that a single step is a meaningful change.
 */
export const ConfigSchema = z.strictObject({
  UNIT_GRANULARITY: z.enum(['record', 'window', 'session']),
  WINDOW_RADIUS: z.number().int().min(1).max(5),
  SESSION_SIZE: z.number().int().min(5).max(200),
  RETRIEVER: z.enum(['bm25', 'embedding', 'hybrid']),
  FUSION: z.enum(['rrf', 'weighted']),
  EMBEDDING_WEIGHT: z.number().min(0).max(1),
  RRF_K: z.number().int().min(1).max(200),
  TOP_K: z.number().int().min(10).max(200),
  BM25_K1: z.number().min(0.3).max(2.5),
  BM25_B: z.number().min(0).max(1),
  STEM: z.boolean(),
  INDEX_DATES: z.boolean(),
  SESSION_FUSION: z.number().min(0).max(2),
  EXPANSION_TERMS: z.number().int().min(0).max(15),
  EXPANSION_DOCS: z.number().int().min(1).max(10),
  TIME_FILTER: z.enum(['off', 'boost', 'filter']),
  TIME_WEIGHT: z.number().min(0).max(1.5),
  CONTEXT_NEIGHBOURS: z.number().int().min(0).max(3),
  EXPANDED_HITS: z.number().int().min(1).max(10),
  CONTEXT_ORDER: z.enum(['rank', 'time']),
  PACKING: z.enum(['skip', 'dedupe']),
});
export type Config = z.infer<typeof ConfigSchema>;
/** A knob's name. */
export type ConfigName = keyof Config;
export const CONFIG_NAMES = Object.keys(ConfigSchema.shape) as ConfigName[];

/** What the search needs to know about a knob beyond its schema. */
export interface FieldInfo {
  /** Failure categories it addresses, the first being the main one (as the code mutation catalog's operators do). */
  targets: readonly ConfigTarget[];
  /** Largest change one numeric mutation makes. */
  step?: number;
  doc: string;
  /** Whether the knob changes behaviour under a config (the fusion weight only matters for a hybrid retriever). */
  active?: (c: Config) => boolean;
}

const lexical = (c: Config) => c.RETRIEVER !== 'embedding';

export const CONFIG_FIELDS: Readonly<Record<ConfigName, FieldInfo>> = {
  UNIT_GRANULARITY: {
    targets: ['storage', 'retrieval'],
    doc:
      'what BM25 ranks a record by: itself, itself with ±WINDOW_RADIUS thread neighbours, ' +
      'or its session (records then ranked inside their session)',
  },
  WINDOW_RADIUS: {
    targets: ['storage', 'retrieval'],
    step: 1,
    doc: 'thread neighbours on each side indexed with a record (granularity window)',
    active: (c) => c.UNIT_GRANULARITY === 'window' && lexical(c),
  },
  SESSION_SIZE: {
    targets: ['storage', 'retrieval'],
    step: 15,
    doc: 'records per session (threads are split into chunks of this size)',
    active: (c) => lexical(c) && (c.UNIT_GRANULARITY === 'session' || c.SESSION_FUSION > 0),
  },
  RETRIEVER: { targets: ['retrieval'], doc: 'lexical BM25, dense embedding cosine (tools.embed), or both fused' },
  FUSION: {
    targets: ['retrieval'],
    doc: 'hybrid fusion: reciprocal rank fusion, or a weighted sum of max-normalised scores',
    active: (c) => c.RETRIEVER === 'hybrid',
  },
  EMBEDDING_WEIGHT: {
    targets: ['retrieval'],
    step: 0.2,
    doc: 'weight of the dense ranking in hybrid fusion (BM25 gets 1 − it)',
    active: (c) => c.RETRIEVER === 'hybrid',
  },
  RRF_K: { targets: ['retrieval'], step: 30, doc: 'RRF constant', active: (c) => c.RETRIEVER === 'hybrid' && c.FUSION === 'rrf' },
  TOP_K: { targets: ['retrieval'], step: 20, doc: 'records retrieved per question' },
  BM25_K1: { targets: ['retrieval'], step: 0.3, doc: 'BM25 term-frequency saturation', active: lexical },
  BM25_B: { targets: ['retrieval'], step: 0.15, doc: 'BM25 length normalisation', active: lexical },
  STEM: { targets: ['retrieval', 'storage'], doc: 'Porter-stem index and query terms', active: lexical },
  INDEX_DATES: { targets: ['storage', 'retrieval'], doc: "index the record's date words so dated questions match them", active: lexical },
  SESSION_FUSION: {
    targets: ['retrieval'],
    step: 0.3,
    doc: "weight of the record's session score fused into its own (0 = off)",
    active: (c) => c.UNIT_GRANULARITY !== 'session',
  },
  EXPANSION_TERMS: {
    targets: ['retrieval'],
    step: 3,
    doc: 'pseudo-relevance feedback terms added to the query (0 = off)',
    active: lexical,
  },
  EXPANSION_DOCS: {
    targets: ['retrieval'],
    step: 2,
    doc: 'first-round hits read for feedback terms',
    active: (c) => lexical(c) && c.EXPANSION_TERMS > 0,
  },
  TIME_FILTER: { targets: ['retrieval'], doc: 'month/year the question names: ignored, boosted, or a filter' },
  TIME_WEIGHT: {
    targets: ['retrieval'],
    step: 0.15,
    doc: 'time boost as a share of the top score',
    active: (c) => c.TIME_FILTER === 'boost',
  },
  CONTEXT_NEIGHBOURS: {
    targets: ['answering', 'retrieval'],
    step: 1,
    doc: 'thread neighbours delivered with each of the first hits (0 = off)',
  },
  EXPANDED_HITS: {
    targets: ['answering'],
    step: 2,
    doc: 'how many top hits bring their neighbours',
    active: (c) => c.CONTEXT_NEIGHBOURS > 0,
  },
  CONTEXT_ORDER: { targets: ['answering'], doc: 'order of the delivered records' },
  PACKING: { targets: ['answering'], doc: 'budget packing: skip what does not fit and go on; dedupe also skips repeated records' },
};

/** A knob's kind and range, read off its schema (the one place ranges are written). */
export function fieldSpec(name: ConfigName): FieldSpec {
  const schema = ConfigSchema.shape[name] as z.ZodType;
  if (schema instanceof z.ZodEnum) return { kind: 'enum', options: schema.options as string[] };
  if (schema instanceof z.ZodBoolean) return { kind: 'boolean' };
  const n = schema as z.ZodNumber;
  return { kind: n.isInt ? 'int' : 'number', min: n.minValue ?? 0, max: n.maxValue ?? 0, step: CONFIG_FIELDS[name].step ?? 1 };
}

/** A change to some knobs (what a config proposer returns); unknown names are rejected. */
export const ConfigChangeSchema = ConfigSchema.partial();
export type ConfigChange = z.infer<typeof ConfigChangeSchema>;

export function isConfigName(name: string): name is ConfigName {
  return Object.hasOwn(CONFIG_FIELDS, name);
}

/** Whether a knob changes behaviour under `config` (a knob of a feature that is off does not). */
export function isActive(name: ConfigName, config: Config): boolean {
  return CONFIG_FIELDS[name].active?.(config) ?? true;
}

// ──────────── reading a config off a design ────────────

interface ConfigSite {
  name: ConfigName;
  /** The literal's text span and line. */
  start: number;
  end: number;
  line: number;
  value: unknown;
}

/** Where each knob's literal is, and its value (undefined when the initializer is not a literal). */
function configSites(sf: SourceFile): { sites: ConfigSite[]; missing: ConfigName[] } {
  const names = topLevelNames(sf);
  const sites: ConfigSite[] = [];
  const missing: ConfigName[] = [];
  for (const name of CONFIG_NAMES) {
    const node = names.get(name);
    if (!node || !Node.isVariableDeclaration(node)) {
      missing.push(name);
      continue;
    }
    const lit = unwrapExpression(node.getInitializer());
    if (!lit) {
      missing.push(name);
      continue;
    }
    sites.push({ name, start: lit.getStart(), end: lit.getEnd(), line: lit.getStartLineNumber(), value: literalValue(lit) });
  }
  return { sites, missing };
}

function literalValue(n: Node): unknown {
  if (Node.isNumericLiteral(n)) return n.getLiteralValue();
  if (Node.isPrefixUnaryExpression(n) && Node.isNumericLiteral(n.getOperand())) {
    const v = (n.getOperand() as NumericLiteral).getLiteralValue();
    return n.getOperatorToken() === SyntaxKind.MinusToken ? -v : v;
  }
  if (Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n)) return n.getLiteralValue();
  if (Node.isTrueLiteral(n)) return true;
  if (Node.isFalseLiteral(n)) return false;
  return undefined;
}

/** The config a source declares, or undefined when it declares no valid one (a design outside the config space). */
export function declaredConfig(source: string): Config | undefined {
  return readSites(source).config;
}

/** Problems with the config a source declares, located on its lines (empty when it is a valid config). */
export function configProblems(source: string): CompileDiagnostic[] {
  return readSites(source).problems;
}

function readSites(source: string): { sites: ConfigSite[]; problems: CompileDiagnostic[]; config?: Config } {
  const { sites, missing } = configSites(parseSource(source, 'config'));
  const problems: CompileDiagnostic[] = missing.map((name) => ({
    line: 1,
    column: 1,
    code: 'config-missing',
    message: `${name} is not declared as a top-level const literal; a config-space design declares every knob (${CONFIG_NAMES.join(', ')})`,
  }));
  for (const s of sites) {
    const r = ConfigSchema.shape[s.name].safeParse(s.value);
    if (!r.success)
      problems.push({
        line: s.line,
        column: 1,
        code: 'config-range',
        message: `${s.name} = ${JSON.stringify(s.value) ?? 'not a literal'}: ${describeField(s.name)}`,
      });
  }
  if (problems.length) return { sites, problems };
  return { sites, problems, config: ConfigSchema.parse(Object.fromEntries(sites.map((s) => [s.name, s.value]))) };
}

/**
 * The config a design declares (its top-level constants, parsed with ts-morph, validated by {@link ConfigSchema}).
 * Throws a ConfigError naming the constant and line when one is missing or out of range.
 */
export function readConfig(source: string): Config {
  const r = readSites(source);
  if (!r.config) {
    const p = r.problems[0]!;
    throw new ConfigError(
      'E_CONFIG_SOURCE',
      `line ${p.line}: ${p.message}${r.problems.length > 1 ? ` (and ${r.problems.length - 1} more)` : ''}`,
    );
  }
  return r.config;
}

/** One line on what a knob accepts, for error messages and the LLM prompt. */
export function describeField(name: ConfigName): string {
  const s = fieldSpec(name);
  switch (s.kind) {
    case 'enum':
      return `one of ${s.options.map((o) => JSON.stringify(o)).join(' | ')}`;
    case 'boolean':
      return 'true or false';
    default:
      return `${s.kind === 'int' ? 'a whole number' : 'a number'} from ${s.min} to ${s.max}`;
  }
}

// ──────────── changes → edits ────────────

/** Validates a change against the schema; the issues name each offending knob and what it accepts. */
export function checkConfigChange(change: unknown): { ok: true; change: ConfigChange } | { ok: false; issues: string[] } {
  if (typeof change !== 'object' || change === null || Array.isArray(change))
    return { ok: false, issues: ['the change must be an object {NAME: value}'] };
  const issues: string[] = [];
  for (const [name, value] of Object.entries(change)) {
    if (!isConfigName(name)) issues.push(`${name} is not a config knob; knobs are ${CONFIG_NAMES.join(', ')}`);
    else if (!ConfigSchema.shape[name].safeParse(value).success)
      issues.push(`${name} = ${JSON.stringify(value)}: must be ${describeField(name)}`);
  }
  if (Object.keys(change).length === 0) issues.push('the change is empty: set at least one knob');
  if (issues.length) return { ok: false, issues };
  const r = ConfigChangeSchema.safeParse(change);
  return r.success ? { ok: true, change: r.data } : { ok: false, issues: [describeZodIssues(r.error.issues)] };
}

/** The set-constant edits of a change, validated against the schema first (ConfigError E_CONFIG_CHANGE when invalid). */
export function configEdits(change: ConfigChange | Record<string, unknown>): EditOp[] {
  const r = checkConfigChange(change);
  if (!r.ok) throw new ConfigError('E_CONFIG_CHANGE', `invalid config change: ${r.issues.join('; ')}`);
  return (Object.entries(r.change) as Array<[ConfigName, string | number | boolean]>).map(([name, value]) => ({
    op: 'set-constant',
    name,
    value,
  }));
}

/** The changed knobs between two configs. */
export function configDiff(from: Config, to: Config): ConfigChange {
  const out: Record<string, unknown> = {};
  for (const n of CONFIG_NAMES) if (from[n] !== to[n]) out[n] = to[n];
  return out as ConfigChange;
}

// ──────────── the config-space guard ────────────

/** The source with every knob's literal blanked: two designs with the same skeleton differ only in their config. */
function skeleton(source: string, sites: readonly ConfigSite[]): string {
  let out = source;
  for (const s of [...sites].sort((a, b) => b.start - a.start)) out = `${out.slice(0, s.start)}«${s.name}»${out.slice(s.end)}`;
  return out;
}

/**
 * Why a candidate is outside the config space of `seedSource`: it changed something other than a knob's value, or
 * a knob is out of range. Empty when the candidate is a valid config of the same design. Config search compiles
 * through this check, so whatever a proposer returns, every program in a config-space archive is the seed with
 * another config.
 */
export function configSpaceProblems(source: string, seedSource: string): CompileDiagnostic[] {
  const candidate = readSites(source);
  const problems = [...candidate.problems];
  const seed = readSites(seedSource);
  const a = skeleton(source, candidate.sites).split('\n');
  const b = skeleton(seedSource, seed.sites).split('\n');
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) continue;
    return [
      ...problems,
      {
        line: i + 1,
        column: 1,
        code: 'config-space',
        message:
          `config search may only change the values of ${CONFIG_NAMES.join(', ')}; ` +
          `line ${i + 1} changes code: ${JSON.stringify((a[i] ?? '').trim().slice(0, 120))}`,
      },
    ];
  }
  return problems;
}

/** Wraps a design compiler so that candidates outside the seed's config space fail with located diagnostics. */
export function configSpaceCompile(
  seedSource: string,
  compile: (source: string) => Promise<CompileResult>,
): (source: string) => Promise<CompileResult> {
  const seedProblems = configProblems(seedSource);
  if (seedProblems.length)
    throw new ConfigError(
      'E_CONFIG_SEED',
      `the seed is not a config-space design: line ${seedProblems[0]!.line}: ${seedProblems[0]!.message}; use seeds/configurable.ts`,
    );
  return async (source) => {
    const problems = configSpaceProblems(source, seedSource);
    if (problems.length) return { ok: false, diagnostics: problems, ms: 0 };
    return compile(source);
  };
}
