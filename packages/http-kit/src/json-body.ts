/**
 * JSON request bodies, the same in every service: parsed by express.json up to a size limit, then
 * refused before any route sees them when they are nested deeper than MAX_JSON_DEPTH or hold a
 * string no text should hold (a NUL character, or a lone UTF-16 surrogate, which is no Unicode at
 * all). Deep nesting is refused because a route that serializes the body again (a fingerprint, a
 * Redis write) would overflow the stack on it; the walk here is iterative for that reason. The
 * depth is first counted on the raw text, before it is parsed: JSON.parse takes about 1.5 s of the
 * event loop over 5 MB of nested brackets, and the count a few milliseconds.
 */
import express, { type Request, type RequestHandler } from 'express';
import { ErrorCodes } from '@switchyard/contracts';
import { HttpError } from './errors.js';
import { jsonTextTooDeep } from './json-depth.js';

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 64;

export interface JsonBodyOptions {
  /** Largest body, as express.json takes it (e.g. '1mb'). */
  limit: string;
  /** Refuse a request without a JSON body (400, or 415 for another media type). Default false. */
  required?: boolean;
  /** Deepest nesting of arrays and objects (default MAX_JSON_DEPTH). */
  maxDepth?: number;
}

/** Where a body breaks the rules, or undefined when it keeps them. */
export function findUnsafeJson(value: unknown, maxDepth = MAX_JSON_DEPTH): { path: string; problem: string } | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '(body)', depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof item.value === 'string') {
      const problem = stringProblem(item.value);
      if (problem) return { path: item.path, problem };
      continue;
    }
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth >= maxDepth) return { path: item.path, problem: `nested deeper than ${maxDepth} levels` };
    const entries = Array.isArray(item.value) ? item.value.map((v, i) => [String(i), v] as const) : Object.entries(item.value);
    for (const [key, child] of entries) {
      const keyProblem = stringProblem(key);
      if (keyProblem) return { path: `${item.path}.${key}`, problem: `its name ${keyProblem}` };
      stack.push({ value: child, path: item.path === '(body)' ? key : `${item.path}.${key}`, depth: item.depth + 1 });
    }
  }
  return undefined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function stringProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(text)) return 'is not valid Unicode (a lone surrogate)';
  return undefined;
}

/** A body nested deeper than allowed, found on its raw text: refused as the walk refuses it. */
function tooDeep(maxDepth: number): HttpError {
  const problem = `nested deeper than ${maxDepth} levels`;
  return new HttpError({ status: 400, code: ErrorCodes.invalidParameters, message: `Invalid '(body)': ${problem}`, details: { path: '(body)', problem, max_depth: maxDepth } });
}

/** express.json with the checks above; parse failures go on to the error middleware. */
export function jsonBody(options: JsonBodyOptions): RequestHandler {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const parse = express.json({
    limit: options.limit,
    // Before JSON.parse sees the text: a throw here ends the request with this error (its status kept).
    verify: (_req, _res, raw, encoding) => {
      if (jsonTextTooDeep(raw, encoding, maxDepth)) throw tooDeep(maxDepth);
    },
  });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (isTooLarge(error)) return drainThen(req, () => next(error));
      if (error !== undefined) return next(error);
      if (req.body === undefined) return next(options.required ? missingBody(req.get('content-type')) : undefined);
      const unsafe = findUnsafeJson(req.body, maxDepth);
      if (!unsafe) return next();
      next(new HttpError({ status: 400, code: ErrorCodes.invalidParameters, message: `Invalid '${unsafe.path}': ${unsafe.problem}`, details: { path: unsafe.path, problem: unsafe.problem, max_depth: maxDepth } }));
    });
  };
}

/** Most of a refused body read and thrown away before answering; past it the connection is cut. */
const MAX_DRAINED_BYTES = 256 * 1024 * 1024;

const isTooLarge = (error: unknown) => (error as { type?: string } | null | undefined)?.type === 'entity.too.large';

/**
 * The body parser refuses an over-long body without reading it. Answering then, while the client
 * is still sending, has many clients (undici's fetch among them) see a reset connection instead
 * of the 413, so the rest of the body is read and dropped first, up to a bound.
 */
function drainThen(req: Request, answer: () => void): void {
  if (req.readableEnded) return answer();
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > MAX_DRAINED_BYTES) req.destroy();
  });
  req.once('end', answer);
  req.resume();
}

function missingBody(type: string | undefined): HttpError {
  return type === undefined
    ? new HttpError({ status: 400, code: ErrorCodes.invalidParameters, message: 'A JSON request body is required (Content-Type: application/json)' })
    : new HttpError({ status: 415, code: ErrorCodes.unsupportedMediaType, message: `The request body must be JSON (Content-Type: application/json), not ${type}` });
}
