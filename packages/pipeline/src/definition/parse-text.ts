/**
 * A definition's text read into a value, within the bounds of limits.ts: its bytes first, then
 * its nesting and node count by a cheap pass over its tokens, and only then a parse (JSON.parse,
 * or the `yaml` package with its aliases bounded); the value is measured before it goes on.
 */
import { isMap, isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { jsonTextProblem, textSizeProblem, valueBoundsProblem, yamlTextProblem } from './document-bounds.js';
import { MAX_YAML_ALIASES } from './limits.js';
import { DefinitionError, type DefinitionProblem } from './problems.js';

const refuse = (problem: DefinitionProblem | undefined): void => {
  if (problem) throw new DefinitionError([problem]);
};

/**
 * Keys repeated in a mapping. The `yaml` package's own check compares each key with every one
 * before it (a mapping of 10,000 keys took seconds), so it is off and this one uses a set.
 */
function repeatedKeys(document: Document, lines: LineCounter): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  visit(document, {
    Map(_key, map) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const key = String(pair.key.value);
        if (seen.has(key)) problems.push({ path: `line ${lines.linePos(pair.key.range?.[0] ?? 0).line}`, message: `Map keys must be unique: ${JSON.stringify(key.slice(0, 100))} is repeated` });
        seen.add(key);
      }
    },
  });
  return problems;
}

function parseYaml(text: string): unknown {
  refuse(yamlTextProblem(text));
  const lines = new LineCounter();
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: false, lineCounter: lines });
  if (document.errors.length > 0) {
    throw new DefinitionError(document.errors.slice(0, 50).map((e) => ({ path: e.linePos?.[0] ? `line ${e.linePos[0].line}` : '(document)', message: e.message.split('\n')[0] ?? e.message })));
  }
  const repeated = repeatedKeys(document, lines);
  if (repeated.length > 0) throw new DefinitionError(repeated.slice(0, 50));
  try {
    return document.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as unknown;
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    throw new DefinitionError([{ path: '(definition)', message: `${error.message}: a definition uses at most ${MAX_YAML_ALIASES} aliases (an alias of a collection counts the aliases in it)` }]);
  }
}

function parseJson(text: string): unknown {
  refuse(jsonTextProblem(text));
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new DefinitionError([{ path: '(definition)', message: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` }]);
  }
}

/**
 * Parses a definition's text; every refusal is a DefinitionError with its place (a line, a
 * path, or `(definition)`). `json` reads the text as JSON only; otherwise it is YAML, JSON
 * included (text that opens with `{` is tried as JSON first, which is faster).
 */
export function parseDefinitionText(text: string, options: { json?: boolean } = {}): unknown {
  refuse(textSizeProblem(text));
  let value: unknown;
  if (options.json) value = parseJson(text);
  else if (text.trimStart().startsWith('{') && !jsonTextProblem(text)) {
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      value = parseYaml(text);
    }
  } else value = parseYaml(text);
  refuse(valueBoundsProblem(value));
  return value;
}
