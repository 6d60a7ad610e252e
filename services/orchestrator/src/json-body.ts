/**
 * The JSON body of a POST, up to `limit`. Without this check a body that is missing, or sent as
 * another media type, reaches the schema as `undefined` and is refused with a message naming no
 * field (`Parameter '' is required`); here it is refused with one that says what to send.
 */
import express, { type RequestHandler } from 'express';
import { HttpError } from '@switchyard/http-kit';

export function jsonBody(limit: string): RequestHandler {
  const parse = express.json({ limit });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (error !== undefined || req.body !== undefined) return next(error);
      const type = req.get('content-type');
      next(
        type === undefined
          ? new HttpError({ status: 400, code: 'invalid_parameters', message: 'A JSON request body is required (Content-Type: application/json)' })
          : new HttpError({ status: 415, code: 'unsupported_media_type', message: `The request body must be JSON (Content-Type: application/json), not ${type}` }),
      );
    });
  };
}
