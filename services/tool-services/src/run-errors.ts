import { ErrorCodes, type ErrorBody, type ErrorDetail } from '@switchyard/contracts';
import { HttpError } from '@switchyard/http-kit';

/** What a failed run reports, on a poll or as an SSE `error` event. Internal details stay inside. */
export function toErrorDetail(error: unknown): ErrorDetail {
  if (error instanceof HttpError) return { code: error.code, message: error.message, details: error.details ?? {} };
  if (error instanceof Error && error.name === 'AbortError') return { code: 'cancelled', message: 'The run was cancelled', details: {} };
  return { code: ErrorCodes.internalError, message: error instanceof Error ? error.message : 'The tool failed', details: {} };
}

export function toErrorBody(error: unknown): ErrorBody {
  return { error: toErrorDetail(error) };
}
