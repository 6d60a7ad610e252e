/**
 * What a user hands the command: files (a definition, an input, batch items) and flags (`--input`,
 * `--set`). Each is bounded before it is trusted: a file by its size (checked before it is read)
 * and kind (a regular file, not a device or a pipe), a parsed value by its nesting depth; a bad one
 * is one InputError naming the file or flag and what is wrong.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { InputError } from './errors.js';

/** Levels of nesting a value read from a file or flag may have. */
export const MAX_DEPTH = 64;

export type FileFormat = 'json' | 'yaml' | 'jsonl';

/** The format a file's name says: `.json`, `.jsonl`/`.ndjson`, else YAML (which reads JSON too). */
export function formatOf(file: string): FileFormat {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  return 'yaml';
}

/** A file's text, refused when it is not a regular file or is larger than `maxBytes`. */
export function readInputFile(file: string, maxBytes: number): string {
  let stats;
  try {
    stats = statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message}`);
  }
  if (!stats.isFile()) throw new InputError(`${file}: not a regular file`);
  if (stats.size > maxBytes) throw new InputError(`${file}: ${stats.size} bytes, over the limit of ${maxBytes} (SWITCHYARD_MAX_FILE_BYTES)`);
  const bytes = readFileSync(file);
  // The file may have grown between the stat and the read.
  if (bytes.length > maxBytes) throw new InputError(`${file}: over the limit of ${maxBytes} bytes (SWITCHYARD_MAX_FILE_BYTES)`);
  return bytes.toString('utf8');
}

/** Throws when `value` nests deeper than `max` (walked without recursion, so depth cannot overflow the stack). */
export function checkDepth(value: unknown, where: string, max = MAX_DEPTH): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    if (depth > max) throw new InputError(`${where}: nested deeper than ${max} levels`);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
}

function parseJsonText(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError(`${where}: not valid JSON (${(error as Error).message})`);
  }
}

/** Parses text in `format`; the value is depth-checked. */
export function parseText(text: string, format: FileFormat, where: string): unknown {
  let value: unknown;
  if (format === 'json') value = parseJsonText(text, where);
  else if (format === 'jsonl') {
    value = text
      .split('\n')
      .map((line, i) => [line.trim(), i + 1] as const)
      .filter(([line]) => line !== '')
      .map(([line, n]) => parseJsonText(line, `${where} line ${n}`));
  } else {
    try {
      value = parseYaml(text, { maxAliasCount: 100 }) as unknown;
    } catch (error) {
      // A YAML error's message names the line and column; a stack overflow is a nesting too deep.
      const message = error instanceof RangeError ? `nested too deeply` : (error as Error).message.split('\n')[0];
      throw new InputError(`${where}: not valid YAML (${message})`);
    }
  }
  checkDepth(value, where);
  return value;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Sets `value` at a dotted path (`a.b=c` makes `{a:{b:"c"}}`), making objects on the way. */
function setPath(target: Record<string, unknown>, dotted: string, value: unknown, flag: string): void {
  const keys = dotted.split('.');
  if (keys.some((key) => key === '' || key === '__proto__' || key === 'constructor' || key === 'prototype')) throw new InputError(`${flag}: "${dotted}" is not a field name (letters, digits, dots between)`);
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (next !== undefined && !isObject(next)) throw new InputError(`${flag}: "${key}" is already set to a value that is not an object`);
    node = (next ?? (node[key] = {})) as Record<string, unknown>;
  }
  node[keys.at(-1) as string] = value;
}

/** A `--set` value: JSON when it reads as JSON (`5`, `true`, `{"a":1}`, `"5"`), else the text itself. */
function setValue(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

export interface RunInputFlags {
  /** `--input '{…}'`: the input as JSON. */
  input?: string | undefined;
  /** `-i file`: the input from a JSON or YAML file. */
  inputFile?: string | undefined;
  /** `--set k=v`, repeatable, applied over the rest. */
  set?: readonly string[] | undefined;
}

/** A run's input from the flags: `--input` or `-i` (not both), then each `--set` over it. */
export function runInput(flags: RunInputFlags, maxFileBytes: number): Record<string, unknown> {
  if (flags.input !== undefined && flags.inputFile !== undefined) throw new InputError('--input and --input-file do not go together: give one');
  let base: unknown = {};
  if (flags.input !== undefined) base = parseText(flags.input, 'json', '--input');
  if (flags.inputFile !== undefined) base = parseText(readInputFile(flags.inputFile, maxFileBytes), formatOf(flags.inputFile), flags.inputFile);
  if (!isObject(base)) throw new InputError(`${flags.inputFile ?? '--input'}: the input must be an object ({…})`);
  const input = structuredClone(base);
  for (const pair of flags.set ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new InputError(`--set ${pair}: expected key=value`);
    const value = setValue(pair.slice(at + 1));
    checkDepth(value, `--set ${pair.slice(0, at)}`);
    setPath(input, pair.slice(0, at), value, '--set');
  }
  return input;
}

/** A batch file: a list of items, or `{items, defaults?, pipeline?}` (the body of POST /v1/batches). */
export interface BatchFile {
  items: Record<string, unknown>[];
  defaults?: Record<string, unknown> | undefined;
  pipeline?: string | undefined;
}

export function readBatchFile(file: string, maxFileBytes: number): BatchFile {
  const value = parseText(readInputFile(file, maxFileBytes), formatOf(file), file);
  const body = Array.isArray(value) ? { items: value } : isObject(value) ? value : undefined;
  if (!body || !Array.isArray(body.items)) throw new InputError(`${file}: expected a list of items, or an object with "items"`);
  const bad = body.items.findIndex((item) => !isObject(item));
  if (bad >= 0) throw new InputError(`${file}: item ${bad + 1} is not an object`);
  if (body.items.length === 0) throw new InputError(`${file}: no items`);
  if (body.defaults !== undefined && !isObject(body.defaults)) throw new InputError(`${file}: "defaults" must be an object`);
  if (body.pipeline !== undefined && typeof body.pipeline !== 'string') throw new InputError(`${file}: "pipeline" must be a pipeline's name`);
  return { items: body.items as Record<string, unknown>[], defaults: body.defaults as Record<string, unknown> | undefined, pipeline: body.pipeline as string | undefined };
}

/** A definition file: its text as written (sent so, for the API's messages to point into it) and its name. */
export function readDefinitionFile(file: string, maxFileBytes: number): { text: string; format: 'json' | 'yaml'; name: string | undefined } {
  const text = readInputFile(file, maxFileBytes);
  const format = formatOf(file) === 'json' ? 'json' : 'yaml';
  const value = parseText(text, format, file);
  if (!isObject(value)) throw new InputError(`${file}: a pipeline definition is an object (name, steps, …)`);
  return { text, format, name: typeof value.name === 'string' ? value.name : undefined };
}
