/**
 * One option table per command: each option is declared once (flags, zod schema with its default and bounds,
 * description, and what kind of path it names), and the commander flags, the help's defaults and choices, the
 * parsing of the text a user typed and the typed options object all come from that declaration.
 */
import { type Command, Option } from 'commander';
import type { z } from 'zod';
import { ConfigError } from '../errors.ts';
import type { PathRole } from './check-paths.ts';

/** One option of a command. */
export interface OptionSpec<S extends z.ZodType = z.ZodType> {
  /** Commander flags: `--context-budget <tokens>`, or `--offline` for a switch. */
  flags: string;
  description: string;
  /** The typed value, its default and its bounds. Text is turned into a number or a list first when the schema wants one. */
  schema: S;
  /** Text → value when the default conversion does not fit (e.g. `all` → null). */
  parse?: (text: string) => unknown;
  /**
   * A check beyond the schema that throws our own coded error (e.g. the grammar of `--select`), run when the
   * options are parsed, before any work.
   */
  check?: (value: z.output<S>) => void;
  /** The option names a path of this kind; checked before any work (see check-paths.ts). */
  path?: PathRole;
  /** Values that are not paths even though the option usually is one (`--questions official`). */
  notPaths?: readonly string[];
  /** Commander refuses the command without it. */
  required?: boolean;
}

/** A command's options by the name commander gives them (`--context-budget` → `contextBudget`). */
export type OptionTable = Record<string, OptionSpec>;

/** The typed options a table parses to. */
export type OptionsOf<T extends OptionTable> = { [K in keyof T]: z.output<T[K]['schema']> };

/** What may be passed in for a table: the typed value, or the text a user would type. */
export type OptionsInput<T extends OptionTable> = { [K in keyof T]?: z.output<T[K]['schema']> | string };

/** Declares a table with its keys and schemas kept literal, so `OptionsOf` sees each option's type. */
export function optionTable<T extends OptionTable>(table: T): T {
  return table;
}

/** Declares one option with its check typed by its schema. */
export function option<S extends z.ZodType>(spec: OptionSpec<S>): OptionSpec<S> {
  return spec;
}

/** The long flag of a spec without its argument: `--context-budget`. */
export function flagName(spec: Pick<OptionSpec, 'flags'>): string {
  return spec.flags.split(/[ ,|]+/).find((f) => f.startsWith('--')) ?? spec.flags;
}

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  checks?: Array<{ _zod: { def: { check: string; value?: number; inclusive?: boolean; format?: string; minimum?: number } } }>;
  entries?: Record<string, string>;
}

const def = (s: z.ZodType): ZodDef => (s as unknown as { _zod: { def: ZodDef } })._zod.def;

/** The schema under default/optional/nullable wrappers: what a given value is checked against. */
function core(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const d = def(s);
    if ((d.type === 'default' || d.type === 'optional' || d.type === 'nullable' || d.type === 'prefault') && d.innerType) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else return s;
  }
}

/** The choices of an enum option, for commander's `choices` and the help text. */
export function choicesOf(schema: z.ZodType): string[] | undefined {
  const c = core(schema);
  const d = def(c);
  return d.type === 'enum' && d.entries ? Object.values(d.entries) : undefined;
}

/** What a number schema accepts, in words: "a whole number from 1 to 100000". */
function describeNumber(schema: z.ZodType): string {
  let lo: { value: number; inclusive: boolean } | undefined;
  let hi: { value: number; inclusive: boolean } | undefined;
  let whole = false;
  for (const c of def(schema).checks ?? []) {
    const d = c._zod.def;
    if (d.check === 'number_format' && (d.format === 'safeint' || d.format === 'int32')) whole = true;
    if (d.check === 'greater_than' && d.value !== undefined) lo = { value: d.value, inclusive: Boolean(d.inclusive) };
    if (d.check === 'less_than' && d.value !== undefined) hi = { value: d.value, inclusive: Boolean(d.inclusive) };
  }
  const what = whole ? 'a whole number' : 'a number';
  if (whole && lo && !lo.inclusive) lo = { value: lo.value + 1, inclusive: true };
  if (whole && hi && !hi.inclusive) hi = { value: hi.value - 1, inclusive: true };
  if (lo && hi && lo.inclusive && hi.inclusive) return `${what} from ${lo.value} to ${hi.value}`;
  const parts = [lo && `${lo.inclusive ? '≥' : '>'} ${lo.value}`, hi && `${hi.inclusive ? '≤' : '<'} ${hi.value}`].filter(Boolean);
  return parts.length ? `${what} ${parts.join(' and ')}` : what;
}

