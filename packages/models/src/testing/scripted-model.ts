/**
 * A scripted OpenAI-compatible model for tests: a real HTTP server on loopback answering
 * `POST /v1/chat/completions` (JSON, or Server-Sent Events with `stream: true`) with whatever the
 * script says for each request — text, tool calls (parallel ones too), usage, or a failure status
 * with Retry-After. It logs every request (messages, tools, arrival time) and counts streams that
 * ended and streams whose client left, so tests assert on what the model saw.
 *
 *   const model = await startScriptedModel({ script: (request, n) => n === 0 ? { toolCalls: [{ name: 'search', arguments: '{"q":"x"}' }] } : { content: 'Done.' } });
 *   ... new ModelClient({ models: new Map([['default', { name: 'default', baseUrl: model.baseUrl, model: 'scripted' }]]) }) ...
 *   await model.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { completionBody, completionChunks, type CompletionReply } from '../completion-body.js';

/** A reply the script gives: text and/or tool calls (arguments as JSON text, sent as they are). */
export interface ScriptedReply {
  content?: string;
  toolCalls?: { name: string; arguments: string }[];
  /** Default: words of the messages read, and of the reply. */
  usage?: { promptTokens: number; completionTokens: number };
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: CompletionReply['finishReason'];
  /** This reply's delay between streamed chunks, ms, over the model's `tokenDelayMs`. */
  tokenDelayMs?: number;
  /** Ends the stream, cleanly but early, after this many chunks (as a proxy cutting it would). */
  endAfterChunks?: number;
}

/** A failure the script gives: the status, in OpenAI's error shape, with Retry-After when asked. */
export interface ScriptedFailure {
  status: 400 | 401 | 404 | 429 | 500 | 502 | 503;
  /** Sent as `retry-after-ms` and as `Retry-After` (seconds, rounded up). */
  retryAfterMs?: number;
}

export type ScriptStep = ScriptedReply | ScriptedFailure;

/** What the scripted model saw of one request. */
export interface ScriptedRequest {
  /** 0 for the first request the server received, then 1, 2, … */
  n: number;
  model: string;
  /** The messages as sent (OpenAI's wire format). */
  messages: Record<string, unknown>[];
  tools: { name: string; description?: string; parameters?: unknown }[];
  stream: boolean;
  maxTokens: number | undefined;
  /** `response_format` as sent (`{type: "json_schema", json_schema: {name, schema, strict}}`), when it was. */
  responseFormat: { type: string; json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean } } | undefined;
  /** `performance.now()` when the request's body had arrived. */
  receivedAt: number;
  /** The Authorization header, if any. */
  authorization: string | undefined;
}

/** The script: what to answer to the n-th request (0-based). */
export type Script = (request: ScriptedRequest, n: number) => ScriptStep | Promise<ScriptStep>;

export interface ScriptedModelOptions {
  script: Script;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Delay between streamed chunks, ms (a slow token stream). Default 0; also settable live. */
  tokenDelayMs?: number;
  /** Largest request body read; a larger one answers 413. Default 4 MiB. */
  maxBodyBytes?: number;
}

export interface ScriptedModelCounters {
  requests: number;
  failures: number;
  streamsStarted: number;
  streamsFinished: number;
  /** Streams whose client closed the connection before the end. */
  streamsAbandoned: number;
}

export interface ScriptedModel {
  /** The OpenAI base URL, `/v1` included. */
  baseUrl: string;
  /** Every request, in arrival order. */
  requests: ScriptedRequest[];
  counters: ScriptedModelCounters;
  /** Delay between streamed chunks, ms; change it live. */
  tokenDelayMs: number;
  close(): Promise<void>;
}

const isFailure = (step: ScriptStep): step is ScriptedFailure => 'status' in step;
const words = (text: string) => (text.trim() === '' ? 0 : text.trim().split(/\s+/).length);

export async function startScriptedModel(options: ScriptedModelOptions): Promise<ScriptedModel> {
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const sockets = new Set<Socket>();
  const model: ScriptedModel = {
    baseUrl: '',
    requests: [],
    counters: { requests: 0, failures: 0, streamsStarted: 0, streamsFinished: 0, streamsAbandoned: 0 },
    tokenDelayMs: options.tokenDelayMs ?? 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    handle(req, res, model, options.script, maxBodyBytes).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, error instanceof Error ? error.message : String(error));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  model.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return model;
}

