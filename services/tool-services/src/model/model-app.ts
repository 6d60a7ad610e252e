/**
 * The offline model endpoint, OpenAI-compatible: `POST /v1/chat/completions` (JSON or, with
 * `stream: true`, Server-Sent Events of `chat.completion.chunk`) and `GET /v1/models`, with
 * `GET /health`. Answers come from the deterministic offline model (offline-model.ts), so agents
 * and tests run with no model and no network. Errors are in OpenAI's shape.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import express, { type Express, type Response } from 'express';
import { apiKeyAuth, HttpError, jsonBody } from '@switchyard/http-kit';
import type { Logger } from '@switchyard/logger';
import { completionBody, completionChunks, CREATED } from '@switchyard/models/wire';
import { emptyRateLimitLog, rateLimitWait, type ModelFaultKnobs, type RateLimitLog } from './model-faults.js';
import { replyTo } from './offline-model.js';
import { openAiErrorMiddleware } from './openai-errors.js';
import { chatCompletionRequest, DEFAULT_MODEL_LIMITS, type ModelLimits } from './schema.js';
import { anthropicErrorMiddleware, anthropicUsage, messageBody, messageEvents, messagesRequest, toCompletionRequest } from './anthropic-messages.js';

/** The model id `GET /v1/models` lists; any `model` in a request is accepted and echoed. */
export const OFFLINE_MODEL_ID = 'switchyard-offline';

/** What the endpoint has done, live: tests read it to see a stream stop when its client leaves. */
export interface ModelStats {
  completions: number;
  streamsStarted: number;
  streamsFinished: number;
  /** Streams whose client left before the end; the server wrote nothing to them after that. */
  streamsAbandoned: number;
  chunksWritten: number;
  /** What the rate-limit knob admitted and refused, with the requests' arrival times. */
  rateLimit: RateLimitLog;
}

export interface ModelAppOptions {
  /** Accepted API keys (`Authorization: Bearer` or `X-API-Key`); empty leaves the endpoint open. */
  apiKeys: readonly string[];
  /** Live fault knobs (see model-faults.ts). */
  faults: ModelFaultKnobs;
  logger: Logger;
  /** Largest accepted request body. Default "1mb". */
  bodyLimit?: string;
  /** Bounds of one request. Default DEFAULT_MODEL_LIMITS (256 messages, 64 tools, 64 properties per tool). */
  limits?: Partial<ModelLimits>;
  /** Filled as requests are served (default: an object of this app's own). */
  stats?: ModelStats;
}

export function emptyModelStats(): ModelStats {
  return { completions: 0, streamsStarted: 0, streamsFinished: 0, streamsAbandoned: 0, chunksWritten: 0, rateLimit: emptyRateLimitLog() };
}

export function createModelApp(options: ModelAppOptions): Express {
  const app = express();
  const limits = { ...DEFAULT_MODEL_LIMITS, ...options.limits };
  const schema = chatCompletionRequest(limits);
  const anthropicSchema = messagesRequest(limits);
  const stats = options.stats ?? emptyModelStats();
  app.disable('x-powered-by');
  app.get('/health', (_req, res) => void res.json({ status: 'healthy', service: 'model_service', model: OFFLINE_MODEL_ID }));
  if (options.apiKeys.length > 0) app.use(apiKeyAuth({ keys: options.apiKeys, realm: 'model_service' }));
  app.use(jsonBody({ limit: options.bodyLimit ?? '1mb' }));

  app.get('/v1/models', (_req, res) => {
    res.json({ object: 'list', data: [{ id: OFFLINE_MODEL_ID, object: 'model', created: CREATED, owned_by: 'switchyard' }] });
  });

  app.post('/v1/chat/completions', async (req, res) => {
    const request = schema.parse(req.body ?? {});
    refuseOverLimit(options.faults, stats.rateLimit);
    injectFailure(options.faults);
    if (options.faults.latencyMs > 0) await sleep(options.faults.latencyMs);
    const reply = replyTo(request);
    stats.completions += 1;
    if (!request.stream) {
      res.json(completionBody(reply, request.model));
      return;
    }
    await streamChunks(res, completionChunks(reply, request.model, request.stream_options?.include_usage === true), options.faults, stats);
  });

  // Anthropic's Messages API on the same model (anthropic-messages.ts): base URL is this origin.
  app.post('/v1/messages', async (req, res) => {
    const request = anthropicSchema.parse(req.body ?? {});
    const completion = toCompletionRequest(request, limits);
    injectFailure(options.faults);
    if (options.faults.latencyMs > 0) await sleep(options.faults.latencyMs);
    const reply = replyTo(completion);
    const usage = anthropicUsage(request, reply);
    stats.completions += 1;
    if (!request.stream) {
      res.json(messageBody(reply, request.model, usage));
      return;
    }
    await streamChunks(res, messageEvents(reply, request.model, usage), options.faults, stats);
  });
  app.use('/v1/messages', anthropicErrorMiddleware(options.logger));

  app.use((req, _res, next) => next(new HttpError({ status: 404, code: 'not_found', message: `No route for ${req.method} ${req.path}` })));
  app.use(openAiErrorMiddleware(options.logger));
  return app;
}

