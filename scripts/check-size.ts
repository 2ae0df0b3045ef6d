// `bun run check:size`: no source file under src/ or plugins/ longer than 400 lines, no function
// longer than 120 (docs/architecture.md). Source files are TypeScript and JavaScript; the generated
// SDK types (src/sdk/openapi.d.ts) are left out. A function's length runs from the line its
// declaration starts on to the line it ends on, nested functions included (an Elysia route chain or
// a component counts whole). Prints every offender and exits 1 when there is one.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 120;
const ROOTS = ['src', 'plugins'];
const GENERATED = new Set(['src/sdk/openapi.d.ts']);
const SOURCE = /\.(ts|tsx|js|mjs|cjs)$/;

export type Offender = { file: string; line: number; what: string; lines: number; limit: number };

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(entry.name)) yield path;
  }
}

/** A readable name for a function node: its own, or the variable, property or method it is assigned to. */
function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && !ts.isComputedPropertyName(named.name)) return named.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText(source);
  }
  if (parent && ts.isCallExpression(parent)) {
    const callee = parent.expression;
    const called = ts.isPropertyAccessExpression(callee) ? callee.name.getText(source) : callee.getText(source).slice(0, 40);
    return `(callback of ${called})`;
  }
  return '(anonymous)';
}

const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

/** The offenders of one file: the file itself when too long, and each function that is. */
export function offendersOf(file: string, text: string): Offender[] {
  const offenders: Offender[] = [];
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_FILE_LINES) offenders.push({ file, line: 1, what: 'file', lines, limit: MAX_FILE_LINES });
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.[mc]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const visit = (node: ts.Node) => {
    if (isFunction(node) && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = end - start + 1;
      if (length > MAX_FUNCTION_LINES) offenders.push({ file, line: start + 1, what: `function ${nameOf(node, source)}`, lines: length, limit: MAX_FUNCTION_LINES });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return offenders;
}

export function checkSizes(root: string): Offender[] {
  const offenders: Offender[] = [];
  for (const dir of ROOTS) {
    for (const path of sourceFiles(join(root, dir))) {
      const file = relative(root, path);
      if (GENERATED.has(file)) continue;
      offenders.push(...offendersOf(file, readFileSync(path, 'utf8')));
    }
  }
  return offenders.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

if (import.meta.main) {
  const offenders = checkSizes(join(import.meta.dir, '..'));
  for (const o of offenders) console.log(`${o.file}:${o.line}: ${o.what} is ${o.lines} lines (at most ${o.limit})`);
  if (offenders.length > 0) {
    console.log(`${offenders.length} over the limits: split them (docs/architecture.md, "Size")`);
    process.exit(1);
  }
  console.log(`check:size: no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`);
}