async function handle(req: IncomingMessage, res: ServerResponse, model: ScriptedModel, script: Script, maxBodyBytes: number): Promise<void> {
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return sendError(res, 404, `No route for ${req.method} ${req.url}`);
  const body = await readBody(req, maxBodyBytes);
  if (body === undefined) return sendError(res, 413, `the request body is over ${maxBodyBytes} bytes`);
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return sendError(res, 400, 'the request body is not JSON');
  }
  const n = model.counters.requests;
  model.counters.requests += 1;
  const request = scriptedRequest(parsed, n, req.headers.authorization);
  model.requests.push(request);
  const step = await script(request, n);
  if (isFailure(step)) {
    model.counters.failures += 1;
    const headers: Record<string, string> = step.retryAfterMs === undefined ? {} : { 'retry-after-ms': String(step.retryAfterMs), 'retry-after': String(Math.ceil(step.retryAfterMs / 1000)) };
    return sendError(res, step.status, `scripted failure ${step.status} for request ${n}`, headers);
  }
  const reply = completionReply(step, request);
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completionBody(reply, request.model)));
    return;
  }
  const includeUsage = (parsed.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const chunks = [...completionChunks(reply, request.model, includeUsage)];
  await streamReply(res, step.endAfterChunks === undefined ? chunks : chunks.slice(0, step.endAfterChunks), model, () => step.tokenDelayMs ?? model.tokenDelayMs, step.endAfterChunks === undefined);
}

function scriptedRequest(body: Record<string, unknown>, n: number, authorization: string | undefined): ScriptedRequest {
  const tools = Array.isArray(body.tools) ? (body.tools as { function?: { name?: unknown; description?: unknown; parameters?: unknown } }[]) : [];
  return {
    n,
    model: typeof body.model === 'string' ? body.model : '',
    messages: Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [],
    tools: tools.map((tool) => ({
      name: String(tool.function?.name ?? ''),
      ...(typeof tool.function?.description === 'string' ? { description: tool.function.description } : {}),
      parameters: tool.function?.parameters,
    })),
    stream: body.stream === true,
    maxTokens: typeof body.max_tokens === 'number' ? body.max_tokens : undefined,
    responseFormat: typeof body.response_format === 'object' && body.response_format !== null ? (body.response_format as ScriptedRequest['responseFormat']) : undefined,
    receivedAt: performance.now(),
    authorization,
  };
}

function completionReply(step: ScriptedReply, request: ScriptedRequest): CompletionReply {
  const toolCalls = (step.toolCalls ?? []).map((call, index) => ({ id: `call_${request.n}_${index}`, name: call.name, arguments: call.arguments }));
  const content = step.content ?? null;
  const prompt = step.usage?.promptTokens ?? words(JSON.stringify(request.messages.map((message) => message.content ?? '')));
  const completion = step.usage?.completionTokens ?? words(content ?? '') + toolCalls.reduce((sum, call) => sum + words(`${call.name} ${call.arguments}`), 0);
  return {
    id: `chatcmpl-scripted-${request.n}`,
    content,
    toolCalls,
    finishReason: step.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

/** Writes each chunk as an SSE `data:` line, then `[DONE]` when `done`; stops as soon as the client leaves. */
async function streamReply(res: ServerResponse, chunks: Iterable<object>, model: ScriptedModel, tokenDelayMs: () => number, done: boolean): Promise<void> {
  const left = new AbortController();
  let finished = false;
  res.on('close', () => {
    if (!finished) left.abort();
  });
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  model.counters.streamsStarted += 1;
  try {
    let first = true;
    for (const chunk of chunks) {
      const delayMs = tokenDelayMs();
      if (!first && delayMs > 0) await sleep(delayMs, undefined, { signal: left.signal });
      first = false;
      if (left.signal.aborted) throw new Error('client left');
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    finished = true;
    res.end(done ? 'data: [DONE]\n\n' : undefined);
    model.counters.streamsFinished += 1;
  } catch (error) {
    if (!left.signal.aborted) throw error;
    model.counters.streamsAbandoned += 1;
  }
}

/** The body as text, or undefined once it passes `limit` bytes (the rest is not read). */
async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > limit) return undefined;
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers }).end(JSON.stringify({ error: { message, type, param: null, code: null } }));
}
