import { Node, SyntaxKind } from 'ts-morph';
import type { BinaryExpression, CallExpression, SourceFile } from 'ts-morph';
import { pathTo } from '../../design/apply-edits.ts';
import { findStage, findTopLevelFunction, parseSource, type FunctionSite } from '../../design/design-source.ts';
import type { EditOp } from '../../design/edit-ops.ts';

/**
 * AST-level mutation of a design's scoring and fusion code: the functions `retrieve` reaches through calls. It reads
 * numeric literals, arithmetic and comparison operators, `Math.max`/`Math.min` choices and the terms of sums, and
 * turns each possible change into a typed edit (`replace-expression` located by function name and expression path,
 * or `set-constant` for a top-level constant those functions read). The moves are blind to what they mean; the
 * loop's type-check and the validation split judge them.
 */

/** One possible mutation: the typed edits and a stable operator name (`ast:<function>:<kind>:<path>:<variant>`). */
export interface AstMutation {
  operator: string;
  /** Which kind of move: operator swap, comparison flip, min/max swap, term drop/scale, literal/constant scale. */
  kind: AstMutationKind;
  edits: EditOp[];
  /** One line for the rationale. */
  description: string;
}

export type AstMutationKind = 'operator' | 'comparison' | 'min-max' | 'drop-term' | 'scale-term' | 'scale-literal' | 'scale-constant';

const ARITHMETIC = new Map<SyntaxKind, string>([
  [SyntaxKind.PlusToken, '+'],
  [SyntaxKind.MinusToken, '-'],
  [SyntaxKind.AsteriskToken, '*'],
  [SyntaxKind.SlashToken, '/'],
]);
/** Each arithmetic operator's alternatives: the other operator of its family first. */
const ARITHMETIC_SWAPS: Readonly<Record<string, readonly string[]>> = {
  '+': ['-', '*'],
  '-': ['+'],
  '*': ['/', '+'],
  '/': ['*'],
};
const COMPARISON = new Map<SyntaxKind, string>([
  [SyntaxKind.LessThanToken, '<'],
  [SyntaxKind.LessThanEqualsToken, '<='],
  [SyntaxKind.GreaterThanToken, '>'],
  [SyntaxKind.GreaterThanEqualsToken, '>='],
]);
/** Strictness flip, then direction flip. */
const COMPARISON_SWAPS: Readonly<Record<string, readonly string[]>> = {
  '<': ['<=', '>'],
  '<=': ['<', '>='],
  '>': ['>=', '<'],
  '>=': ['>', '<='],
};
/** Factors a literal, a constant or a term is scaled by. */
const SCALES = [0.5, 2] as const;

/** Top-level `const NAME = <number>` declarations (upper-case names: the design's tunable constants) and their values. */
function numericConstants(sf: SourceFile): Map<string, number> {
  const out = new Map<string, number>();
  for (const st of sf.getVariableStatements()) {
    if (st.getDeclarationKind() !== 'const') continue;
    for (const d of st.getDeclarations()) {
      const name = d.getName();
      const init = d.getInitializer();
      if (!/^[A-Z][A-Z0-9_]*$/.test(name) || !init) continue;
      if (Node.isNumericLiteral(init)) out.set(name, init.getLiteralValue());
      else if (Node.isPrefixUnaryExpression(init) && init.getOperatorToken() === SyntaxKind.MinusToken) {
        const operand = init.getOperand();
        if (Node.isNumericLiteral(operand)) out.set(name, -operand.getLiteralValue());
      }
    }
  }
  return out;
}

/** The function a design's stage or helper is, by name. */
function siteOf(sf: SourceFile, name: string): FunctionSite | undefined {
  return findTopLevelFunction(sf, name) ?? (name === 'retrieve' ? findStage(sf, 'retrieve') : undefined);
}

/** Top-level function names used inside `node` (calls and references alike). */
function calledFunctions(sf: SourceFile, node: Node): string[] {
  const out = new Set<string>();
  for (const id of node.getDescendantsOfKind(SyntaxKind.Identifier)) {
    const name = id.getText();
    const parent = id.getParent();
    if (parent && Node.isPropertyAccessExpression(parent) && parent.getNameNode() === id) continue;
    if (findTopLevelFunction(sf, name)) out.add(name);
  }
  return [...out];
}

