import { ts } from 'ts-morph';
import { isContractSpecifier } from '../design/design-rules.ts';

/** How an exported design names the contract: the package's `./contract` subpath export. */
export const PACKAGE_CONTRACT_SPECIFIER = 'memsteer/contract';

/**
 * Points a design's contract imports (and type re-exports) at `memsteer/contract`. Archived designs import the
 * contract by a relative path that only resolves inside the memsteer checkout; an app that installs memsteer
 * resolves the package subpath instead. Only the specifier's text changes (quotes kept), so the compiled
 * script is the same as the archived program's.
 */
export function rewriteContractImports(source: string, fileName = 'design.ts'): { source: string; rewritten: number } {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const spans: Array<{ start: number; end: number; quote: string }> = [];
  for (const statement of sf.statements) {
    const spec = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
    if (!spec || !ts.isStringLiteral(spec) || !isContractSpecifier(spec.text) || spec.text === PACKAGE_CONTRACT_SPECIFIER) continue;
    const start = spec.getStart(sf);
    spans.push({ start, end: spec.getEnd(), quote: source[start] === '"' ? '"' : "'" });
  }
  let out = source;
  // Back to front so earlier offsets stay valid.
  for (const s of spans.reverse()) out = `${out.slice(0, s.start)}${s.quote}${PACKAGE_CONTRACT_SPECIFIER}${s.quote}${out.slice(s.end)}`;
  return { source: out, rewritten: spans.length };
}
