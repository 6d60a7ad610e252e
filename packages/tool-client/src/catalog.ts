/**
 * Tools a service publishes on `GET /tools`, cached for a while and fetched again when stale or
 * when a tool is asked for that the cache does not know. Arguments are checked against each
 * tool's inputSchema with ajv before any call is made.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ToolList, type ToolDescriptor } from '@switchyard/contracts';
import { ToolInputError, ToolProtocolError } from './errors.js';

// ajv-formats is CommonJS: under NodeNext its plugin is the `default` of the imported module.
const addFormats = addFormatsModule.default;

function makeAjv(draft2020: boolean) {
  const ajv = draft2020 ? new Ajv2020({ allErrors: true, strict: false }) : new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}

export class ToolCatalog {
  readonly #load: () => Promise<unknown>;
  readonly #ttlMs: number;
  readonly #service: string;
  #tools = new Map<string, ToolDescriptor>();
  #loadedAt = -Infinity;
  #loading: Promise<void> | undefined;
  readonly #validators = new Map<string, ValidateFunction>();
  readonly #ajv = { draft7: makeAjv(false), draft2020: makeAjv(true) };

  /**
   * @param options.load fetches the raw `GET /tools` body
   * @param options.ttlMs how long a listing is trusted (default 60 s)
   */
  constructor(options: { service: string; load: () => Promise<unknown>; ttlMs?: number }) {
    this.#service = options.service;
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
    const validate = this.#validator(descriptor);
    if (validate(args)) return;
    const issues = (validate.errors ?? []).map((e) => ({ path: e.instancePath || '(arguments)', message: e.message ?? 'invalid' }));
    throw new ToolInputError({
      service: this.#service,
      tool,
      code: 'invalid_parameters',
      message: `Arguments for ${tool} do not match its inputSchema: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      details: { issues },
    });
  }

  #accept(body: unknown): void {
    const parsed = ToolList.safeParse(body);
    if (!parsed.success) {
      throw new ToolProtocolError({ service: this.#service, code: 'invalid_reply', message: `${this.#service} answered GET /tools with something other than a tool list`, details: { issues: parsed.error.issues } });
    }
    this.#tools = new Map(parsed.data.map((tool) => [tool.name, tool]));
    this.#validators.clear();
    this.#loadedAt = performance.now();
  }

  #validator(tool: ToolDescriptor): ValidateFunction {
    let validate = this.#validators.get(tool.name);
    if (!validate) {
      const draft2020 = String(tool.inputSchema.$schema ?? '').includes('2020-12');
      const ajv = draft2020 ? this.#ajv.draft2020 : this.#ajv.draft7;
      const { $id: _id, ...schema } = tool.inputSchema; // the same $id from two services must not clash in one ajv
      validate = ajv.compile(schema);
      this.#validators.set(tool.name, validate);
    }
    return validate;
  }
}
