import { ts } from 'ts-morph';
import { isMemberIdentifier } from './design-source.ts';

/**
 * Top-level names of a design that its behaviour can depend on: those reachable from the default export (the design
 * object the host calls) or from a top-level statement that runs at load time, through the identifiers each
 * declaration's initializer or body references. A tweak of an unreachable constant, or a new body for an unreachable
 * function, cannot change any result: once a case move replaces the `retrieve` stage of a design grown from
 * seeds/configurable.ts, the seed's `applyTime` and `fuseSessions` are no longer called and RERANK_DEPTH, TIME_WEIGHT
 * are dead (a RHELM run spent an iteration tweaking RERANK_DEPTH, which scored exactly its parent).
 *
 * Declarations are functions, classes, enums and every declarator of a const/let/var statement; types and interfaces only
 * type-check, so they are neither roots nor results. Other named exports (`export const description`) are metadata
 * the host reads, not code a stage runs, so they are not roots. Shadowing is ignored: counting a local that shares
 * a top-level name as a use over-approximates reachability, the safe side (a live name is never called dead).
 * A source without a default export returns every declared name (nothing is known to be dead).
 *
 * `skipStages` leaves those stages of the design object out of the roots: what only they read cannot change what the
 * other stages return (the ranking objective scores `retrieve`'s ranking, never the context `context` builds).
 */
export function reachableNames(source: string, options: { skipStages?: readonly string[] } = {}): Set<string> {
  const sf = ts.createSourceFile('reachability.ts', source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  /** Each declared name → the nodes whose references it brings along (a statement declaring it, or its declarator). */
  const bodies = new Map<string, ts.Node[]>();
  const declare = (name: string, node: ts.Node): void => void bodies.set(name, [...(bodies.get(name) ?? []), node]);
  const roots: ts.Node[] = [];
  let hasDefault = false;

  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) {
      if (isDefaultExport(st)) {
        hasDefault = true;
        roots.push(st);
      }
      if (st.name) declare(st.name.text, st);
    } else if (ts.isEnumDeclaration(st)) {
      declare(st.name.text, st);
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) for (const name of boundNames(d.name)) declare(name, d);
    } else if (ts.isExportAssignment(st)) {
      if (!st.isExportEquals) hasDefault = true;
      roots.push(st.expression);
    } else if (ts.isExportDeclaration(st)) {
      // `export { design as default }`: the exported local is the root; other re-exports are metadata.
      const clause = st.exportClause;
      if (!st.moduleSpecifier && clause && ts.isNamedExports(clause)) {
        for (const el of clause.elements) {
          if (el.name.text !== 'default') continue;
          hasDefault = true;
          roots.push(el.propertyName ?? el.name);
        }
      }
    } else if (
      !ts.isInterfaceDeclaration(st) &&
      !ts.isTypeAliasDeclaration(st) &&
      !ts.isImportDeclaration(st) &&
      !ts.isImportEqualsDeclaration(st) &&
      !ts.isEmptyStatement(st)
    ) {
      // Expression statements, loops, a namespace: code that runs when the module loads.
      roots.push(st);
    }
  }

  if (!hasDefault) return new Set(bodies.keys());
  const reached = new Set<string>();
  const skip = new Set(options.skipStages ?? []);
  const queue: ts.Node[] = skip.size ? roots.flatMap((r) => withoutStages(r, bodies, skip)) : [...roots];
  while (queue.length) {
    for (const name of referencedNames(queue.pop()!)) {
      if (reached.has(name) || !bodies.has(name)) continue;
      reached.add(name);
      queue.push(...bodies.get(name)!);
    }
  }
  return reached;
}

/**
 * A root without the design object's stages named in `skip`: the object literal's other members when the root is
 * that literal or the name of a const initialised with it (through `satisfies`, `as` and parentheses); else the root
 * itself, since a design object built any other way cannot be split safely.
 */
function withoutStages(root: ts.Node, bodies: ReadonlyMap<string, ts.Node[]>, skip: ReadonlySet<string>): ts.Node[] {
  let value: ts.Node | undefined = root;
  if (ts.isIdentifier(root)) {
    const decl = bodies.get(root.text);
    value = decl?.length === 1 && ts.isVariableDeclaration(decl[0]!) ? decl[0].initializer : undefined;
  }
  while (value && (ts.isParenthesizedExpression(value) || ts.isSatisfiesExpression(value) || ts.isAsExpression(value)))
    value = value.expression;
  if (!value || !ts.isObjectLiteralExpression(value)) return [root];
  return value.properties.filter((m) => !(m.name && ts.isIdentifier(m.name) && skip.has(m.name.text)));
}

function isDefaultExport(st: ts.FunctionDeclaration | ts.ClassDeclaration): boolean {
  const mods = ts.getModifiers(st) ?? [];
  return mods.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) && mods.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
}

/** Identifiers bound by a declarator's name (a plain name, or a destructuring pattern). */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((el) => (ts.isBindingElement(el) ? boundNames(el.name) : []));
}

/**
 * Identifiers `node` uses as values: every identifier in it except member names (`a.b`'s `b`), object-literal and
 * class member keys, and type annotations. A shorthand property (`{ TOP_K }`) is a use of TOP_K.
 */
function referencedNames(node: ts.Node): Set<string> {
  const out = new Set<string>();
  const visit = (n: ts.Node): void => {
    if (ts.isTypeNode(n) && !ts.isExpressionWithTypeArguments(n)) return;
    if (ts.isIdentifier(n) && !isMemberIdentifier(n)) out.add(n.text);
    ts.forEachChild(n, visit);
  };
  visit(node);
  return out;
}
