/**
 * Checking real responses against the OpenAPI document: the status must be documented for the
 * operation, the body must match the schema documented for it (ajv, JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1), and every header documented as required must be there.
 */
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readSse } from './events.js';

// ajv-formats is CommonJS: under NodeNext its function is the default export's `default`.
const addFormats = addFormatsModule.default;

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  headers?: Record<string, { required?: boolean }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, ResponseObject> }>>;
}

const DOCUMENT_ID = 'openapi.json';

export class ResponseChecker {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #document: OpenApiDocument;

  constructor(document: unknown) {
    addFormats(this.#ajv);
    this.#document = document as OpenApiDocument;
    // The document holds the components; a response schema's `#/components/…` refs point into it.
    this.#ajv.addSchema(document as object, DOCUMENT_ID);
  }

  /** The documented response for this operation and status; fails the test when there is none. */
  response(operation: { method: string; path: string }, status: number): ResponseObject {
    const item = this.#document.paths[operation.path]?.[operation.method];
    assert.ok(item, `${operation.method} ${operation.path} is documented`);
    const response = item.responses?.[String(status)];
    assert.ok(response, `${operation.method} ${operation.path} documents the status ${status}`);
    return response;
  }

  /**
   * Reads `res` and checks it against the document.
   * @param operation the documented operation: method in lower case, path as in the document
   * @param expected the status `res` must have (default: any the operation documents)
   */
  async check(operation: { method: string; path: string }, res: Response, expected?: number): Promise<unknown> {
    const label = `${operation.method} ${operation.path} → ${res.status}`;
    if (expected !== undefined) assert.equal(res.status, expected, `${label}: ${res.status === expected ? '' : await res.clone().text()}`);
    const response = this.response(operation, res.status);
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (header.required) assert.ok(res.headers.has(name), `${label} sends the header ${name}`);
    }
    const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    const media = response.content?.[type];
    assert.ok(media, `${label} documents the content type ${type}`);
    const body: unknown = type === 'application/json' ? await res.json() : await res.text();
    const validate = this.#ajv.compile(this.#rooted(media.schema));
    assert.ok(validate(body), `${label} matches its documented schema: ${this.#ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`);
    return body;
  }

  /**
   * Reads an event stream to its end and checks each event, as an EventSource parses it
   * (`id`, `event`, `data` as JSON), against the stream's documented schema. Returns the events.
   */
  async checkEvents(operation: { method: string; path: string }, res: Response): Promise<{ id: string; event: string; data: unknown }[]> {
    const label = `${operation.method} ${operation.path} → ${res.status}`;
    const media = this.response(operation, res.status).content?.['text/event-stream'];
    assert.ok(media, `${label} documents text/event-stream`);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const validate = this.#ajv.compile(this.#rooted(media.schema));
    const events = (await readSse(res)).map((e) => ({ id: e.id ?? '', event: e.event ?? 'message', data: JSON.parse(e.data) as unknown }));
    for (const event of events) assert.ok(validate(event), `${label}: event ${event.event} matches: ${this.#ajv.errorsText(validate.errors)}\n${JSON.stringify(event).slice(0, 2000)}`);
    return events;
  }

  /** A schema of the document made to resolve its `#/components/…` refs in the document. */
  #rooted(schema: unknown): object {
    return JSON.parse(JSON.stringify(schema ?? {}).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)) as object;
  }
}
