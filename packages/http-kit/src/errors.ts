/**
 * One error shape for every HTTP service: `{error:{code,message,details}}`. Route code throws
 * HttpError (or lets a ZodError escape); the middleware turns anything into that body.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ErrorCodes, type ErrorBody } from '@switchyard/contracts';
import { ZodError } from 'zod';

export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(options: { status: number; code: string; message: string; details?: unknown; headers?: Record<string, string> }) {
    super(options.message);
    this.status = options.status;
    this.code = options.code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

/** Every error body has `details`, an object when nothing more is to be said. */
export function errorBody(code: string, message: string, details: unknown = {}): ErrorBody {
  return { error: { code, message, details: details ?? {} } };
}

/** Validation issues listed in an error at most; `issue_count` tells how many there were. */
export const MAX_LISTED_ISSUES = 20;

/** Turns a zod failure into a message that names the fields, and details a program can read. */
export function describeZodError(error: ZodError): { message: string; details: { missing_parameters: string[]; problems: { path: string; message: string }[]; issues: { path: string; message: string }[]; issue_count: number } } {
  const issues = error.issues.slice(0, MAX_LISTED_ISSUES).map((issue) => ({ path: issue.path.join('.') || '(body)', message: issue.message }));
  const missing = error.issues
    .filter((issue) => issue.code === 'invalid_type' && /received undefined/.test(issue.message))
    .map((issue) => issue.path.join('.'));
  const first = missing.length > 0 ? `Parameter '${missing[0]}' is required` : `Invalid '${issues[0]?.path}': ${issues[0]?.message}`;
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : '';
  // `problems` is what every refusal of the API lists (docs/API.md, Errors); `issues` is the same list, kept for clients written before.
  return { message: `${first}${more}`, details: { missing_parameters: missing.slice(0, MAX_LISTED_ISSUES), problems: issues, issues, issue_count: error.issues.length } };
}

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

function isBodyParserError(error: unknown): error is BodyParserError & Error {
  return error instanceof Error && typeof (error as BodyParserError).type === 'string' && typeof (error as BodyParserError).status === 'number';
}

const clientStatus = (status: number | undefined) => (status !== undefined && status >= 400 && status < 500 ? status : 400);

function isZlibError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('Z_');
}

function isClientHttpError(error: unknown): error is Error & { status: number } {
  const status = (error as { status?: unknown; expose?: unknown } | null)?.status;
  return error instanceof Error && (error as { expose?: unknown }).expose === true && typeof status === 'number' && status >= 400 && status < 500;
}

export interface ErrorLogger {
  error(obj: object, msg?: string): void;
}

/** The single Express error middleware: HttpError, zod, body-parser and path-decoding errors, and the rest as 500. */
export function errorMiddleware(logger: ErrorLogger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    // Answered already (a 503 from the unavailable guard, or a stream under way): just end it.
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    if (error instanceof HttpError) {
      res.set(error.headers).status(error.status).json(errorBody(error.code, error.message, error.details));
      return;
    }
    if (error instanceof ZodError) {
      const { message, details } = describeZodError(error);
      res.status(400).json(errorBody(ErrorCodes.invalidParameters, message, details));
      return;
    }
    if (isBodyParserError(error)) {
      if (error.type === 'entity.too.large') {
        res.status(413).json(errorBody(ErrorCodes.payloadTooLarge, `Request body exceeds the limit of ${error.limit ?? '?'} bytes`));
        return;
      }
      if (error.type === 'entity.parse.failed') {
        res.status(400).json(errorBody(ErrorCodes.invalidJson, 'Request body is not valid JSON'));
        return;
      }
      if (error.type === 'encoding.unsupported') {
        res.status(415).json(errorBody(ErrorCodes.unsupportedEncoding, error.message, { supported: ['identity', 'gzip', 'deflate', 'br'] }));
        return;
      }
      res.status(clientStatus(error.status)).json(errorBody(ErrorCodes.invalidParameters, error.message, { type: error.type }));
      return;
    }
    // A body that says it is compressed but is not: zlib's error surfaces while the body is read.
    if (isZlibError(error)) {
      res.status(400).json(errorBody(ErrorCodes.invalidParameters, `The request body does not match its Content-Encoding: ${error.message}`));
      return;
    }
    // Errors made by http-errors for the client (body-parser's, among others) carry their status.
    if (isClientHttpError(error)) {
      res.status(error.status).json(errorBody(ErrorCodes.invalidParameters, error.message));
      return;
    }
    // Express decodes path parameters: bad percent-encoding (`/run/%E0%A4%A`) is the client's error.
    if (error instanceof URIError) {
      res.status(400).json(errorBody(ErrorCodes.invalidParameters, `The path is not valid percent-encoding: ${error.message}`));
      return;
    }
    logger.error({ err: error }, 'unhandled error');
    res.status(500).json(errorBody(ErrorCodes.internalError, 'Internal error'));
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new HttpError({ status: 404, code: ErrorCodes.notFound, message: `No route for ${req.method} ${req.path}` }));
};

/**
 * For a path whose methods are all routed before it: any other method answers 405 and names the
 * allowed ones in `Allow`, rather than a 404 that suggests the path does not exist.
 */
export function methodNotAllowed(...allowed: string[]): RequestHandler {
  const allow = allowed.join(', ');
  return (req, _res, next) => {
    next(new HttpError({ status: 405, code: ErrorCodes.methodNotAllowed, message: `${req.method} is not allowed on ${req.path}; use ${allow}`, headers: { Allow: allow } }));
  };
}
