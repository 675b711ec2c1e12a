import { Node, SyntaxKind } from 'ts-morph';
import type { SourceFile } from 'ts-morph';
import { findStage, findTopLevelFunction, parseSource, topLevelDeclarations, type FunctionSite } from '../../design/design-source.ts';
import { StageName, type EditOp } from '../../design/edit-ops.ts';
import { reachableNames } from '../../design/reachability.ts';

/**
 * Crossover of two archive programs: one function (same name, same signature) of an "inspiration" program replaces
 * the parent's, together with the top-level helpers, constants and types it reads that the parent lacks, copied as
 * `add-helper` edits. Nothing is imported across programs: the inspiration's imports are never copied, and a function
 * that needs a contract type the parent does not import is not offered.
 */

/** One crossover move: the typed edits and a stable operator name (`crossover:<function>:<inspiration id>`). */
export interface CrossoverMove {
  operator: string;
  /** The function taken from the inspiration. */
  name: string;
  edits: EditOp[];
  /** Helpers copied with it. */
  brings: string[];
  description: string;
}

/** Whitespace-free text, so formatting alone does not count as a difference. */
function key(text: string): string {
  return text.replace(/\s+/g, '');
}

interface Fn {
  site: FunctionSite;
  /** `(params): ret`, whitespace-free: what "same signature" compares. */
  signature: string;
  isAsync: boolean;
}

function signatureOf(site: FunctionSite): string {
  const n = site.node;
  return key(
    `(${n
      .getParameters()
      .map((p) => p.getText())
      .join(',')}):${n.getReturnTypeNode()?.getText() ?? ''}`,
  );
}

/** Functions by name: top-level ones, and the three stages under their stage names when they are methods. */
function functionsOf(sf: SourceFile): Map<string, Fn> {
  const out = new Map<string, Fn>();
  for (const [name] of topLevelDeclarations(sf)) {
    const site = findTopLevelFunction(sf, name);
    if (site) out.set(name, { site, signature: signatureOf(site), isAsync: site.node.isAsync() });
  }
  for (const stage of StageName.options) {
    const site = findStage(sf, stage);
    if (site && (site.kind === 'method' || site.kind === 'property')) {
      out.set(stage, { site, signature: signatureOf(site), isAsync: site.node.isAsync() });
    }
  }
  return out;
}

/** Identifiers used in `node` that are not a member name (`x.name`) or an object key. */
function usedNames(node: Node): Set<string> {
  const out = new Set<string>();
  for (const id of node.getDescendantsOfKind(SyntaxKind.Identifier)) {
    const p = id.getParent();
    if (p && Node.isPropertyAccessExpression(p) && p.getNameNode() === id) continue;
    if (p && (Node.isPropertyAssignment(p) || Node.isPropertySignature(p) || Node.isMethodDeclaration(p)) && p.getNameNode() === id)
      continue;
    out.add(id.getText());
  }
  return out;
}

/** The top-level statement that declares `node` (a variable declaration's statement, or the node itself). */
function statementOf(node: Node): Node {
  let n = node;
  while (n.getParent() && !Node.isSourceFile(n.getParent()!)) n = n.getParent()!;
  return n;
}

/**
 * The top-level statements `root` needs from the inspiration that the parent lacks, dependencies first; null when
 * one of them cannot be copied (an import the parent does not have, or a statement declaring a name the parent has).
 */
function missingHelpers(insp: SourceFile, root: Node, parentNames: ReadonlySet<string>): Node[] | null {
  const declared = new Map(topLevelDeclarations(insp));
  const out: Node[] = [];
  const visiting = new Set<Node>();
  const visit = (node: Node): boolean => {
    for (const name of usedNames(node)) {
      if (parentNames.has(name)) continue;
      const decl = declared.get(name);
      if (!decl) continue; // a local, a parameter or a global
      if (Node.isImportDeclaration(decl)) return false;
      const st = statementOf(decl);
      if (st === statementOf(root) || visiting.has(st)) continue;
      // A statement declaring several names is copied whole, so none of them may exist in the parent already.
      const names = topLevelDeclarations(insp)
        .filter(([, d]) => statementOf(d) === st)
        .map(([n]) => n);
      if (names.some((n) => parentNames.has(n))) return false;
      // Helpers are private to a design (add-helper refuses exports): an exported one is the inspiration's interface.
      if (Node.isModifierable(st) && st.getModifiers().some((m) => m.getKind() === SyntaxKind.ExportKeyword)) return false;
      visiting.add(st);
      if (!visit(st)) return false;
      out.push(st);
    }
    return true;
  };
  return visit(root) ? out : null;
}

function nameList(sf: SourceFile): Set<string> {
  return new Set(topLevelDeclarations(sf).map(([n]) => n));
}

/** The function's code as a replace-function / replace-stage edit expects it. */
function functionCode(fn: Fn): string {
  const { site } = fn;
  if (site.kind === 'const') return `const ${site.name} = ${site.node.getText()}`;
  if (site.kind === 'property') return `${site.name}: ${site.node.getText()}`;
  return site.node.getText();
}

/**
 * Every crossover from `inspiration` into `parent`: one per function both have under the same name and signature
 * whose body differs. The parent's other functions stay; what the taken function reads is copied only when missing.
 * A top-level function the parent's design no longer reaches ({@link reachableNames}: the configurable seed's
 * applyTime once a case move replaced `retrieve`) is not offered: a new body there cannot change any result.
 */
export function crossoverMoves(parentSource: string, inspiration: { id: string; source: string }): CrossoverMove[] {
  const parent = parseSource(parentSource, 'cross-parent');
  const insp = parseSource(inspiration.source, 'cross-insp');
  const ours = functionsOf(parent);
  const theirs = functionsOf(insp);
  const parentNames = nameList(parent);
  const live = reachableNames(parentSource);
  const out: CrossoverMove[] = [];
  for (const [name, fn] of theirs) {
    const mine = ours.get(name);
    if (!mine || mine.signature !== fn.signature || mine.isAsync !== fn.isAsync) continue;
    // A stage method is part of the design object; a top-level function counts only if the design still calls it.
    if ((mine.site.kind === 'declaration' || mine.site.kind === 'const') && !live.has(name)) continue;
    if (key(mine.site.node.getText()) === key(fn.site.node.getText())) continue;
    // A stage method is addressed by its stage; a top-level function (even one that implements a stage) by its name.
    const asStage = (fn.site.kind === 'method' || fn.site.kind === 'property') && StageName.safeParse(name).success;
    if (asStage !== (mine.site.kind === 'method' || mine.site.kind === 'property')) continue;
    const helpers = missingHelpers(insp, fn.site.node, parentNames);
    if (!helpers) continue;
    const brings = helpers.flatMap((h) =>
      topLevelDeclarations(insp)
        .filter(([, d]) => statementOf(d) === h)
        .map(([n]) => n),
    );
    const edits: EditOp[] = [];
    if (helpers.length) edits.push({ op: 'add-helper', code: helpers.map((h) => h.getFullText().trim()).join('\n\n') });
    edits.push(
      asStage
        ? { op: 'replace-stage', stage: name as StageName, code: functionCode(fn) }
        : { op: 'replace-function', name, code: functionCode(fn) },
    );
    out.push({
      operator: `crossover:${name}:${inspiration.id}`,
      name,
      edits,
      brings,
      description: `${name} from ${inspiration.id}${brings.length ? ` (with ${brings.join(', ')})` : ''}`,
    });
  }
  return out;
}
