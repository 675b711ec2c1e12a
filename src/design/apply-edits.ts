import { Node, SyntaxKind } from 'ts-morph';
import type { SourceFile } from 'ts-morph';
import {
  EditErrorCode,
  EditOpSchema,
  STAGE_PARAMETERS,
  StageName,
  describeInvalid,
  type AppliedEdit,
  type EditError,
  type EditOp,
  type LiteralValue,
} from './edit-ops.ts';
import {
  designStatement,
  findDesignObject,
  findStage,
  findTopLevelFunction,
  indentAt,
  isConstStatement,
  parseSource,
  referenceLines,
  reindent,
  syntaxErrors,
  topLevelDeclarations,
  topLevelNames,
  unwrapExpression,
  type FunctionLike,
  type FunctionSite,
} from './design-source.ts';

/** Result of {@link applyEdits}. On failure `applied` lists the edits that did go through (for the record). */
export type ApplyResult = { ok: true; source: string; applied: AppliedEdit[] } | { ok: false; errors: EditError[]; applied: AppliedEdit[] };

class EditFailure extends Error {
  constructor(
    readonly code: EditError['code'],
    message: string,
  ) {
    super(message);
  }
}

const fail = (code: EditError['code'], message: string): never => {
  throw new EditFailure(code, message);
};

/**
 * Applies edit operations, in order, to a design's source. Every edit is attempted even after one fails, so the
 * proposer learns about all its mistakes in one round; the result is ok only when all applied. Whether a helper is
 * still referenced is checked after the last edit (a later edit may remove the last use). Type errors are not
 * checked here: see {@link applyAndCheck}.
 */
export function applyEdits(source: string, edits: readonly unknown[]): ApplyResult {
  const sourceProblems = syntaxErrors(source);
  if (sourceProblems.length) {
    const p = sourceProblems[0]!;
    return {
      ok: false,
      applied: [],
      errors: [
        { edit: -1, code: EditErrorCode.sourceParse, message: `parent design does not parse: line ${p.line}:${p.column}: ${p.message}` },
      ],
    };
  }
  let text = source;
  const applied: AppliedEdit[] = [];
  const errors: EditError[] = [];
  const removed = new Map<string, number>();
  edits.forEach((raw, index) => {
    const parsed = EditOpSchema.safeParse(raw);
    if (!parsed.success) {
      errors.push(describeInvalid(index, raw, parsed.error.issues));
      return;
    }
    const edit = parsed.data;
    try {
      const r = applyOne(text, edit, index);
      text = r.text;
      applied.push(r.applied);
      if (edit.op === 'remove-helper') removed.set(edit.name, index);
    } catch (err) {
      if (!(err instanceof EditFailure)) throw err;
      errors.push({ edit: index, code: err.code, message: `edit ${index} (${edit.op}): ${err.message}` });
    }
  });
  if (removed.size) {
    const sf = parseSource(text);
    const declared = topLevelNames(sf);
    for (const [name, index] of removed) {
      if (declared.has(name)) continue; // re-declared by a later add-helper: a replacement, not a dangling use
      const lines = referenceLines(sf, name);
      if (lines.length) {
        errors.push({
          edit: index,
          code: EditErrorCode.stillReferenced,
          message:
            `edit ${index} (remove-helper): ${name} is still used on line${lines.length > 1 ? 's' : ''} ${lines.join(', ')} ` +
            'of the edited design; replace those uses first',
        });
      }
    }
  }
  return errors.length ? { ok: false, errors: errors.sort((a, b) => a.edit - b.edit), applied } : { ok: true, source: text, applied };
}