/**
 * The scoring and fusion functions of a design: the `retrieve` stage and every top-level function it reaches through
 * calls, in breadth-first order (`retrieve` first). Empty when the design has no retrieve stage it can read.
 */
export function scoringFunctions(source: string): string[] {
  const sf = parseSource(source, 'mutate');
  const start = findStage(sf, 'retrieve');
  if (!start) return [];
  const seen = new Set<string>();
  const order: string[] = [];
  // A retrieve implemented by a named top-level function is addressed by that name; a method by `retrieve`.
  const first = start.kind === 'declaration' || start.kind === 'const' ? start.name : 'retrieve';
  const queue = [first];
  while (queue.length) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const site = siteOf(sf, name);
    if (!site) continue;
    order.push(name);
    for (const callee of calledFunctions(sf, site.node)) if (!seen.has(callee)) queue.push(callee);
  }
  return order;
}

/** Loop headers index arrays: changing `i < n` there walks off the end rather than changing a score. */
function inLoopHeader(node: Node, root: Node): boolean {
  for (let n: Node | undefined = node; n && n !== root; n = n.getParent()) {
    const p = n.getParent();
    if (p && (Node.isForStatement(p) || Node.isForInStatement(p) || Node.isForOfStatement(p)) && !Node.isStatement(n)) return true;
  }
  return false;
}

function isStringy(n: Node): boolean {
  return (
    Node.isStringLiteral(n) ||
    Node.isNoSubstitutionTemplateLiteral(n) ||
    Node.isTemplateExpression(n) ||
    (Node.isCallExpression(n) && /\.(join|slice|toLowerCase|toUpperCase|trim|replace|padStart)$/.test(n.getExpression().getText())) ||
    (Node.isCallExpression(n) && n.getExpression().getText() === 'String')
  );
}

/** Operands of a left-nested `+` chain (`a + b + c` → a, b, c). */
function plusChain(b: BinaryExpression): Node[] {
  const left = b.getLeft();
  const head = Node.isBinaryExpression(left) && left.getOperatorToken().getKind() === SyntaxKind.PlusToken ? plusChain(left) : [left];
  return [...head, b.getRight()];
}

/**
 * Whether an arithmetic expression computes a number, as far as syntax tells: a `+` with a string operand anywhere in
 * its chain, or inside a string concatenation, is text. The loop's type-check catches what this misses.
 */
function isNumeric(b: BinaryExpression): boolean {
  if (b.getOperatorToken().getKind() !== SyntaxKind.PlusToken) return true;
  let top: BinaryExpression = b;
  for (
    let p = top.getParent();
    p && Node.isBinaryExpression(p) && p.getOperatorToken().getKind() === SyntaxKind.PlusToken;
    p = p.getParent()
  )
    top = p;
  return !plusChain(top).some((o) => isStringy(o) || (Node.isParenthesizedExpression(o) && isStringy(o.getExpression())));
}

function format(n: number): string {
  return String(Number(n.toPrecision(4)));
}

/** Whether a numeric literal sits where it weighs a score: an operand of arithmetic or comparison, or a min/max argument. */
function isWeight(lit: Node): boolean {
  let n: Node = lit;
  let p = n.getParent();
  while (p && Node.isPrefixUnaryExpression(p)) {
    n = p;
    p = p.getParent();
  }
  if (!p) return false;
  if (Node.isBinaryExpression(p)) {
    const k = p.getOperatorToken().getKind();
    return (ARITHMETIC.has(k) && isNumeric(p)) || COMPARISON.has(k);
  }
  return Node.isCallExpression(p) && /^Math\.(max|min)$/.test(p.getExpression().getText()) && p.getArguments().includes(n);
}

/**
 * Every mutation of the design's scoring and fusion functions, in source order per function. Each edit names its
 * function and the expression's path from it, and carries the text it expects there.
 */