/** Strict text → number: `Number('')` is 0 and `Number(' ')` too, which a user never means. */
export function toNumber(text: string): number {
  const t = text.trim();
  return t === '' ? Number.NaN : Number(t);
}

/** Text a user typed → the value the schema checks: a number, a comma list (of numbers), or the text itself. */
function fromText(spec: OptionSpec, text: string): unknown {
  if (spec.parse) return spec.parse(text);
  const c = core(spec.schema);
  const d = def(c);
  if (d.type === 'number') return toNumber(text);
  if (d.type === 'array' && d.element) {
    const items = text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return def(core(d.element)).type === 'number' ? items.map(toNumber) : items;
  }
  return text;
}

/** What the option accepts (and, for a list, which items are not accepted), for an error message. */
function expected(spec: OptionSpec, given: unknown): string {
  const c = core(spec.schema);
  const d = def(c);
  const choices = choicesOf(c);
  if (choices) return `expected one of ${choices.join(', ')}`;
  if (d.type === 'number') return `expected ${describeNumber(c)}`;
  if (d.type !== 'array' || !d.element) return '';
  const element = core(d.element);
  // "1" for a list of at least two is a list of whole numbers: say the count, or the message names the wrong fault.
  const min = (d.checks ?? []).map((x) => x._zod.def).find((x) => x.check === 'min_length')?.minimum;
  const count = min && min > 1 ? `${min} or more ` : '';
  if (def(element).type === 'number') return `expected a comma-separated list of ${count}${describeNumber(element).replace(/^a /, '')}s`;
  const allowed = choicesOf(element);
  if (!allowed) return '';
  const unknown = Array.isArray(given) ? given.filter((x) => !allowed.includes(String(x))) : [];
  const which = unknown.length ? `unknown ${unknown.map((x) => JSON.stringify(x)).join(', ')}; ` : '';
  return `${which}expected a comma-separated list of ${allowed.join(', ')}`;
}

/** Parses one option's value (text or typed) into its typed value; a value outside the schema is a coded error. */
export function parseOption<S extends z.ZodType>(spec: OptionSpec<S>, value: unknown): z.output<S> {
  const given = typeof value === 'string' ? fromText(spec, value) : value;
  const r = spec.schema.safeParse(given);
  if (!r.success && value === undefined) throw new ConfigError('E_MISSING_FLAG', `${flagName(spec)} is required: ${spec.description}`);
  if (!r.success) {
    const why = expected(spec, given) || r.error.issues[0]?.message || 'invalid value';
    throw new ConfigError('E_BAD_FLAG', `${flagName(spec)} ${JSON.stringify(value)}: ${why}`);
  }
  spec.check?.(r.data);
  return r.data;
}

/** Parses every option of a table (missing ones take their defaults) into the typed options object. */
export function parseOptions<T extends OptionTable>(table: T, raw: OptionsInput<T> | Record<string, unknown>): OptionsOf<T> {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(table)) out[key] = parseOption(spec, (raw as Record<string, unknown>)[key]);
  return out as OptionsOf<T>;
}

/**
 * Adds a table's options to a commander command. The default commander shows in the help and hands back when the
 * flag is absent is the schema's own default (a typed value passes through the schema unchanged).
 */
export function addOptions(command: Command, table: OptionTable): Command {
  for (const [key, spec] of Object.entries(table)) {
    const option = new Option(spec.flags, spec.description);
    if (option.attributeName() !== key) throw new Error(`option table: ${spec.flags} is stored as ${option.attributeName()}, not ${key}`);
    const choices = choicesOf(spec.schema);
    if (choices) option.choices(choices);
    const d = spec.schema.safeParse(undefined);
    if (d.success && d.data !== undefined && d.data !== null && d.data !== false && !(Array.isArray(d.data) && d.data.length === 0))
      option.default(d.data, Array.isArray(d.data) ? d.data.join(',') : String(d.data));
    if (spec.required) option.makeOptionMandatory();
    command.addOption(option);
  }
  return command;
}
