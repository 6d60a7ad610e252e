/**
 * The Switchyard API as typed calls: openapi-fetch over the generated `paths`, each answer
 * unwrapped (the data, or an ApiError carrying the API's code and message, or ApiUnreachable),
 * and the event streams followed with resume. `api` is the openapi-fetch client itself, for a
 * call this surface does not name.
 */
import createClient, { type Client } from 'openapi-fetch';
import { ApiError, ApiUnreachable, networkProblem } from './errors.js';
import { followEvents, type FollowOptions, type StreamEvent } from './events.js';
import type { paths } from './generated/openapi.js';
import type {
  ApprovalAccepted,
  ApprovalRequest,
  InboxList,
  InboxQuery,
  ScheduleDeleted,
  ScheduleList,
  ScheduleRequest,
  ScheduleView,
  SignalAnswer,
  BatchAccepted,
  BatchEvent,
  BatchList,
  BatchListQuery,
  BatchRequest,
  BatchView,
  PipelineList,
  PipelineRegistered,
  PipelineDeleted,
  PipelineView,
  RunAccepted,
  RunEvent,
  RunList,
  RunListQuery,
  RunView,
} from './types.js';

export interface ClientOptions {
  /** The API's root, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** The API key, sent as `Authorization: Bearer`; without one, `/v1` answers 401. */
  key?: string | undefined;
  /** Ms one call may take, its answer read (default 30 000). Event streams have their own budget. */
  timeoutMs?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** What following a stream may be given, besides its handler (see FollowOptions for defaults). */
export type FollowSettings = Omit<FollowOptions, 'url' | 'headers' | 'onEvent' | 'fetch'>;

/** A pipeline's definition as sent: YAML or JSON text, or an object (sent as JSON). */
export type DefinitionSource = { text: string; format: 'yaml' | 'json' } | { object: Record<string, unknown> };

type Answer<D> = { data?: D; error?: unknown; response: Response };

export const DEFAULT_TIMEOUT_MS = 30_000;

export class SwitchyardClient {
  /** The openapi-fetch client over the generated paths, with the key and the timeout. */
  readonly api: Client<paths>;
  readonly url: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.#headers = options.key ? { authorization: `Bearer ${options.key}` } : {};
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#fetch = options.fetch ?? fetch;
    const timed = (request: Request) => this.#fetch(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(this.#timeoutMs)]) });
    this.api = createClient<paths>({ baseUrl: this.url, headers: this.#headers, fetch: timed });
  }

  health() {
    return this.#send('GET /health', () => this.api.GET('/health'));
  }

  listPipelines(): Promise<PipelineList> {
    return this.#send('GET /v1/pipelines', () => this.api.GET('/v1/pipelines'));
  }

  getPipeline(name: string): Promise<PipelineView> {
    return this.#send(`GET /v1/pipelines/${name}`, () => this.api.GET('/v1/pipelines/{name}', { params: { path: { name } } }));
  }

  /** Registers a definition under `name` (a new version, or `unchanged` when it is the latest). */
  registerPipeline(name: string, source: DefinitionSource): Promise<PipelineRegistered> {
    const call = `PUT /v1/pipelines/${name}`;
    if ('object' in source) return this.#send(call, () => this.api.PUT('/v1/pipelines/{name}', { params: { path: { name } }, body: source.object as never }));
    // Text goes as written, so the API's messages point into the file the user has.
    const contentType = source.format === 'json' ? 'application/json' : 'application/yaml';
    return this.#send(call, () =>
      this.api.PUT('/v1/pipelines/{name}', { params: { path: { name } }, body: source.text as never, bodySerializer: (body: unknown) => body as string, headers: { 'content-type': contentType } }),
    );
  }

  /** Deletes a pipeline, every version; runs already started finish on theirs. */
  deletePipeline(name: string): Promise<PipelineDeleted> {
    return this.#send(`DELETE /v1/pipelines/${name}`, () => this.api.DELETE('/v1/pipelines/{name}', { params: { path: { name } } }));
  }

  /** Starts a run of a pipeline (its latest version unless `version` is given; `priority` 1 first to 9 last, default 3). */
  startRun(pipeline: string, input: Record<string, unknown>, options: { version?: number; idempotencyKey?: string; priority?: number } = {}): Promise<RunAccepted> {
    const query = { ...(options.version ? { version: options.version } : {}), ...(options.priority ? { priority: options.priority } : {}) };
    return this.#send(`POST /v1/pipelines/${pipeline}/runs`, () =>
      this.api.POST('/v1/pipelines/{name}/runs', {
        params: { path: { name: pipeline }, ...(Object.keys(query).length > 0 ? { query } : {}), ...(options.idempotencyKey ? { header: { 'Idempotency-Key': options.idempotencyKey } } : {}) },
        body: input,
      }),
    );
  }

  getRun(runId: string): Promise<RunView> {
    return this.#send(`GET /v1/runs/${runId}`, () => this.api.GET('/v1/runs/{runId}', { params: { path: { runId } } }));
  }

  listRuns(query: RunListQuery = {}): Promise<RunList> {
    return this.#send('GET /v1/runs', () => this.api.GET('/v1/runs', { params: { query } }));
  }

  cancelRun(runId: string): Promise<RunView> {
    return this.#send(`DELETE /v1/runs/${runId}`, () => this.api.DELETE('/v1/runs/{runId}', { params: { path: { runId } } }));
  }

