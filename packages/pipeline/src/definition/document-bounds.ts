/**
 * A definition's size and shape, bounded before anything costly reads it. YAML parsing costs
 * about ten microseconds a node and recurses once a level, so its text is first read by YAML's
 * own lexer (cheap, linear, no recursion) to estimate nesting and node count; JSON's text by a
 * scan of its brackets. The value a parse gives (or an object sent as it is, over MCP) is then
 * walked without recursion, counting nesting, values and its size as JSON, aliases expanded.
 */
import { CST, Lexer } from 'yaml';
import type { DefinitionProblem } from './problems.js';
import { MAX_DEFINITION_BYTES, MAX_DEFINITION_DEPTH, MAX_DEFINITION_NODES, MAX_DEFINITION_SIZE } from './limits.js';

/**
 * The lexer's estimate may count a level twice (a block sequence at its key's indentation is one
 * level more than its column shows, a flow collection inside a plain scalar one more): the text
 * is refused past twice the bound, the parsed value at the bound itself.
 */
const TEXT_DEPTH = 2 * MAX_DEFINITION_DEPTH;
/** Tokens that each start a node (a key, a value, an empty value after `:`): one to two per value. */
const TEXT_NODE_TOKENS = 3 * MAX_DEFINITION_NODES;

const NODE_TOKENS = new Set<string>(['scalar', 'single-quoted-scalar', 'double-quoted-scalar', 'alias', 'flow-map-start', 'flow-seq-start', 'seq-item-ind', 'explicit-key-ind', 'map-value-ind']);
/** The lexer's markers, which are not in the source. */
const MARKERS = new Set<string>([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR]);

const problem = (path: string, message: string): DefinitionProblem => ({ path, message });

/** The text's size in bytes, refused past MAX_DEFINITION_BYTES. */
export function textSizeProblem(text: string): DefinitionProblem | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= MAX_DEFINITION_BYTES) return undefined;
  return problem('(definition)', `is ${bytes} bytes; a definition is at most ${MAX_DEFINITION_BYTES} bytes (128 KiB)`);
}

/** JSON text nested deeper than the bound, by a scan of its brackets outside strings. */
export function jsonTextProblem(text: string): DefinitionProblem | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i += 1; // a backslash escapes what follows
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > MAX_DEFINITION_DEPTH) return problem('(definition)', `nests deeper than ${MAX_DEFINITION_DEPTH} levels (by character ${i})`);
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
  }
  return undefined;
}

/**
 * YAML text whose nesting or node count, as its tokens show them, is past what a definition may
 * have. Block levels are tracked by the columns where nodes start (indentation, `- `, `? `);
 * flow levels by brackets.
 */
export function yamlTextProblem(text: string): DefinitionProblem | undefined {
  const columns: number[] = [];
  let flow = 0;
  let nodes = 0;
  let offset = 0;
  let lineStart = 0;
  let line = 1;
  let firstOnLine = true;
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    const column = offset - lineStart;
    if (type !== null && NODE_TOKENS.has(type)) nodes += 1;
    if (nodes > TEXT_NODE_TOKENS) return problem(`line ${line}`, `holds more than ${MAX_DEFINITION_NODES} values by this line; a definition holds at most ${MAX_DEFINITION_NODES}`);
    if (type === 'flow-seq-start' || type === 'flow-map-start') flow += 1;
    else if (type === 'flow-seq-end' || type === 'flow-map-end') flow = Math.max(0, flow - 1);
    const content = type === null || (type !== 'space' && type !== 'newline' && type !== 'comment' && type !== 'doc-mode' && type !== 'scalar' && type !== 'anchor' && type !== 'tag');
    const opensLevel = type === 'seq-item-ind' || type === 'explicit-key-ind' || (firstOnLine && content);
    if (flow === 0 && opensLevel) {
      while (columns.length > 0 && (columns.at(-1) as number) > column) columns.pop();
      if (columns.length === 0 || (columns.at(-1) as number) < column) columns.push(column);
    }
    if (columns.length + flow > TEXT_DEPTH) return problem(`line ${line}`, `nests more than ${TEXT_DEPTH} levels deep by this line; a definition nests at most ${MAX_DEFINITION_DEPTH}`);
    if (content) firstOnLine = false;
    if (!MARKERS.has(token)) {
      const newline = token.lastIndexOf('\n');
      if (newline >= 0) {
        lineStart = offset + newline + 1;
        firstOnLine = true;
        for (let i = token.indexOf('\n'); i >= 0; i = token.indexOf('\n', i + 1)) line += 1;
      }
      offset += token.length;
    }
  }
  return undefined;
}

interface Visit {
  value: unknown;
  depth: number;
  parent: number;
  key: string;
}

/** The dotted path of a visited value; a long one shortened in its middle. */
function pathOf(visits: readonly Visit[], at: number): string {
  const keys: string[] = [];
  for (let i = at; i > 0; i = (visits[i] as Visit).parent) keys.unshift((visits[i] as Visit).key);
  const shown = keys.length > 12 ? [...keys.slice(0, 6), '…', ...keys.slice(-3)] : keys;
  return shown.join('.') || '(definition)';
}

/** What a scalar costs as JSON: about its length. */
function scalarSize(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value).length;
  return 5;
}

/**
 * The first bound a definition value breaks: nesting (with the place), values, or its size as
 * JSON. The walk counts a value met through several YAML aliases each time, as storing it would,
 * and stops at the first bound broken, so it costs at most the bounds.
 */
export function valueBoundsProblem(value: unknown): DefinitionProblem | undefined {
  const visits: Visit[] = [{ value, depth: 1, parent: -1, key: '' }];
  const tooMany = problem('(definition)', `holds more than ${MAX_DEFINITION_NODES} values; a definition holds at most ${MAX_DEFINITION_NODES}`);
  let size = 0;
  for (let i = 0; i < visits.length; i += 1) {
    const visit = visits[i] as Visit;
    if (visit.value === null || typeof visit.value !== 'object') {
      size += scalarSize(visit.value);
    } else {
      if (visit.depth > MAX_DEFINITION_DEPTH) return problem(pathOf(visits, i), `nests deeper than ${MAX_DEFINITION_DEPTH} levels, the most a definition may`);
      if (Array.isArray(visit.value)) {
        if (visits.length + visit.value.length > MAX_DEFINITION_NODES) return tooMany;
        visit.value.forEach((child: unknown, index) => visits.push({ value: child, depth: visit.depth + 1, parent: i, key: String(index) }));
        size += 2 + visit.value.length;
      } else {
        // for…in, not Object.entries: a huge object is refused before all of it is listed.
        const object = visit.value as Record<string, unknown>;
        for (const key in object) {
          if (!Object.hasOwn(object, key)) continue;
          if (visits.length >= MAX_DEFINITION_NODES) return tooMany;
          visits.push({ value: object[key], depth: visit.depth + 1, parent: i, key });
          size += key.length + 4;
        }
        size += 2;
      }
    }
    if (size > MAX_DEFINITION_SIZE) return problem('(definition)', `is more than ${MAX_DEFINITION_SIZE} characters as JSON (YAML aliases expanded); a definition is at most 256 KiB`);
  }
  return undefined;
}
