import { Node, Project, SyntaxKind, ts, VariableDeclarationKind } from 'ts-morph';
import type {
  ArrowFunction,
  FunctionDeclaration,
  FunctionExpression,
  MethodDeclaration,
  ObjectLiteralExpression,
  SourceFile,
} from 'ts-morph';
import type { StageName } from './edit-ops.ts';

/**
 * Reading a design module's structure with ts-morph: the default-exported design object, its stages, top-level
 * declarations, and references to a name. Parsing only — no type checker — so it is fast enough to run once per edit.
 */

let project: Project | undefined;
let counter = 0;

/** Parses TypeScript text into a ts-morph SourceFile (in memory; the previous parse of the same slot is replaced). */
export function parseSource(text: string, slot = 'design'): SourceFile {
  project ??= new Project({
    useInMemoryFileSystem: true,
    skipAddingFilesFromTsConfig: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  });
  // Distinct names keep two live parses (parent and edit code) from overwriting each other.
  const name = `/${slot}-${counter++ % 64}.ts`;
  return project.createSourceFile(name, text, { overwrite: true });
}

export interface SyntaxProblem {
  line: number;
  column: number;
  message: string;
}

/** Syntax errors of a piece of TypeScript (1-based positions), via the compiler's transpile step. */
export function syntaxErrors(text: string): SyntaxProblem[] {
  const out = ts.transpileModule(text, {
    reportDiagnostics: true,
    fileName: 'edit.ts',
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, noResolve: true, isolatedModules: false },
  });
  const file = ts.createSourceFile('edit.ts', text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  return (out.diagnostics ?? [])
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => {
      const pos = file.getLineAndCharacterOfPosition(d.start ?? 0);
      return { line: pos.line + 1, column: pos.character + 1, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') };
    });
}

function unwrap(node: Node | undefined): Node | undefined {
  let n = node;
  while (n && (Node.isSatisfiesExpression(n) || Node.isAsExpression(n) || Node.isParenthesizedExpression(n) || Node.isTypeAssertion(n))) {
    n = n.getExpression();
  }
  return n;
}

/** Strips `as const`, `satisfies T` and parentheses around an expression. */
export function unwrapExpression(node: Node | undefined): Node | undefined {
  return unwrap(node);
}

/** The object literal a design default-exports (directly, or through a top-level `const design = {...}`). */
export function findDesignObject(sf: SourceFile): ObjectLiteralExpression | undefined {
  const assignment = sf.getExportAssignment((e) => !e.isExportEquals());
  let expr = unwrap(assignment?.getExpression());
  if (expr && Node.isIdentifier(expr)) expr = unwrap(sf.getVariableDeclaration(expr.getText())?.getInitializer());
  return expr && Node.isObjectLiteralExpression(expr) ? expr : undefined;
}

/** The top-level statement that holds the design object (helpers are inserted before it). */
export function designStatement(sf: SourceFile): Node | undefined {
  const obj = findDesignObject(sf);
  if (!obj) return sf.getExportAssignment((e) => !e.isExportEquals());
  let n: Node = obj;
  while (n.getParent() && !Node.isSourceFile(n.getParent()!)) n = n.getParent()!;
  return n;
}

export type FunctionLike = MethodDeclaration | FunctionDeclaration | ArrowFunction | FunctionExpression;

/**
 * Where a function lives, which decides how replacement code is rendered:
 * - `method`: `retrieve(q, memory, tools) { … }` in the design object;
 * - `property`: `retrieve: (q, memory, tools) => …` in the design object (node is the function expression);
 * - `declaration`: a top-level `function name(…) { … }`;
 * - `const`: a top-level `const name = (…) => …` (node is the function expression).
 */
export type FunctionSite =
  | { kind: 'method'; name: string; node: MethodDeclaration; stage?: StageName }
  | { kind: 'property'; name: string; node: ArrowFunction | FunctionExpression; stage?: StageName }
  | { kind: 'declaration'; name: string; node: FunctionDeclaration; stage?: StageName }
  | { kind: 'const'; name: string; node: ArrowFunction | FunctionExpression; stage?: StageName };

function isFunctionExpr(n: Node | undefined): n is ArrowFunction | FunctionExpression {
  return !!n && (Node.isArrowFunction(n) || Node.isFunctionExpression(n));
}