/**
 * Writes each chunk as an SSE `data:` line (an `{event, data}` of Anthropic's stream as `event:` and
 * `data:`), then OpenAI's `data: [DONE]` (Anthropic's stream ends with its message_stop); stops as
 * soon as the client leaves.
 */
async function streamChunks(res: Response, chunks: Iterable<object | { event: string; data: object }>, faults: ModelFaultKnobs, stats: ModelStats): Promise<void> {
  const left = new AbortController();
  res.on('close', () => left.abort());
  res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  stats.streamsStarted += 1;
  let named = false;
  try {
    let first = true;
    for (const chunk of chunks) {
      if (!first && faults.tokenDelayMs > 0) await sleep(faults.tokenDelayMs, undefined, { signal: left.signal });
      first = false;
      if (left.signal.aborted) throw left.signal.reason;
      res.write(isNamedEvent(chunk) ? `event: ${chunk.event}\ndata: ${JSON.stringify(chunk.data)}\n\n` : `data: ${JSON.stringify(chunk)}\n\n`);
      stats.chunksWritten += 1;
      named ||= isNamedEvent(chunk);
    }
    res.end(named ? '' : 'data: [DONE]\n\n');
    stats.streamsFinished += 1;
  } catch (error) {
    if (!left.signal.aborted) throw error;
    stats.streamsAbandoned += 1;
  }
}

/** The rate-limit knob: a request past its window's share is answered 429, saying when the window ends. */
function refuseOverLimit(faults: ModelFaultKnobs, log: RateLimitLog): void {
  const waitMs = rateLimitWait(faults, log);
  if (waitMs === null) return;
  const headers = { 'Retry-After': String(Math.ceil(waitMs / 1000)), 'retry-after-ms': String(waitMs) };
  throw new HttpError({ status: 429, code: 'rate_limit_exceeded', message: `Rate limit reached for the offline model: ${faults.rateLimit?.requests} requests per ${faults.rateLimit?.windowMs} ms`, headers });
}

function isNamedEvent(chunk: object): chunk is { event: string; data: object } {
  return 'event' in chunk && 'data' in chunk && typeof chunk.event === 'string';
}

function injectFailure(faults: ModelFaultKnobs): void {
  const fails = faults.failNext > 0 || (faults.failureRate > 0 && Math.random() < faults.failureRate);
  if (!fails) return;
  if (faults.failNext > 0) faults.failNext -= 1;
  if (faults.failureStatus === 500) throw new HttpError({ status: 500, code: 'internal_error', message: 'The model failed (injected fault)' });
  const headers: Record<string, string> = faults.retryAfterMs > 0 ? { 'Retry-After': String(Math.ceil(faults.retryAfterMs / 1000)), 'retry-after-ms': String(faults.retryAfterMs) } : {};
  throw new HttpError({ status: 429, code: 'rate_limit_exceeded', message: 'Rate limit reached for the offline model (injected fault)', headers });
}
