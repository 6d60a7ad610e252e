/**
 * OpenAI's error shape, `{error: {message, type, param, code}}`, for the model endpoint: OpenAI
 * clients read it (and its status) to decide what to raise and whether to retry. Validation, body
 * and auth errors are described as the project's middleware describes them, then reshaped.
 */
import type { ErrorRequestHandler } from 'express';
import { describeZodError, errorMiddleware, type ErrorLogger } from '@switchyard/http-kit';
import { ZodError } from 'zod';

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** OpenAI's error `type` for a status. */
export function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export function openAiError(status: number, code: string | null, message: string, param: string | null = null): OpenAiErrorBody {
  return { error: { message, type: openAiErrorType(status), param, code } };
}

/**
 * The model endpoint's error middleware: a ZodError names its first field as `param`; anything
 * else goes through the project's middleware, whose `{error: {code, message}}` body is reshaped.
 */
export function openAiErrorMiddleware(logger: ErrorLogger): ErrorRequestHandler {
  const projectMiddleware = errorMiddleware(logger);
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return projectMiddleware(error, req, res, next);
    if (error instanceof ZodError) {
      const { message } = describeZodError(error);
      res.status(400).json(openAiError(400, 'invalid_request', message, error.issues[0]?.path.join('.') || null));
      return;
    }
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const inner = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      if (!inner) return json(body);
      return json(openAiError(res.statusCode, typeof inner.code === 'string' ? inner.code : null, typeof inner.message === 'string' ? inner.message : 'Error'));
    };
    projectMiddleware(error, req, res, next);
  };
}