function applyOne(text: string, edit: EditOp, index: number): { text: string; applied: AppliedEdit } {
  const sf = parseSource(text);
  switch (edit.op) {
    case 'replace-function': {
      const top = findTopLevelFunction(sf, edit.name);
      // A top-level function the design object names as a stage gets the stage's contract check too.
      const stage = top
        ? StageName.options.find((s) => {
            const st = findStage(sf, s);
            return st !== undefined && st.kind === top.kind && st.name === top.name;
          })
        : undefined;
      const site = top ? (stage ? { ...top, stage } : top) : isStage(edit.name) ? findStage(sf, edit.name) : undefined;
      if (!site) {
        const fns = functionNames(sf);
        fail(EditErrorCode.unknownName, `no top-level function or stage named ${edit.name}; functions are: ${fns.join(', ') || '(none)'}`);
      }
      const out = replaceFunction(text, site!, edit.code, edit.name);
      return { text: out, applied: { edit: index, op: edit.op, targets: [edit.name], summary: `replaced function ${edit.name}` } };
    }
    case 'replace-stage': {
      if (!findDesignObject(sf)) fail(EditErrorCode.noDesign, 'the design has no `export default { store, retrieve, context }` object');
      const site = findStage(sf, edit.stage);
      if (!site) fail(EditErrorCode.unknownName, `the design object has no ${edit.stage} stage implemented as a method or function`);
      const out = replaceFunction(text, site!, edit.code, edit.stage);
      return { text: out, applied: { edit: index, op: edit.op, targets: [edit.stage], summary: `replaced stage ${edit.stage}` } };
    }
    case 'add-helper':
      return addHelper(text, sf, edit.code, index);
    case 'remove-helper':
      return removeHelper(sf, edit.name, index);
    case 'set-constant':
      return setConstant(text, sf, edit.name, edit.value, index);
    case 'replace-expression':
      return replaceExpression(text, sf, edit, index);
  }
}

function isStage(name: string): name is StageName {
  return StageName.safeParse(name).success;
}

function functionNames(sf: SourceFile): string[] {
  const names = [...topLevelNames(sf).keys()].filter((n) => findTopLevelFunction(sf, n));
  const obj = findDesignObject(sf);
  for (const s of StageName.options) if (obj?.getProperty(s)) names.push(s);
  return [...new Set(names)];
}

// ---------------------------------------------------------------- functions and stages

/** The pieces of a function, independent of the syntax it was written in. */
interface FunctionParts {
  name: string | undefined;
  isAsync: boolean;
  isGenerator: boolean;
  typeParameters: string;
  parameters: Array<{ text: string; name: string | undefined }>;
  returnType: string | undefined;
  body: string;
  expressionBody: boolean;
  leadingComment: string;
}

function partsOf(node: FunctionLike, name: string | undefined, leadingComment: string): FunctionParts {
  const body = node.getBody();
  if (!body) fail(EditErrorCode.notFunction, 'the function has no body');
  const tps = node.getTypeParameters();
  return {
    name,
    isAsync: node.isAsync(),
    isGenerator: Node.isArrowFunction(node) ? false : node.isGenerator(),
    typeParameters: tps.length ? `<${tps.map((t) => t.getText()).join(', ')}>` : '',
    parameters: node.getParameters().map((p) => {
      const n = p.getNameNode();
      return { text: p.getText(), name: Node.isIdentifier(n) ? n.getText() : undefined };
    }),
    returnType: node.getReturnTypeNode()?.getText(),
    body: body!.getText(),
    expressionBody: !Node.isBlock(body!),
    leadingComment,
  };
}

function leadingCommentOf(node: Node): string {
  return node.getSourceFile().getFullText().slice(node.getPos(), node.getStart(false)).trim();
}

/**
 * Reads replacement code written as a function declaration, a `const f = (…) => …`, a bare function expression or
 * an object method (`retrieve(q, memory, tools) { … }`).
 */