/** A top-level function declaration or `const name = <function>` by name. */
export function findTopLevelFunction(sf: SourceFile, name: string): FunctionSite | undefined {
  const fn = sf.getFunction(name);
  if (fn?.hasBody()) return { kind: 'declaration', name, node: fn };
  const decl = sf.getVariableDeclaration(name);
  const init = unwrap(decl?.getInitializer());
  if (decl && isFunctionExpr(init)) return { kind: 'const', name, node: init };
  return undefined;
}

/** Where a stage is implemented: a method or property of the design object, or the top-level function it names. */
export function findStage(sf: SourceFile, stage: StageName): FunctionSite | undefined {
  const obj = findDesignObject(sf);
  const prop = obj?.getProperty(stage);
  if (!prop) return undefined;
  if (Node.isMethodDeclaration(prop)) return { kind: 'method', name: stage, node: prop, stage };
  if (Node.isPropertyAssignment(prop)) {
    const init = unwrap(prop.getInitializer());
    if (isFunctionExpr(init)) return { kind: 'property', name: stage, node: init, stage };
    if (init && Node.isIdentifier(init)) {
      const site = findTopLevelFunction(sf, init.getText());
      return site && { ...site, stage };
    }
    return undefined;
  }
  if (Node.isShorthandPropertyAssignment(prop)) {
    const site = findTopLevelFunction(sf, stage);
    return site && { ...site, stage };
  }
  return undefined;
}

/** Names declared at the top level (functions, variables, classes, types, interfaces, enums, imports). */
export function topLevelNames(sf: SourceFile): Map<string, Node> {
  return new Map(topLevelDeclarations(sf));
}

/** Every top-level declared name with its node, in source order (a name declared twice appears twice). */
export function topLevelDeclarations(sf: SourceFile): Array<[string, Node]> {
  const names: Array<[string, Node]> = [];
  const set = (n: string, node: Node): void => void names.push([n, node]);
  for (const st of sf.getStatements()) {
    if (
      Node.isFunctionDeclaration(st) ||
      Node.isClassDeclaration(st) ||
      Node.isInterfaceDeclaration(st) ||
      Node.isTypeAliasDeclaration(st) ||
      Node.isEnumDeclaration(st)
    ) {
      const n = st.getName();
      if (n) set(n, st);
    } else if (Node.isVariableStatement(st)) {
      for (const d of st.getDeclarations()) for (const n of bindingNames(d.getNameNode())) set(n, d);
    } else if (Node.isImportDeclaration(st)) {
      const def = st.getDefaultImport();
      if (def) set(def.getText(), st);
      const ns = st.getNamespaceImport();
      if (ns) set(ns.getText(), st);
      for (const spec of st.getNamedImports()) set((spec.getAliasNode() ?? spec.getNameNode()).getText(), st);
    }
  }
  return names;
}

/** Identifiers bound by a name or a destructuring pattern. */
export function bindingNames(node: Node): string[] {
  if (Node.isIdentifier(node)) return [node.getText()];
  if (Node.isObjectBindingPattern(node) || Node.isArrayBindingPattern(node)) {
    const out: string[] = [];
    for (const el of node.getElements()) if (Node.isBindingElement(el)) out.push(...bindingNames(el.getNameNode()));
    return out;
  }
  return [];
}

/** Is the top-level statement a `const` declaration? */
export function isConstStatement(node: Node): boolean {
  const st = node.getFirstAncestorByKind(SyntaxKind.VariableStatement);
  return !!st && st.getDeclarationKind() === VariableDeclarationKind.Const;
}

/** True when `id` is a property/member name rather than a use of a variable. */
function isMemberName(id: Node): boolean {
  return Node.isIdentifier(id) && isMemberIdentifier(id.compilerNode);
}

/**
 * True when the compiler identifier `id` names a member (`a.b`'s `b`, an object-literal or class member key, the
 * `key` of `{ key: local }` in a binding pattern) rather than using a variable. On the compiler node so that
 * design/reachability.ts, which walks the compiler's tree for speed, reads names by the same rule.
 */
