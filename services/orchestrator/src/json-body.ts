/**
 * The JSON body of a POST, up to `limit`. Without this check a body that is missing, or sent as
 * another media type, reaches the schema as `undefined` and is refused with a message naming no
 * field (`Parameter '' is required`); here it is refused with one that says what to send.
 */
import type { RequestHandler } from 'express';
import { jsonBody as sharedJsonBody } from '@switchyard/http-kit';

export const jsonBody = (limit: string, maxDepth?: number): RequestHandler => sharedJsonBody({ limit, required: true, ...(maxDepth !== undefined ? { maxDepth } : {}) });
