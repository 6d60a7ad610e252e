/**
 * Tools a service publishes on `GET /tools`, cached for a while and fetched again when stale or
 * when a tool is asked for that the cache does not know. Arguments are checked against each
 * tool's inputSchema with ajv before any call is made.
 */
import { ToolList, type ToolDescriptor } from '@switchyard/contracts';
import { ToolInputError, ToolProtocolError } from './errors.js';
import { InputSchemas } from './input-schemas.js';

export class ToolCatalog {
  readonly #load: () => Promise<unknown>;
  readonly #ttlMs: number;
  readonly #service: string;
  #tools = new Map<string, ToolDescriptor>();
  #loadedAt = -Infinity;
  #loading: Promise<void> | undefined;
  readonly #schemas: InputSchemas;

  /**
   * @param options.load fetches the raw `GET /tools` body
   * @param options.ttlMs how long a listing is trusted (default 60 s)
   * @param options.schemas where the tools' inputSchemas are compiled (default: its own)
   */
  constructor(options: { service: string; load: () => Promise<unknown>; ttlMs?: number; schemas?: InputSchemas }) {
    this.#service = options.service;
    this.#schemas = options.schemas ?? new InputSchemas();
    this.#load = options.load;
    this.#ttlMs = options.ttlMs ?? 60_000;
  }

  /** The published tools, fetching them when the cache is stale. */
  async list(): Promise<ToolDescriptor[]> {
    if (performance.now() - this.#loadedAt > this.#ttlMs) await this.refresh();
    return [...this.#tools.values()];
  }

  /** One tool; a miss refreshes once before giving up, since the service may have added it. */
  async get(name: string): Promise<ToolDescriptor | undefined> {
    await this.list();
    if (!this.#tools.has(name)) await this.refresh();
    return this.#tools.get(name);
  }

  /** Fetches the listing now; concurrent callers share one request. */
  refresh(): Promise<void> {
    this.#loading ??= this.#load()
      .then((body) => this.#accept(body))
      .finally(() => (this.#loading = undefined));
    return this.#loading;
  }

  /** Throws ToolInputError when `args` break the tool's inputSchema, or the tool is not published. */
  async checkArguments(tool: string, args: unknown): Promise<void> {
    const descriptor = await this.get(tool);
    if (!descriptor) {
      throw new ToolInputError({ service: this.#service, tool, code: 'tool_not_found', message: `${this.#service} does not publish a tool named '${tool}'` });
    }
    this.#schemas.check({ service: this.#service, tool, schema: descriptor.inputSchema }, args);
  }

  #accept(body: unknown): void {
    const parsed = ToolList.safeParse(body);
    if (!parsed.success) {
      throw new ToolProtocolError({ service: this.#service, code: 'invalid_reply', message: `${this.#service} answered GET /tools with something other than a tool list`, details: { issues: parsed.error.issues } });
    }
    this.#tools = new Map(parsed.data.map((tool) => [tool.name, tool]));
    this.#schemas.retain(parsed.data.map((tool) => tool.inputSchema));
    this.#loadedAt = performance.now();
  }
}