function parseFunctionCode(code: string): FunctionParts {
  const trimmed = code.trim();
  const direct = syntaxErrors(trimmed);
  if (!direct.length) {
    const sf = parseSource(trimmed, 'edit');
    const sts = sf.getStatements();
    if (sts.length !== 1) {
      fail(
        EditErrorCode.notFunction,
        `code must be exactly one function, found ${sts.length} statements (add other helpers with add-helper)`,
      );
    }
    const st = sts[0]!;
    const comment = leadingCommentOf(st);
    if (Node.isFunctionDeclaration(st)) return partsOf(st, st.getName(), comment);
    if (Node.isVariableStatement(st) && st.getDeclarations().length === 1) {
      const d = st.getDeclarations()[0]!;
      const init = unwrapExpression(d.getInitializer());
      if (init && (Node.isArrowFunction(init) || Node.isFunctionExpression(init))) return partsOf(init, d.getName(), comment);
    }
    if (Node.isExpressionStatement(st)) {
      const e = unwrapExpression(st.getExpression());
      if (e && (Node.isArrowFunction(e) || Node.isFunctionExpression(e)))
        return partsOf(e, Node.isFunctionExpression(e) ? e.getName() : undefined, comment);
    }
    const shapes = ['`function name(…) {…}`', '`const name = (…) => …`'].join(', ');
    fail(EditErrorCode.notFunction, `code must be one function: ${shapes} or a method \`name(…) {…}\``);
  }
  // A method is not a statement: read it as the only member of an object literal.
  const wrapped = `const __edit = {\n${trimmed}\n};`;
  if (!syntaxErrors(wrapped).length) {
    const sf = parseSource(wrapped, 'edit');
    const obj = unwrapExpression(sf.getVariableDeclarationOrThrow('__edit').getInitializer());
    const props = obj && Node.isObjectLiteralExpression(obj) ? obj.getProperties() : [];
    if (props.length === 1) {
      const p = props[0]!;
      if (Node.isMethodDeclaration(p)) return partsOf(p, p.getName(), leadingCommentOf(p));
      if (Node.isPropertyAssignment(p)) {
        const init = unwrapExpression(p.getInitializer());
        if (init && (Node.isArrowFunction(init) || Node.isFunctionExpression(init))) return partsOf(init, p.getName(), leadingCommentOf(p));
      }
    }
    fail(EditErrorCode.notFunction, 'code must be one function or method');
  }
  // Report the reading that got further: a method with a typo fails late as a member, early as a statement.
  const asMember = syntaxErrors(wrapped).map((e) => ({ ...e, line: e.line - 1 }));
  const d = direct[0]!;
  const m = asMember[0];
  const p = m && (m.line > d.line || (m.line === d.line && m.column > d.column)) ? m : d;
  return fail(EditErrorCode.parse, `code does not parse: line ${p.line}:${p.column}: ${p.message}`);
}

function checkStageContract(stage: StageName, parts: FunctionParts): void {
  const expected = STAGE_PARAMETERS[stage];
  const signature = `${stage}(${expected.join(', ')})`;
  if (parts.name && parts.name !== stage && isStage(parts.name)) {
    fail(EditErrorCode.stageContract, `code is the ${parts.name} stage, not ${stage}; the contract's signature is ${signature}`);
  }
  if (parts.isGenerator) fail(EditErrorCode.stageContract, `${stage} cannot be a generator; the contract's signature is ${signature}`);
  if (parts.parameters.length > expected.length) {
    fail(
      EditErrorCode.stageContract,
      `${stage} takes ${parts.parameters.length} parameters but the contract passes ${expected.length}: ${signature}`,
    );
  }
  parts.parameters.forEach((p, i) => {
    if (p.text.startsWith('...'))
      fail(EditErrorCode.stageContract, `${stage} must list its parameters, not use a rest parameter: ${signature}`);
    const j = p.name === undefined ? -1 : expected.indexOf(p.name);
    if (j >= 0 && j !== i) {
      fail(
        EditErrorCode.stageContract,
        `${stage}'s parameter ${i + 1} is named ${p.name}, which the contract passes as parameter ${j + 1}: ${signature}`,
      );
    }
  });
}