export function astMutations(source: string): AstMutation[] {
  const functions = scoringFunctions(source);
  const sf = parseSource(source, 'mutate');
  const out: AstMutation[] = [];
  const usedConstants = new Set<string>();
  for (const name of functions) {
    const site = siteOf(sf, name);
    if (!site) continue;
    const root = site.node;
    const edit = (node: Node, code: string): EditOp => ({
      op: 'replace-expression',
      name,
      path: pathTo(root, node),
      expect: node.getText(),
      code,
    });
    const add = (kind: AstMutationKind, node: Node, variant: string, code: string, description: string): void => {
      out.push({
        operator: `ast:${name}:${kind}:${pathTo(root, node).join('.')}:${variant}`,
        kind,
        edits: [edit(node, code)],
        description,
      });
    };
    for (const id of root.getDescendantsOfKind(SyntaxKind.Identifier)) usedConstants.add(id.getText());
    for (const node of root.getDescendants()) {
      if (inLoopHeader(node, root)) continue;
      if (Node.isBinaryExpression(node)) mutateBinary(node, add);
      else if (Node.isCallExpression(node)) mutateMinMax(node, add);
      else if (Node.isNumericLiteral(node) && isWeight(node)) {
        const v = node.getLiteralValue();
        if (v === 0) continue;
        for (const f of SCALES) {
          add('scale-literal', node, `x${f}`, format(v * f), `${name}: literal ${node.getText()} → ${format(v * f)}`);
        }
      }
    }
  }
  // Top-level constants the scoring functions read: scaled beyond the catalog's tweak ranges.
  for (const [constant, value] of numericConstants(sf)) {
    if (!usedConstants.has(constant) || value === 0) continue;
    const integer = Number.isInteger(value);
    for (const f of SCALES) {
      const next = integer ? Math.max(1, Math.round(value * f)) : Number(format(value * f));
      if (next === value) continue;
      out.push({
        operator: `ast:const:scale-constant:${constant}:x${f}`,
        kind: 'scale-constant',
        edits: [{ op: 'set-constant', name: constant, value: next }],
        description: `${constant}: ${value} → ${next}`,
      });
    }
  }
  return out;
}

type Add = (kind: AstMutationKind, node: Node, variant: string, code: string, description: string) => void;

function mutateBinary(b: BinaryExpression, add: Add): void {
  const kind = b.getOperatorToken().getKind();
  const left = b.getLeft().getText();
  const right = b.getRight().getText();
  const cmp = COMPARISON.get(kind);
  if (cmp) {
    for (const alt of COMPARISON_SWAPS[cmp]!)
      add('comparison', b, alt, `${left} ${alt} ${right}`, `comparison ${cmp} → ${alt} in \`${short(b)}\``);
    return;
  }
  const op = ARITHMETIC.get(kind);
  if (!op || !isNumeric(b)) return;
  for (const alt of ARITHMETIC_SWAPS[op]!) add('operator', b, alt, `${left} ${alt} ${right}`, `operator ${op} → ${alt} in \`${short(b)}\``);
  if (op === '+' || op === '-') {
    // Terms of a sum: drop one (the right one of a difference), or weigh one double or half.
    add('drop-term', b, 'right', left, `drop the term \`${right.slice(0, 40)}\` of \`${short(b)}\``);
    if (op === '+') add('drop-term', b, 'left', right, `drop the term \`${left.slice(0, 40)}\` of \`${short(b)}\``);
    for (const f of SCALES) {
      add('scale-term', b, `right-x${f}`, `${left} ${op} ${f} * (${right})`, `weigh \`${right.slice(0, 40)}\` ×${f} in \`${short(b)}\``);
    }
  }
}

function mutateMinMax(c: CallExpression, add: Add): void {
  const callee = c.getExpression().getText();
  const m = /^Math\.(max|min)$/.exec(callee);
  if (!m) return;
  const other = m[1] === 'max' ? 'min' : 'max';
  const args = c
    .getArguments()
    .map((a) => a.getText())
    .join(', ');
  add('min-max', c, other, `Math.${other}(${args})`, `Math.${m[1]} → Math.${other} in \`${short(c)}\``);
}

function short(n: Node): string {
  const t = n.getText().replace(/\s+/g, ' ');
  return t.length > 60 ? `${t.slice(0, 57)}…` : t;
}
