import { z } from 'zod';

/**
 * The edit operations a proposer (LLM or offline) emits to turn a parent design into a candidate. They are
 * deliberately coarse — whole functions, whole stages, named constants — so an LLM can produce them reliably and a
 * failed edit can be reported back by name.
 */

/** The three stages of a design, as in the contract's MemoryDesign. */
export const StageName = z.enum(['store', 'retrieve', 'context']);
export type StageName = z.infer<typeof StageName>;

/** A constant's new value: a JSON literal (number, string, boolean, or an array of those). */
export type LiteralValue = number | string | boolean | LiteralValue[];
export const LiteralValueSchema: z.ZodType<LiteralValue> = z.lazy(() =>
  z.union([z.number().finite(), z.string(), z.boolean(), z.array(LiteralValueSchema)]),
);

const Identifier = z
  .string()
  .regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/, 'must be a plain identifier')
  .describe('name of a top-level declaration in the design');
const Code = z.string().min(1).max(40_000).describe('TypeScript source');

export const ReplaceFunctionSchema = z.object({
  op: z.literal('replace-function'),
  name: Identifier,
  code: Code.describe(
    'the full new function: a function declaration, `const name = (...) => ...`, ' +
      'or a method `name(...) { ... }` for store/retrieve/context',
  ),
});
export const AddHelperSchema = z.object({
  op: z.literal('add-helper'),
  code: Code.describe('one or more new top-level declarations (function, const, type, interface); names must be new; no imports'),
});
export const RemoveHelperSchema = z.object({
  op: z.literal('remove-helper'),
  name: Identifier,
});
export const SetConstantSchema = z.object({
  op: z.literal('set-constant'),
  name: Identifier.describe('a top-level `const NAME = <literal>`'),
  value: LiteralValueSchema.describe('the new value, same kind as the old one (number, string, boolean or array)'),
});
export const ReplaceStageSchema = z.object({
  op: z.literal('replace-stage'),
  stage: StageName,
  code: Code.describe('the stage in full, e.g. `retrieve(q, memory, tools) { ... }`; parameters as in MemoryDesign'),
});

/**
 * Replaces one expression inside a function, located by the function's name and a path from the function node
 * (child indices as ts-morph's `forEachChildAsArray` lists them), guarded by the text expected there. Without a path
 * the expected text must occur exactly once in the function. Structural search (AST mutation) speaks in these, so a
 * mutation is a typed, replayable edit and not a raw offset into one particular source.
 */
export const ReplaceExpressionSchema = z.object({
  op: z.literal('replace-expression'),
  name: Identifier.describe('the top-level function or stage (store, retrieve, context) that contains the expression'),
  path: z
    .array(z.number().int().nonnegative())
    .min(1)
    .max(128)
    .optional()
    .describe('child indices from the function node down to the expression; omit to locate it by `expect` alone'),
  expect: z.string().min(1).max(4_000).describe('the expression as it reads now (whitespace is ignored)'),
  code: z.string().min(1).max(4_000).describe('the new expression'),
});

/** One edit operation. */
export const EditOpSchema = z.discriminatedUnion('op', [
  ReplaceFunctionSchema,
  AddHelperSchema,
  RemoveHelperSchema,
  SetConstantSchema,
  ReplaceStageSchema,
  ReplaceExpressionSchema,
]);
export type EditOp = z.infer<typeof EditOpSchema>;
export type EditOpKind = EditOp['op'];

/** An ordered list of edits; each sees the result of the ones before it. */
export const EditListSchema = z.array(EditOpSchema).min(1).max(32);

