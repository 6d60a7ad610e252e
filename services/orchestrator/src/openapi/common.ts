/**
 * Pieces every operation of the OpenAPI document shares: the error responses, the path and
 * header parameters, and event streams. Each is derived from what the code checks (the id
 * patterns, the error body schema), so the document says what the routes do.
 */
import { z } from 'zod';
import type { ZodOpenApiContentObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { ApiErrorBody } from '@switchyard/contracts';
import { BATCH_ID, EVENT_ID_PATTERN, PIPELINE_NAME, RUN_ID } from '@switchyard/pipeline';
import { IdempotencyKey } from '../idempotency.js';
import { routeAccess } from '../route-scopes.js';

/** Statuses an error may answer with, each with what it means on every route. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 503;

const json = (schema: z.ZodType): ZodOpenApiContentObject => ({ 'application/json': { schema } });

const GENERIC: Record<ErrorStatus, string> = {
  400: 'A bad body or parameter, named in `message` (`invalid_parameters`, `invalid_json`, `invalid_idempotency_key`)',
  401: 'No valid API key (`unauthorized`)',
  403: 'Made with the browser session cookie alone, not GET or HEAD, and not from this origin (`cross_origin`)',
  404: 'No such resource',
  409: 'A conflict with what exists',
  413: 'The body is over its limit (`payload_too_large`)',
  415: 'The body is not JSON (`unsupported_media_type`), or its `Content-Encoding` is unknown (`unsupported_encoding`)',
  429: 'Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds',
  503: 'Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds',
};

const HEADERS: Partial<Record<ErrorStatus, z.ZodObject>> = {
  401: z.object({ 'WWW-Authenticate': z.string().describe('`Bearer realm="switchyard"`') }),
  429: z.object({ 'Retry-After': z.string().describe('Seconds to wait') }),
  503: z.object({ 'Retry-After': z.string().describe('Seconds to wait') }),
};

function errorResponse(status: ErrorStatus, description: string): ZodOpenApiResponseObject {
  const headers = HEADERS[status];
  return { description, content: json(ApiErrorBody), ...(headers ? { headers } : {}) };
}

/**
 * The error responses of an operation. Every `/v1` route may answer 401 and 503 (the key check
 * and the Redis guard run before it); `routeErrors` adds the ones its own code answers, with
 * what they mean there (`true` for the generic meaning), and may say more of those two.
 */
export function errors(options: { v1: boolean; routeErrors?: Partial<Record<ErrorStatus, string | true>> }): ZodOpenApiResponsesObject {
  const all: Partial<Record<ErrorStatus, string | true>> = { ...(options.v1 ? { 401: true, 503: true } : {}), ...options.routeErrors };
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, meaning] of Object.entries(all)) {
    const code = Number(status) as ErrorStatus;
    responses[`${code}`] = errorResponse(code, meaning === true ? GENERIC[code] : meaning);
  }
  return responses;
}

/** The security schemes of the document: any one of them is enough. */
export const SECURITY_SCHEMES = ['bearerKey', 'headerKey', 'sessionCookie'] as const;

const STATE_CHANGING = ['post', 'put', 'patch', 'delete'];

/** What 403 means on an operation that needs `scope`. */
function forbiddenMeaning(scope: string, changesState: boolean): string {
  const lacking = `The key (or the session's key) lacks the \`${scope}\` scope this operation needs (\`insufficient_scope\`, naming it in \`details.required_scope\`)`;
  return changesState ? `${lacking}; or the request was made with the browser session cookie alone, not from this origin (\`cross_origin\`)` : lacking;
}

/**
 * States on every operation what route-scopes.ts says it needs: a public one asks no key; one that
 * needs a scope names it in each security requirement (OpenAPI 3.1 lets `http` and `apiKey`
 * schemes list the roles an operation needs) and documents the 403 and 429 of the key checks.
 * An operation the table does not know fails the document's generation.
 */
