/**
 * TypeScript and JavaScript through the TypeScript compiler's parser (syntax only, no type
 * checking): ES imports and re-exports, require() and import(), and the functions, classes and
 * methods of a file with the names each one calls. A parser, not regular expressions, so that
 * strings, comments and nested functions do not fool it.
 */
import ts from 'typescript';
import type { FileAnalysis, ImportRef, SymbolDef } from './types.js';

interface Building extends Omit<SymbolDef, 'calls'> {
  calls: Set<string>;
  /** Identifiers handed to calls as arguments: callbacks, unless they name a local. */
  passed: Set<string>;
  /** Parameters and variables declared inside. */
  locals: Set<string>;
}

const bindingNames = (name: ts.BindingName): string[] =>
  ts.isIdentifier(name) ? [name.text] : name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : bindingNames(element.name)));

const SCRIPT_KINDS: Record<string, ts.ScriptKind> = {
  '.ts': ts.ScriptKind.TS,
  '.mts': ts.ScriptKind.TS,
  '.cts': ts.ScriptKind.TS,
  '.tsx': ts.ScriptKind.TSX,
  '.jsx': ts.ScriptKind.JSX,
};

const isExported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const isFunctionLike = (node: ts.Node | undefined): node is ts.ArrowFunction | ts.FunctionExpression => !!node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

function calleeName(expression: ts.Expression): string | undefined {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression)) return expression.name.text;
  return undefined;
}

export function analyzeScript(file: string, text: string): FileAnalysis {
  const extension = file.slice(file.lastIndexOf('.'));
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, SCRIPT_KINDS[extension] ?? ts.ScriptKind.JS);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const imports: ImportRef[] = [];
  const symbols: Building[] = [];
  const moduleCalls = new Set<string>();

  const define = (node: ts.Node, name: string, kind: SymbolDef['kind'], exported: boolean, container: string | undefined): Building => {
    const symbol: Building = { name, kind, line: lineOf(node.getStart(source)), endLine: lineOf(node.getEnd()), exported, calls: new Set(), passed: new Set(), locals: new Set(), ...(container ? { container } : {}) };
    symbols.push(symbol);
    return symbol;
  };

  const visit = (node: ts.Node, current: Building | undefined, container: string | undefined): void => {
    const calls = current?.calls ?? moduleCalls;
    if (current && (ts.isParameter(node) || ts.isVariableDeclaration(node))) for (const local of bindingNames(node.name)) current.locals.add(local);
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const names: string[] = [];
      if (clause?.name) names.push('default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.push((element.propertyName ?? element.name).text);
      imports.push({ specifier: node.moduleSpecifier.text, names, line: lineOf(node.getStart(source)) });
      return;
    }
    if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const names = clause && ts.isNamedExports(clause) ? clause.elements.map((e) => (e.propertyName ?? e.name).text) : [];
      imports.push({ specifier: node.moduleSpecifier.text, names, line: lineOf(node.getStart(source)) });
      return;
    }
    if (ts.isCallExpression(node)) {
      const [first] = node.arguments;
      const dynamic = node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require');
      if (dynamic && first && ts.isStringLiteralLike(first)) {
        imports.push({ specifier: first.text, names: [], line: lineOf(node.getStart(source)) });
        return;
      }
      const name = calleeName(node.expression);
      if (name) calls.add(name);
      // A function handed over as a callback is as good as called by the one it is handed to.
      for (const argument of node.arguments) if (ts.isIdentifier(argument)) (current?.passed ?? calls).add(argument.text);
    } else if (ts.isNewExpression(node)) {
      const name = calleeName(node.expression);
      if (name) calls.add(name);
    }

    let next = current;
    let nextContainer = container;
    if (ts.isFunctionDeclaration(node) && node.name) {
      next = define(node, node.name.text, 'function', isExported(node), container);
    } else if (ts.isClassDeclaration(node) && node.name) {
      next = define(node, node.name.text, 'class', isExported(node), container);
      nextContainer = node.name.text;
    } else if ((ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) && ts.isIdentifier(node.name)) {
      next = define(node, node.name.text, 'method', false, container);
    } else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && isFunctionLike(node.initializer)) {
      next = define(node, node.name.text, 'method', false, container);
    } else if (ts.isVariableStatement(node)) {
      const exported = isExported(node);
      for (const declaration of node.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) {
          visit(declaration, current, container);
          continue;
        }
        const name = declaration.name.text;
        current?.locals.add(name);
        const init = declaration.initializer;
        if (isFunctionLike(init)) {
          visit(init, define(declaration, name, 'function', exported, container), container);
        } else if (init && (ts.isObjectLiteralExpression(init) || ts.isClassExpression(init)) && !current) {
          visit(init, define(declaration, name, ts.isClassExpression(init) ? 'class' : 'variable', exported, container), name);
        } else if (init) {
          visit(init, current, container);
        }
      }
      return;
    }
    ts.forEachChild(node, (child) => visit(child, next, nextContainer));
  };
  ts.forEachChild(source, (child) => visit(child, undefined, undefined));

  return {
    imports,
    symbols: symbols.map(({ passed, locals, ...s }) => ({
      ...s,
      calls: [...new Set([...s.calls, ...[...passed].filter((name) => !locals.has(name))])].filter((name) => name !== s.name),
    })),
    moduleCalls: [...moduleCalls],
  };
}