function blockBody(parts: FunctionParts): string {
  return parts.expressionBody ? `{\n  return ${parts.body};\n}` : parts.body;
}

function signature(parts: FunctionParts): string {
  return `${parts.typeParameters}(${parts.parameters.map((p) => p.text).join(', ')})${parts.returnType ? `: ${parts.returnType}` : ''}`;
}

function render(parts: FunctionParts, site: FunctionSite, name: string): string {
  const asyncKw = parts.isAsync ? 'async ' : '';
  switch (site.kind) {
    case 'method':
      return `${asyncKw}${parts.isGenerator ? '*' : ''}${name}${signature(parts)} ${blockBody(parts)}`;
    case 'declaration': {
      const mods = site.node
        .getModifiers()
        .map((m) => m.getText())
        .filter((m) => m === 'export' || m === 'default');
      const keywords = `${mods.map((m) => `${m} `).join('')}${asyncKw}function${parts.isGenerator ? '*' : ''}`;
      return `${keywords} ${name}${signature(parts)} ${blockBody(parts)}`;
    }
    case 'property':
    case 'const':
      if (parts.isGenerator || Node.isFunctionExpression(site.node)) {
        return `${asyncKw}function${parts.isGenerator ? '*' : ''}${signature(parts)} ${blockBody(parts)}`;
      }
      return `${asyncKw}${signature(parts)} => ${parts.body}`;
  }
}

function replaceFunction(text: string, site: FunctionSite, code: string, name: string): string {
  const parts = parseFunctionCode(code);
  if (site.stage) checkStageContract(site.stage, parts);
  else if (parts.name && parts.name !== name) {
    fail(
      EditErrorCode.notFunction,
      `code declares ${parts.name} but the edit replaces ${name}; keep the name (use add-helper for a new function)`,
    );
  }
  // A stage's code may be named after the stage or the helper implementing it; the existing name is kept.
  const keptName = site.kind === 'declaration' || site.kind === 'const' ? site.name : name;
  const rendered = render(parts, site, keptName);
  const node = site.node;
  // Methods and declarations are replaced whole; function expressions only as the initializer, keeping the
  // `const name: Type =` or `retrieve:` around them.
  const withComment = parts.leadingComment && (site.kind === 'method' || site.kind === 'declaration');
  const start = withComment ? node.getStart(true) : node.getStart(false);
  const indent = indentAt(text, start);
  const body = reindent(withComment ? `${parts.leadingComment}\n${rendered}` : rendered, indent);
  return text.slice(0, start) + body + text.slice(node.getEnd());
}

// ---------------------------------------------------------------- helpers