  startBatch(body: BatchRequest, options: { idempotencyKey?: string } = {}): Promise<BatchAccepted> {
    return this.#send('POST /v1/batches', () => this.api.POST('/v1/batches', { body, ...(options.idempotencyKey ? { params: { header: { 'Idempotency-Key': options.idempotencyKey } } } : {}) }));
  }

  getBatch(batchId: string, page: { offset?: number; limit?: number } = {}): Promise<BatchView> {
    return this.#send(`GET /v1/batches/${batchId}`, () => this.api.GET('/v1/batches/{batchId}', { params: { path: { batchId }, query: page } }));
  }

  listBatches(query: BatchListQuery = {}): Promise<BatchList> {
    return this.#send('GET /v1/batches', () => this.api.GET('/v1/batches', { params: { query } }));
  }

  /** What runs wait for (oldest first). */
  listInbox(query: InboxQuery = {}): Promise<InboxList> {
    return this.#send('GET /v1/inbox', () => this.api.GET('/v1/inbox', { params: { query } }));
  }

  /** Approves (with edited arguments) or refuses (with a note) a tool call that waits. */
  answerApproval(runId: string, callId: string, body: ApprovalRequest): Promise<ApprovalAccepted> {
    return this.#send(`POST /v1/runs/${runId}/approvals/${callId}`, () => this.api.POST('/v1/runs/{runId}/approvals/{callId}', { params: { path: { runId, callId } }, body }));
  }

  /** Sends a signal (its payload checked against the wait step's schema). */
  sendSignal(runId: string, name: string, payload: unknown): Promise<SignalAnswer> {
    return this.#send(`POST /v1/runs/${runId}/signals/${name}`, () => this.api.POST('/v1/runs/{runId}/signals/{name}', { params: { path: { runId, name } }, body: payload as never }));
  }

  listSchedules(page: { offset?: number; limit?: number } = {}): Promise<ScheduleList> {
    return this.#send('GET /v1/schedules', () => this.api.GET('/v1/schedules', { params: { query: page } }));
  }

  getSchedule(name: string): Promise<ScheduleView> {
    return this.#send(`GET /v1/schedules/${name}`, () => this.api.GET('/v1/schedules/{name}', { params: { path: { name } } }));
  }

  putSchedule(name: string, body: ScheduleRequest): Promise<ScheduleView> {
    return this.#send(`PUT /v1/schedules/${name}`, () => this.api.PUT('/v1/schedules/{name}', { params: { path: { name } }, body }));
  }

  pauseSchedule(name: string): Promise<ScheduleView> {
    return this.#send(`POST /v1/schedules/${name}/pause`, () => this.api.POST('/v1/schedules/{name}/pause', { params: { path: { name } } }));
  }

  resumeSchedule(name: string): Promise<ScheduleView> {
    return this.#send(`POST /v1/schedules/${name}/resume`, () => this.api.POST('/v1/schedules/{name}/resume', { params: { path: { name } } }));
  }

  deleteSchedule(name: string): Promise<ScheduleDeleted> {
    return this.#send(`DELETE /v1/schedules/${name}`, () => this.api.DELETE('/v1/schedules/{name}', { params: { path: { name } } }));
  }

  /** Follows a run's events until `done`; resolves with the last event id (to resume from later). */
  followRun(runId: string, onEvent: (event: RunEvent) => void, settings: FollowSettings = {}): Promise<{ lastEventId: string | undefined }> {
    return this.#follow(`/v1/runs/${encodeURIComponent(runId)}/events`, (event) => onEvent(event as RunEvent), settings);
  }

  /** Follows a batch's events (`run` as each run ends, then `done`). */
  followBatch(batchId: string, onEvent: (event: BatchEvent) => void, settings: FollowSettings = {}): Promise<{ lastEventId: string | undefined }> {
    return this.#follow(`/v1/batches/${encodeURIComponent(batchId)}/events`, (event) => onEvent(event as BatchEvent), settings);
  }

  #follow(pathname: string, onEvent: (event: StreamEvent) => void, settings: FollowSettings) {
    return followEvents({ ...settings, url: `${this.url}${pathname}`, headers: this.#headers, onEvent, fetch: this.#fetch });
  }

  async #send<D>(call: string, request: () => Promise<Answer<D>>): Promise<D> {
    let answer: Answer<D>;
    try {
      answer = await request();
    } catch (error) {
      throw new ApiUnreachable(this.url, `${call}: ${this.url} ${networkProblem(error, this.#timeoutMs)}`, { cause: error });
    }
    if (!answer.response.ok) throw apiErrorOf(call, answer.response, answer.error);
    return answer.data as D;
  }
}

/** An error answer as an ApiError: the API's `{error:{code,message,details}}`, or what it said. */
function apiErrorOf(call: string, response: Response, body: unknown): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  if (error && typeof error.message === 'string') {
    return new ApiError({ status: response.status, code: typeof error.code === 'string' ? error.code : `http_${response.status}`, message: error.message, details: (error.details ?? {}) as Record<string, unknown>, call });
  }
  const text = typeof body === 'string' && body.trim() ? body.trim().slice(0, 200) : response.statusText || `HTTP ${response.status}`;
  return new ApiError({ status: response.status, code: `http_${response.status}`, message: text, call });
}

export function createSwitchyardClient(options: ClientOptions): SwitchyardClient {
  return new SwitchyardClient(options);
}