export function withAccessRules(paths: ZodOpenApiPathsObject): ZodOpenApiPathsObject {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => {
      if (!item) return [path, item];
      const changed = Object.fromEntries(
        Object.entries(item).map(([method, operation]) => {
          if (!operation || typeof operation !== 'object' || !('responses' in operation)) return [method, operation];
          const access = routeAccess(method, path);
          if (access === undefined) throw new Error(`${method} ${path} has no line in ROUTE_SCOPES (route-scopes.ts)`);
          if (access === 'public') return [method, { ...operation, security: [] }];
          const { responses } = operation as { responses: ZodOpenApiResponsesObject };
          return [
            method,
            {
              ...operation,
              security: SECURITY_SCHEMES.map((scheme) => ({ [scheme]: [access] })),
              responses: { ...responses, '403': errorResponse(403, forbiddenMeaning(access, STATE_CHANGING.includes(method))), '429': errorResponse(429, GENERIC[429]) },
            },
          ];
        }),
      );
      return [path, changed];
    }),
  );
}

/** The JSON-body errors every POST or PUT with a body shares. */
export const BODY_ERRORS = { 400: true, 413: true, 415: true } as const;

/** 413 of a route that starts runs: the body, or a run's input in it, is over its bound. */
export const INPUT_TOO_LARGE = 'The body is over its limit (`payload_too_large`), or a run\'s input is over `RUN_MAX_INPUT_BYTES` (`input_too_large`; `ACEFLOW_RUN_MAX_INPUT_BYTES` for an AceFlow run), or a batch\'s inputs together over `BATCH_MAX_INPUT_BYTES` (`batch_too_large`); `details` names the limit and its variable';

/** A JSON response. */
export function jsonResponse(description: string, schema: z.ZodType, headers?: z.ZodObject): ZodOpenApiResponseObject {
  return { description, content: json(schema), ...(headers ? { headers } : {}) };
}

/** `Location`, answered with 201 and 202: where to read what was made. */
export const LocationHeader = z.object({ Location: z.string().describe('The resource made (its `poll_url`)') });

export const RunIdParam = z.object({ runId: z.string().regex(RUN_ID).describe('A run id, `run_` and 32 hex digits; any other answers 404') });
export const BatchIdParam = z.object({ batchId: z.string().regex(BATCH_ID).describe('A batch id, `batch_` and 32 hex digits; any other answers 404') });
export const PipelineNameParam = z.object({ name: z.string().regex(PIPELINE_NAME).describe('A pipeline name; any other answers 404') });

/** The optional `Idempotency-Key` of the routes that start runs or batches. */
export const IdempotencyHeader = z.object({
  'Idempotency-Key': IdempotencyKey.optional().describe('The same key with the same body answers the same run (or batch); with another body, 409'),
});

/** `Last-Event-ID` of the event streams: resume after that event (the id of an SSE event). */
export const LastEventIdHeader = z.object({
  'Last-Event-ID': z.string().regex(EVENT_ID_PATTERN).optional().describe('Replays the events after this one; without it, from the start'),
});

/**
 * An event stream (`text/event-stream`). OpenAPI 3.1 has no schema for the items of a stream, so
 * the schema describes one event as an EventSource parses it: `id`, `event` (its type) and
 * `data` (JSON, whose shape depends on `event`).
 */
export function eventStream(description: string, events: Record<string, z.ZodType>): ZodOpenApiResponseObject {
  const variants = Object.entries(events).map(([event, data]) =>
    z.object({ id: z.string().describe('The event id: send it back as `Last-Event-ID` to resume after it'), event: z.literal(event), data }),
  );
  const [first, ...rest] = variants;
  if (!first) throw new Error('an event stream has at least one event');
  const schema = (rest.length === 0 ? first : z.union([first, ...rest])).describe(
    `One event of the stream. The stream opens with \`retry: 2000\`, sends a comment every 15 s while nothing happens, and ends after \`${Object.keys(events).at(-1) ?? ''}\`.`,
  );
  return { description, content: { 'text/event-stream': { schema } } };
}