function addHelper(text: string, sf: SourceFile, code: string, index: number): { text: string; applied: AppliedEdit } {
  const trimmed = code.trim();
  const problems = syntaxErrors(trimmed);
  if (problems.length) {
    const p = problems[0]!;
    fail(EditErrorCode.parse, `code does not parse: line ${p.line}:${p.column}: ${p.message}`);
  }
  const helper = parseSource(trimmed, 'edit');
  const existing = topLevelNames(sf);
  const declared: string[] = [];
  const statements = helper.getStatements();
  if (!statements.length) fail(EditErrorCode.notAllowed, 'code declares nothing');
  for (const st of statements) {
    if (Node.isImportDeclaration(st) || Node.isExportAssignment(st) || Node.isExportDeclaration(st)) {
      fail(
        EditErrorCode.notAllowed,
        'helpers cannot import or export; a design may import only types from the contract, and those are already imported',
      );
    }
    const isDecl =
      Node.isFunctionDeclaration(st) ||
      Node.isVariableStatement(st) ||
      Node.isTypeAliasDeclaration(st) ||
      Node.isInterfaceDeclaration(st) ||
      Node.isClassDeclaration(st);
    if (!isDecl)
      fail(
        EditErrorCode.notAllowed,
        `line ${st.getStartLineNumber()}: helpers are declarations (function, const, type, interface), not statements that run`,
      );
    if (Node.isModifierable(st) && st.getModifiers().some((m) => m.getKind() === SyntaxKind.ExportKeyword)) {
      fail(EditErrorCode.notAllowed, 'helpers are private to the design: drop `export`');
    }
    if (Node.isFunctionDeclaration(st) && !st.hasBody()) fail(EditErrorCode.notAllowed, `function ${st.getName() ?? ''} has no body`);
  }
  for (const [name] of topLevelDeclarations(helper)) {
    if (existing.has(name) || declared.includes(name)) {
      fail(EditErrorCode.duplicateName, `${name} already exists in the design; pick a new name or use replace-function / set-constant`);
    }
    declared.push(name);
  }
  if (!declared.length) fail(EditErrorCode.notAllowed, 'code declares no named helper');
  // Before the design object, so `const` helpers are initialised before anything at the top level could use them.
  const anchor = designStatement(sf);
  let out: string;
  if (anchor && anchor.getPos() > 0) out = `${text.slice(0, anchor.getPos())}\n\n${trimmed}${text.slice(anchor.getPos())}`;
  else if (anchor) out = `${trimmed}\n\n${text}`;
  else out = `${text.replace(/\s*$/, '')}\n\n${trimmed}\n`;
  return { text: out, applied: { edit: index, op: 'add-helper', targets: declared, summary: `added ${declared.join(', ')}` } };
}

function removeHelper(sf: SourceFile, name: string, index: number): { text: string; applied: AppliedEdit } {
  if (isStage(name) && findDesignObject(sf)?.getProperty(name) && !topLevelNames(sf).has(name)) {
    fail(EditErrorCode.stageContract, `${name} is a stage of the design and cannot be removed; use replace-stage`);
  }
  const node = topLevelNames(sf).get(name);
  if (!node || Node.isImportDeclaration(node)) {
    fail(EditErrorCode.unknownName, `no top-level helper named ${name}`);
  }
  const obj = findDesignObject(sf);
  for (const s of StageName.options) {
    const site = findStage(sf, s);
    if (site && (site.kind === 'declaration' || site.kind === 'const') && site.name === name) {
      fail(EditErrorCode.stageContract, `${name} implements the ${s} stage and cannot be removed; use replace-stage`);
    }
  }
  if (obj && node!.getFirstAncestor((a) => a === obj))
    fail(EditErrorCode.unknownName, `${name} is part of the design object, not a helper`);
  if (Node.isVariableDeclaration(node!)) {
    const st = node.getVariableStatementOrThrow();
    if (st.getDeclarations().length === 1) st.remove();
    else node.remove();
  } else {
    (node as Node & { remove(): void }).remove();
  }
  return { text: sf.getFullText(), applied: { edit: index, op: 'remove-helper', targets: [name], summary: `removed ${name}` } };
}

// ---------------------------------------------------------------- constants

type LiteralKind = 'number' | 'string' | 'boolean' | 'array';

/** The kind of a literal initializer, or undefined when it is not a plain literal. */
function literalKind(node: Node | undefined): LiteralKind | undefined {
  const n = unwrapExpression(node);
  if (!n) return undefined;
  if (Node.isNumericLiteral(n)) return 'number';
  if (Node.isPrefixUnaryExpression(n)) {
    const op = n.getOperatorToken();
    return (op === SyntaxKind.MinusToken || op === SyntaxKind.PlusToken) && Node.isNumericLiteral(n.getOperand()) ? 'number' : undefined;
  }
  if (Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n)) return 'string';
  if (Node.isTrueLiteral(n) || Node.isFalseLiteral(n)) return 'boolean';
  if (Node.isArrayLiteralExpression(n)) return n.getElements().every((e) => literalKind(e) !== undefined) ? 'array' : undefined;
  return undefined;
}