export function isMemberIdentifier(id: ts.Identifier): boolean {
  const p = id.parent;
  if (!p) return false;
  if (ts.isPropertyAccessExpression(p)) return p.name === id;
  if (ts.isQualifiedName(p)) return p.right === id;
  if (
    ts.isPropertyAssignment(p) ||
    ts.isMethodDeclaration(p) ||
    ts.isPropertyDeclaration(p) ||
    ts.isGetAccessorDeclaration(p) ||
    ts.isSetAccessorDeclaration(p) ||
    ts.isPropertySignature(p) ||
    ts.isMethodSignature(p) ||
    ts.isEnumMember(p)
  ) {
    return p.name === id;
  }
  // `const { index: idx } = state`: `index` names a property of the value, not a variable.
  if (ts.isBindingElement(p)) return p.propertyName === id;
  return false;
}

/** True when `id` is the name being declared (a variable, parameter, function, binding element). */
function isDeclarationName(id: Node): boolean {
  const p = id.getParent();
  if (!p) return false;
  if (
    Node.isVariableDeclaration(p) ||
    Node.isParameterDeclaration(p) ||
    Node.isFunctionDeclaration(p) ||
    Node.isClassDeclaration(p) ||
    Node.isBindingElement(p) ||
    Node.isFunctionExpression(p) ||
    Node.isTypeAliasDeclaration(p) ||
    Node.isInterfaceDeclaration(p) ||
    Node.isTypeParameterDeclaration(p)
  ) {
    return (p as { getNameNode(): Node | undefined }).getNameNode() === id;
  }
  return false;
}

/** Does a scope between `id` and the top level declare `name` itself (shadowing the top-level one)? */
function isShadowed(id: Node, name: string): boolean {
  for (let n = id.getParent(); n && !Node.isSourceFile(n); n = n.getParent()) {
    if (Node.isFunctionLikeDeclaration(n) || Node.isArrowFunction(n) || Node.isFunctionExpression(n)) {
      for (const p of n.getParameters()) if (bindingNames(p.getNameNode()).includes(name)) return true;
      if (Node.isFunctionExpression(n) && n.getName() === name) return true;
    }
    if (Node.isBlock(n) || Node.isCaseClause(n) || Node.isDefaultClause(n)) {
      for (const st of n.getStatements()) {
        if (Node.isVariableStatement(st) && st.getDeclarations().some((d) => bindingNames(d.getNameNode()).includes(name))) return true;
        if ((Node.isFunctionDeclaration(st) || Node.isClassDeclaration(st)) && st.getName() === name) return true;
      }
    }
    if (Node.isForStatement(n) || Node.isForOfStatement(n) || Node.isForInStatement(n)) {
      const init = n.getInitializer();
      if (init && Node.isVariableDeclarationList(init) && init.getDeclarations().some((d) => bindingNames(d.getNameNode()).includes(name)))
        return true;
    }
    if (Node.isCatchClause(n)) {
      const v = n.getVariableDeclaration();
      if (v && bindingNames(v.getNameNode()).includes(name)) return true;
    }
  }
  return false;
}

/** 1-based lines where the top-level `name` is still used (shadowing locals and member names excluded). */
export function referenceLines(sf: SourceFile, name: string): number[] {
  const lines = new Set<number>();
  for (const id of sf.getDescendantsOfKind(SyntaxKind.Identifier)) {
    if (id.getText() !== name) continue;
    if (isMemberName(id) || isDeclarationName(id) || isShadowed(id, name)) continue;
    lines.add(id.getStartLineNumber());
  }
  return [...lines].sort((a, b) => a - b);
}

/** Leading whitespace of the line `pos` is on. */
export function indentAt(text: string, pos: number): string {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/**
 * Re-indents multi-line code for insertion at `indent`: the first line stays put (it follows the insertion point),
 * later lines lose their common indentation and gain `indent`. Code with template literals is left alone, since
 * re-indenting would change the strings.
 */
export function reindent(code: string, indent: string): string {
  if (code.includes('`')) return code;
  const lines = code.split('\n');
  if (lines.length === 1) return code;
  const rest = lines.slice(1).filter((l) => l.trim() !== '');
  const common = rest.length ? Math.min(...rest.map((l) => /^[ \t]*/.exec(l)![0].length)) : 0;
  return [lines[0]!, ...lines.slice(1).map((l) => (l.trim() === '' ? '' : indent + l.slice(common)))].join('\n');
}