/** Stable codes of edits that do not apply. Tests, the repair prompt and the archive match on them. */
export const EditErrorCode = {
  /** The edit is not a valid edit object (shape, unknown op). */
  invalid: 'E_EDIT_INVALID',
  /** No top-level declaration (or stage) by that name. */
  unknownName: 'E_EDIT_UNKNOWN_NAME',
  /** add-helper declares a name that exists already (or twice). */
  duplicateName: 'E_EDIT_DUPLICATE_NAME',
  /** set-constant on something that is not `const NAME = <literal>`, or a value that is not a literal. */
  notLiteral: 'E_EDIT_NOT_LITERAL',
  /** set-constant changes the kind of a literal (number → string…). */
  literalKind: 'E_EDIT_LITERAL_KIND',
  /** A stage's parameters do not match MemoryDesign, or the code is another stage. */
  stageContract: 'E_EDIT_STAGE_CONTRACT',
  /** The code in the edit does not parse. */
  parse: 'E_EDIT_PARSE',
  /** replace-function / replace-stage code is not exactly one function, or declares another name. */
  notFunction: 'E_EDIT_NOT_FUNCTION',
  /** add-helper code has imports, exports or statements other than declarations. */
  notAllowed: 'E_EDIT_NOT_ALLOWED',
  /** remove-helper leaves references to the removed name. */
  stillReferenced: 'E_EDIT_STILL_REFERENCED',
  /** The parent source has no `export default { store, retrieve, context }` object to edit a stage of. */
  noDesign: 'E_EDIT_NO_DESIGN',
  /** replace-expression: the path or the expected text does not locate exactly one expression of the function. */
  noExpression: 'E_EDIT_NO_EXPRESSION',
  /** The parent source itself does not parse (reported with edit index -1). */
  sourceParse: 'E_EDIT_SOURCE_PARSE',
} as const;
export type EditErrorCode = (typeof EditErrorCode)[keyof typeof EditErrorCode];

/** Why one edit did not apply. `edit` is its index in the list (-1: the parent source itself). */
export const EditErrorSchema = z.object({
  edit: z.number().int().min(-1),
  code: z.enum(Object.values(EditErrorCode) as [EditErrorCode, ...EditErrorCode[]]),
  message: z.string(),
});
export type EditError = z.infer<typeof EditErrorSchema>;

/** What an applied edit did, for the log and the archive. */
export const AppliedEditSchema = z.object({
  edit: z.number().int().nonnegative(),
  op: z.enum(['replace-function', 'add-helper', 'remove-helper', 'set-constant', 'replace-stage', 'replace-expression']),
  /** Names the edit touched. */
  targets: z.array(z.string()),
  summary: z.string(),
});
export type AppliedEdit = z.infer<typeof AppliedEditSchema>;

/**
 * Parameter names of each stage, in order, as declared by MemoryDesign in sandbox/contract.ts (a test checks the
 * two agree). A stage may take fewer parameters, never more, and may not move a name to another position.
 */
export const STAGE_PARAMETERS: Readonly<Record<StageName, readonly string[]>> = {
  store: ['records', 'tools'],
  retrieve: ['q', 'memory', 'tools'],
  context: ['q', 'hits', 'memory', 'tools', 'budget'],
};

/** Validates a proposer's raw edit list; errors carry the index of the offending edit. */
export function parseEdits(raw: unknown): { ok: true; edits: EditOp[] } | { ok: false; errors: EditError[] } {
  if (!Array.isArray(raw)) {
    return { ok: false, errors: [{ edit: -1, code: EditErrorCode.invalid, message: 'edits must be a JSON array of edit objects' }] };
  }
  if (raw.length === 0) return { ok: false, errors: [{ edit: -1, code: EditErrorCode.invalid, message: 'no edits given' }] };
  const edits: EditOp[] = [];
  const errors: EditError[] = [];
  raw.forEach((item, i) => {
    const r = EditOpSchema.safeParse(item);
    if (r.success) edits.push(r.data);
    else errors.push(describeInvalid(i, item, r.error.issues));
  });
  return errors.length ? { ok: false, errors } : { ok: true, edits };
}

/** Maps a zod failure on one edit to our error codes (a non-literal constant value gets its own code). */
export function describeInvalid(
  index: number,
  item: unknown,
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): EditError {
  const op = typeof item === 'object' && item !== null ? (item as { op?: unknown }).op : undefined;
  if (op === 'set-constant' && issues.some((i) => i.path[0] === 'value')) {
    return {
      edit: index,
      code: EditErrorCode.notLiteral,
      message: `edit ${index} (set-constant): value must be a JSON literal — a number, string, boolean or array of those`,
    };
  }
  const where = issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(edit)'}: ${i.message}`)
    .join('; ');
  return {
    edit: index,
    code: EditErrorCode.invalid,
    message:
      `edit ${index}${typeof op === 'string' ? ` (${op})` : ''}: ${where}; ` +
      'ops are replace-function, add-helper, remove-helper, set-constant, replace-stage, replace-expression',
  };
}