function valueKind(v: LiteralValue): LiteralKind {
  return Array.isArray(v) ? 'array' : (typeof v as LiteralKind);
}

function elementKinds(node: Node): Set<LiteralKind> {
  const n = unwrapExpression(node)!;
  return new Set(Node.isArrayLiteralExpression(n) ? n.getElements().map((e) => literalKind(e)!) : []);
}

function setConstant(
  text: string,
  sf: SourceFile,
  name: string,
  value: LiteralValue,
  index: number,
): { text: string; applied: AppliedEdit } {
  const node = topLevelNames(sf).get(name);
  if (node && !Node.isVariableDeclaration(node)) {
    fail(
      EditErrorCode.notLiteral,
      `${name} is a ${node
        .getKindName()
        .replace(/Declaration$/, '')
        .toLowerCase()} declaration, not a const literal`,
    );
  }
  if (!node || !Node.isVariableDeclaration(node)) {
    const consts = [...topLevelNames(sf)]
      .filter(([, n]) => Node.isVariableDeclaration(n) && isConstStatement(n) && literalKind(n.getInitializer()))
      .map(([k]) => k);
    fail(EditErrorCode.unknownName, `no top-level constant named ${name}; constants are: ${consts.join(', ') || '(none)'}`);
  }
  const decl = node as import('ts-morph').VariableDeclaration;
  if (!isConstStatement(decl)) fail(EditErrorCode.notLiteral, `${name} is not declared with const`);
  const init = decl.getInitializer();
  const kind = literalKind(init);
  if (!kind)
    fail(
      EditErrorCode.notLiteral,
      `${name} is not set to a literal (${init?.getText().slice(0, 60) ?? 'no initializer'}); ` +
        'change it with replace-function or add-helper instead',
    );
  if (kind !== valueKind(value)) fail(EditErrorCode.literalKind, `${name} is a ${kind}; the new value is a ${valueKind(value)}`);
  if (kind === 'array') {
    const old = elementKinds(init!);
    const next = new Set((value as LiteralValue[]).map(valueKind));
    if (old.size === 1 && next.size > 0 && (next.size > 1 || !old.has([...next][0]!))) {
      fail(EditErrorCode.literalKind, `${name} is an array of ${[...old][0]}s; the new value has ${[...next].join(', ')} elements`);
    }
  }
  const literal = unwrapExpression(init)!;
  const before = literal.getText();
  const after = JSON.stringify(value);
  const out = text.slice(0, literal.getStart()) + after + text.slice(literal.getEnd());
  return { text: out, applied: { edit: index, op: 'set-constant', targets: [name], summary: `${name}: ${before} → ${after}` } };
}

// ---------------------------------------------------------------- expressions

/** Whitespace-free text, so a locator survives reformatting of the expression it names. */
export function expressionKey(text: string): string {
  return text.replace(/\s+/g, '');
}

/** The node a path of `forEachChildAsArray` indices leads to from `root`, or undefined when it leads nowhere. */
export function nodeAtPath(root: Node, path: readonly number[]): Node | undefined {
  let n: Node | undefined = root;
  for (const i of path) {
    n = n.forEachChildAsArray()[i];
    if (!n) return undefined;
  }
  return n;
}

/** The path from `root` down to `node` (a descendant of it), in `forEachChildAsArray` indices. */
export function pathTo(root: Node, node: Node): number[] {
  const path: number[] = [];
  for (let n = node; n !== root; ) {
    const parent = n.getParentOrThrow();
    path.unshift(parent.forEachChildAsArray().indexOf(n));
    n = parent;
  }
  return path;
}

/** The function (or stage) an expression edit names: a top-level function first, then a stage of the design object. */
function functionSite(sf: SourceFile, name: string): FunctionSite | undefined {
  return findTopLevelFunction(sf, name) ?? (isStage(name) ? findStage(sf, name) : undefined);
}

