/**
 * Tool federation: every tool the configured tool services publish on `GET /tools` becomes an MCP
 * tool with its inputSchema as given, called through the same resilient client the workers use
 * (input check, retries, timeouts, circuit breaker), in the mode configured for its service. Each
 * service's listing is read once it answers: at start-up, or for a service that could not be
 * reached then, by a retry in the background, whose tools are then added and announced to
 * clients (`notifications/tools/list_changed`).
 */
import type { z } from 'zod';
import { STAGE_DOCUMENT_TOOL, STORY_TOOL_SCHEMAS, StageDocumentOutput, TOOL_SERVICE_KEYS, type ToolDescriptor, type ToolServiceKey, type ToolServicesConfig } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logger';
import { createStoryToolClients, ToolCallError, ToolInputError, type ToolClientOptions, type ToolServiceClient } from '@switchyard/tool-client';
import { failure, InvalidArgumentsError, success, type JsonSchema, type SuiteTool, type ToolContext, type ToolSuite } from '@switchyard/tool-suite';
import { outputSchemaOf } from '../error-body.js';

export interface FederationOptions {
  config: ToolServicesConfig;
  logger: Logger;
  /** Overrides for every client (e.g. shorter retries in tests). */
  client?: Partial<Omit<ToolClientOptions, 'service' | 'baseUrl'>>;
  /** How long start-up waits for one service's listing, in ms (default 5000). */
  discoveryTimeoutMs?: number;
  /** How often a service that has not answered yet is asked again, in ms (default 15000). */
  rediscoverMs?: number;
}

/** The federation suite; `close` stops asking the services that have not answered yet. */
export interface FederationSuite extends ToolSuite {
  close(): void;
}

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms).unref())]);

/** Outputs the project's contracts define; other tools' answers are only known to be objects. */
const KNOWN_OUTPUTS: Record<string, z.ZodType> = {
  ...Object.fromEntries(Object.entries(STORY_TOOL_SCHEMAS).map(([name, io]) => [name, io.output])),
  [STAGE_DOCUMENT_TOOL]: StageDocumentOutput,
};
const outputSchemaFor = (name: string): JsonSchema => {
  const known = KNOWN_OUTPUTS[name];
  return known ? outputSchemaOf(known) : { type: 'object', description: 'The tool\'s output (an object as the service answers it, anything else under `result`), or {error:{code,message,details}}' };
};

/** The service's own title when it publishes one, else the name as words: "Search relevant information". */
function titleOf(descriptor: ToolDescriptor): string {
  const given = (descriptor as { title?: unknown }).title;
  if (typeof given === 'string' && given.trim() !== '') return given.trim();
  const words = descriptor.name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A tool's output as structured content: objects as they are, anything else under `result`. */
const structured = (output: unknown): Record<string, unknown> => (output && typeof output === 'object' && !Array.isArray(output) ? (output as Record<string, unknown>) : { result: output });

function federatedTool(key: ToolServiceKey, client: ToolServiceClient, config: ToolServicesConfig, descriptor: ToolDescriptor): SuiteTool {
  const mode = config.services[key].mode;
  return {
    name: descriptor.name,
    // Where the service runs is the operator's business, not the model's: no address here.
    description: `${descriptor.description} (tool service "${key}", called ${mode})`.trim(),
    inputSchema: descriptor.inputSchema,
    outputSchema: outputSchemaFor(descriptor.name),
    // The services say nothing of side effects; each call reaches an outside service (and maybe a model).
    annotations: { title: titleOf(descriptor), openWorldHint: true },
    longRunning: true,
    handler: async (args, context) => {
      try {
        const output = await client.call({ tool: descriptor.name, args, mode, signal: context.signal, onProgress: progressOf(context) });
        return success(structured(output));
      } catch (error) {
        if (error instanceof ToolInputError && error.code === 'invalid_parameters') throw new InvalidArgumentsError(error.message, error.details);
        if (error instanceof ToolCallError) return failure({ error: { code: error.code, message: error.message, details: { service: error.service, tool: error.tool, retryable: error.retryable, ...(error.details === undefined ? {} : { cause: error.details }) } } });
        throw error;
      }
    },
  };
}

/** A stream's progress events as MCP progress, dropping any that would not grow. */
function progressOf(context: ToolContext) {
  let last = -1;
  return (progress: { completed: number; message?: string | undefined }) => {
    if (!(progress.completed > last)) return;
    last = progress.completed;
    void context.reportProgress({ progress: progress.completed, total: 100, ...(progress.message ? { message: progress.message } : {}) }).catch(() => undefined);
  };
}

export async function federationSuite(options: FederationOptions): Promise<FederationSuite> {
  const clients = createStoryToolClients(options.config, options.client);
  const tools: SuiteTool[] = [];
  const seen = new Set<string>();
  const listeners: ((tools: SuiteTool[]) => void)[] = [];
  let unanswered: ToolServiceKey[] = [...TOOL_SERVICE_KEYS];
  const warned = new Set<ToolServiceKey>();

  /** Lists the services not heard from yet; answers the tools they added. */
  const discover = async (): Promise<SuiteTool[]> => {
    const found: SuiteTool[] = [];
    const answered = await Promise.all(
      unanswered.map(async (key) => {
        try {
          const listed = await within(clients[key].listTools(), options.discoveryTimeoutMs ?? 5000, `GET ${options.config.services[key].url}/tools`);
          for (const descriptor of listed) {
            if (seen.has(descriptor.name)) {
              options.logger.warn({ service: key, tool: descriptor.name }, 'a tool of that name is federated already; this one is left out');
              continue;
            }
            seen.add(descriptor.name);
            found.push(federatedTool(key, clients[key], options.config, descriptor));
          }
          return key;
        } catch (error) {
          // Said once, in one line (a service not up yet is expected, not a fault of the bridge); the
          // retries every few seconds would otherwise fill the log while a service is down.
          const reason = error instanceof Error ? error.message : String(error);
          const url = options.config.services[key].url;
          if (warned.has(key)) options.logger.debug({ service: key, url, reason }, 'tool service still not reachable');
          else options.logger.warn({ service: key, url, reason }, 'tool service not reachable: its tools are federated once it answers');
          warned.add(key);
          return undefined;
        }
      }),
    );
    unanswered = unanswered.filter((key) => !answered.includes(key));
    return found.sort((a, b) => a.name.localeCompare(b.name));
  };

  tools.push(...(await discover()));
  let asking = false;
  const timer = setInterval(() => {
    if (asking) return;
    asking = true;
    void discover()
      .then((added) => {
        if (unanswered.length === 0) clearInterval(timer);
        if (added.length === 0) return;
        tools.push(...added);
        options.logger.info({ tools: added.map((tool) => tool.name) }, 'tools federated from a tool service that answered late');
        for (const listener of listeners) listener(added);
      })
      .catch((error: unknown) => options.logger.error({ err: error }, 'adding late tool service tools failed'))
      .finally(() => (asking = false));
  }, options.rediscoverMs ?? 15_000);
  timer.unref();
  if (unanswered.length === 0) clearInterval(timer);

  return {
    name: 'federation',
    description: 'Tools of the configured tool services, called through the resilient tool client.',
    tools,
    onToolsAdded: (listener) => void listeners.push(listener),
    close: () => clearInterval(timer),
  };
}
