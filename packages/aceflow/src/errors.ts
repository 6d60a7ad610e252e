/**
 * The one error type of the engine. Its fields are seed 000's error response, so `stage()` turns
 * any AceflowError into that response without losing anything, and a worker calling the typed
 * helpers can switch on `code`.
 */

export const ERROR_CODES = ['MISSING_STAGE', 'INVALID_DATA', 'DEPENDENCY_MISSING', 'TEMPLATE_NOT_FOUND', 'ANALYSIS_DATA_MISSING'] as const;
export type AceflowErrorCode = (typeof ERROR_CODES)[number];

export interface AceflowErrorResponse {
  success: false;
  error_code: AceflowErrorCode;
  error_message: string;
  error_details: Record<string, unknown>;
  suggested_actions: string[];
}

export class AceflowError extends Error {
  override name = 'AceflowError';
  readonly code: AceflowErrorCode;
  readonly details: Record<string, unknown>;
  readonly suggestedActions: string[];

  constructor(code: AceflowErrorCode, message: string, details: Record<string, unknown> = {}, suggestedActions: string[] = []) {
    super(message);
    this.code = code;
    this.details = details;
    this.suggestedActions = suggestedActions;
  }

  toResponse(): AceflowErrorResponse {
    return { success: false, error_code: this.code, error_message: this.message, error_details: this.details, suggested_actions: this.suggestedActions };
  }
}

/** INVALID_DATA naming the offending field (a dotted path such as `code_metrics.complexity_score`). */
export function invalidData(field: string, problem: string, extra: Record<string, unknown> = {}, suggestedActions: string[] = []): AceflowError {
  return new AceflowError('INVALID_DATA', `Invalid ${field}: ${problem}`, { field, problem, ...extra }, suggestedActions.length ? suggestedActions : [`Correct ${field} and call again`]);
}

/** The 1 MiB = 1,048,576 bytes the seed's "MB" limits are read as. */
export const MIB = 1024 * 1024;

/** The seed's data size limits, in bytes (UTF-8 for text, serialized JSON for the analysis). */
export const LIMITS = {
  analysisBytes: 10 * MIB,
  outputBytes: 5 * MIB,
  templateBytes: 1 * MIB,
} as const;

export function tooLarge(field: string, sizeBytes: number, limitBytes: number): AceflowError {
  return invalidData(field, `is ${sizeBytes} bytes, over the limit of ${limitBytes} bytes (${limitBytes / MIB} MB)`, { size_bytes: sizeBytes, limit_bytes: limitBytes }, [
    `Shorten ${field} below ${limitBytes / MIB} MB`,
  ]);
}