/**
 * Parents under which any expression may stand without parentheses (a statement, an argument, an initializer…).
 * Elsewhere (an operand, a member access' object, an arrow's body) a compound replacement is parenthesised so the
 * new expression keeps its own precedence.
 */
function standsAlone(parent: Node, node: Node): boolean {
  return (
    Node.isReturnStatement(parent) ||
    Node.isExpressionStatement(parent) ||
    Node.isParenthesizedExpression(parent) ||
    Node.isVariableDeclaration(parent) ||
    Node.isArrayLiteralExpression(parent) ||
    Node.isPropertyAssignment(parent) ||
    Node.isTemplateSpan(parent) ||
    Node.isIfStatement(parent) ||
    (Node.isCallExpression(parent) && parent.getArguments().includes(node)) ||
    (Node.isElementAccessExpression(parent) && parent.getArgumentExpression() === node)
  );
}

function isPrimary(n: Node): boolean {
  return (
    Node.isIdentifier(n) ||
    Node.isNumericLiteral(n) ||
    Node.isStringLiteral(n) ||
    Node.isNoSubstitutionTemplateLiteral(n) ||
    Node.isTrueLiteral(n) ||
    Node.isFalseLiteral(n) ||
    Node.isCallExpression(n) ||
    Node.isPropertyAccessExpression(n) ||
    Node.isElementAccessExpression(n) ||
    Node.isParenthesizedExpression(n)
  );
}

function replaceExpression(
  text: string,
  sf: SourceFile,
  edit: Extract<EditOp, { op: 'replace-expression' }>,
  index: number,
): { text: string; applied: AppliedEdit } {
  const site = functionSite(sf, edit.name);
  if (!site) {
    fail(
      EditErrorCode.unknownName,
      `no top-level function or stage named ${edit.name}; functions are: ${functionNames(sf).join(', ') || '(none)'}`,
    );
  }
  const root = site!.node;
  const want = expressionKey(edit.expect);
  let target: Node | undefined;
  if (edit.path) {
    target = nodeAtPath(root, edit.path);
    if (!target || !Node.isExpression(target)) {
      fail(EditErrorCode.noExpression, `path [${edit.path.join(', ')}] does not lead to an expression in ${edit.name}`);
    }
    if (expressionKey(target!.getText()) !== want) {
      fail(
        EditErrorCode.noExpression,
        `path [${edit.path.join(', ')}] in ${edit.name} holds \`${target!.getText().slice(0, 80)}\`, not \`${edit.expect.slice(0, 80)}\``,
      );
    }
  } else {
    // Outermost matches only: `(a)` wraps `a`, and a node's only child can read the same as the node.
    const matches = root.getDescendants().filter((d) => Node.isExpression(d) && expressionKey(d.getText()) === want);
    const outer = matches.filter((m) => !matches.some((o) => o !== m && m.getFirstAncestor((a) => a === o)));
    if (outer.length !== 1) {
      fail(
        EditErrorCode.noExpression,
        outer.length === 0
          ? `\`${edit.expect.slice(0, 80)}\` is not an expression of ${edit.name}`
          : `\`${edit.expect.slice(0, 80)}\` occurs ${outer.length} times in ${edit.name}; give its path`,
      );
    }
    target = outer[0];
  }
  const code = edit.code.trim();
  // Parenthesised, the code must be one expression: `a); (b` or a statement does not survive the wrapping.
  const wrapped = `(${code});`;
  const problems = syntaxErrors(wrapped);
  if (problems.length) fail(EditErrorCode.parse, `code is not an expression: ${problems[0]!.message}`);
  const parsed = parseSource(wrapped, 'edit').getStatements();
  const only = parsed[0];
  const outerParen = only && Node.isExpressionStatement(only) ? only.getExpression() : undefined;
  const expr = outerParen && Node.isParenthesizedExpression(outerParen) ? outerParen.getExpression() : undefined;
  if (parsed.length !== 1 || !expr) fail(EditErrorCode.parse, 'code must be exactly one expression');
  const node = target!;
  const parent = node.getParentOrThrow();
  const out = isPrimary(expr!) || standsAlone(parent, node) ? code : `(${code})`;
  const before = node.getText();
  const replaced = text.slice(0, node.getStart()) + out + text.slice(node.getEnd());
  return {
    text: replaced,
    applied: {
      edit: index,
      op: 'replace-expression',
      targets: [edit.name],
      summary: `${edit.name}: ${before.slice(0, 80)} → ${out.slice(0, 80)}`,
    },
  };
}

