import { ts } from 'ts-morph';
import type { CompileDiagnostic } from '../isolate/sandbox-api.ts';

/**
 * Import specifiers that name the design contract. Relative ones resolve to sandbox/contract.ts from
 * wherever the design file sits (seeds/, test fixtures, the archive), so only their tail is checked.
 */
const CONTRACT_SPECIFIER = /^(?:(?:\.{1,2}\/)+(?:[\w.-]+\/)*sandbox\/contract(?:\.ts|\.js)?|memsteer\/contract)$/;

export function isContractSpecifier(specifier: string): boolean {
  return CONTRACT_SPECIFIER.test(specifier);
}

/**
 * The rules the type checker does not enforce: a design may import only types from the contract and
 * must have a default export. esbuild does not bundle, so any other import would become a `require`
 * that does not exist in the isolate; rejecting it here gives the author a located reason instead.
 */
export function checkDesignRules(source: string, fileName: string): CompileDiagnostic[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const out: CompileDiagnostic[] = [];
  let hasDefault = false;
  const at = (node: ts.Node, code: string, message: string): void => {
    const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    out.push({ line: line + 1, column: character + 1, message, code });
  };

  for (const statement of sf.statements) {
    if (ts.isImportDeclaration(statement)) {
      const spec = ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : '';
      if (!isContractSpecifier(spec)) {
        at(
          statement,
          'forbidden-import',
          `import from '${spec}' is not allowed: ` +
            'a design may only `import type` from the contract (capabilities come in through `tools`)',
        );
      } else if (!isTypeOnlyImport(statement)) {
        at(
          statement,
          'forbidden-import',
          'imports from the contract must be type-only: write `import type { … } from` (the contract has no runtime values)',
        );
      }
    } else if (ts.isImportEqualsDeclaration(statement)) {
      at(statement, 'forbidden-require', '`import x = require(…)` is not allowed: there are no modules in the sandbox');
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      const spec = ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : '';
      if (!statement.exportClause) {
        at(statement, 'forbidden-export-star', `\`export * from '${spec}'\` is not allowed: a design is one self-contained module`);
      } else if (!(statement.isTypeOnly && isContractSpecifier(spec))) {
        at(statement, 'forbidden-import', `re-exporting from '${spec}' is not allowed: a design is one self-contained module`);
      }
    } else if (ts.isExportAssignment(statement) && !statement.isExportEquals) {
      hasDefault = true;
    } else if (ts.isExportAssignment(statement)) {
      at(statement, 'forbidden-export-equals', '`export =` is not allowed: use `export default`');
    } else if (hasDefaultModifier(statement)) {
      hasDefault = true;
    } else if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      if (statement.exportClause.elements.some((e) => e.name.text === 'default')) hasDefault = true;
    }
  }

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        at(node, 'forbidden-dynamic-import', 'dynamic `import()` is not allowed: there are no modules in the sandbox');
      } else if (ts.isIdentifier(node.expression) && node.expression.text === 'require') {
        at(node, 'forbidden-require', '`require(…)` is not allowed: there are no modules in the sandbox; use `tools`');
      }
    } else if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword) {
      at(node, 'forbidden-import', '`import.meta` is not available in the sandbox');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);

  if (!hasDefault) {
    out.push({
      line: 1,
      column: 1,
      message: 'a design must `export default` an object with store, retrieve and context (a MemoryDesign)',
      code: 'no-default-export',
    });
  }
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}

function isTypeOnlyImport(decl: ts.ImportDeclaration): boolean {
  const clause = decl.importClause;
  if (!clause) return false; // a side-effect import
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings || !ts.isNamedImports(bindings)) return false;
  return bindings.elements.every((e) => e.isTypeOnly);
}

function hasDefaultModifier(statement: ts.Statement): boolean {
  const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
  return (
    !!modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) && !!modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)
  );
}