// ---------------------------------------------------------------- apply + type-check

/** A type-check/compile diagnostic (1-based line and column in the edited source). */
export interface CompileDiagnostic {
  line: number;
  column: number;
  message: string;
}

/** What a design compiler returns (src/design/compile.ts's compileDesign has this shape, plus timing fields). */
export type CompileOutcome<P, D extends CompileDiagnostic = CompileDiagnostic> = { ok: true; program: P } | { ok: false; diagnostics: D[] };

/** The compiler, passed in so this module does not depend on the sandbox build (and tests can inject one). */
export type CompileFn<P, D extends CompileDiagnostic = CompileDiagnostic> = (
  source: string,
) => CompileOutcome<P, D> | Promise<CompileOutcome<P, D>>;

/** Result of {@link applyAndCheck}: a compiled candidate, or the stage that failed and what to tell the proposer. */
export type CheckedEdit<P, D extends CompileDiagnostic = CompileDiagnostic> =
  | { ok: true; source: string; applied: AppliedEdit[]; program: P }
  | { ok: false; stage: 'apply'; errors: EditError[]; applied: AppliedEdit[] }
  | { ok: false; stage: 'compile'; source: string; applied: AppliedEdit[]; diagnostics: D[] };

/**
 * Applies the edits, then type-checks and compiles the result (e.g. `applyAndCheck(src, edits, compileDesign)`).
 * A failure carries what the loop hands back to the proposer for repair ({@link describeEditFailure} renders it).
 */
export async function applyAndCheck<P, D extends CompileDiagnostic = CompileDiagnostic>(
  source: string,
  edits: readonly unknown[],
  compile: CompileFn<P, D>,
): Promise<CheckedEdit<P, D>> {
  const r = applyEdits(source, edits);
  if (!r.ok) return { ok: false, stage: 'apply', errors: r.errors, applied: r.applied };
  const c = await compile(r.source);
  if (!c.ok) return { ok: false, stage: 'compile', source: r.source, applied: r.applied, diagnostics: c.diagnostics };
  return { ok: true, source: r.source, applied: r.applied, program: c.program };
}

/**
 * The failure as text for a repair prompt: each edit error by index and code, or each compile diagnostic with the
 * offending line of the edited source quoted (at most `maxItems`).
 */
export function describeEditFailure(failure: Exclude<CheckedEdit<unknown>, { ok: true }>, maxItems = 8): string {
  if (failure.stage === 'apply') {
    const lines = failure.errors.slice(0, maxItems).map((e) => `- ${e.code}: ${e.message}`);
    if (failure.errors.length > maxItems) lines.push(`- … and ${failure.errors.length - maxItems} more`);
    return `The edits did not apply:\n${lines.join('\n')}`;
  }
  const src = failure.source.split('\n');
  const lines = failure.diagnostics.slice(0, maxItems).map((d) => {
    const code = src[d.line - 1];
    return `- line ${d.line}:${d.column}: ${d.message}${code !== undefined ? `\n    ${code.trim()}` : ''}`;
  });
  if (failure.diagnostics.length > maxItems) lines.push(`- … and ${failure.diagnostics.length - maxItems} more`);
  return `The edits applied but the design does not type-check:\n${lines.join('\n')}`;
}
