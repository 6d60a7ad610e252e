/**
 * What a step needs from the tool services, as one interface: the step processor calls it, the
 * HTTP implementation goes through the resilient tool client (one per configured service), and
 * benchmarks or tests may pass an in-process one.
 */
import { pipelineToolServices, type ToolCallMode, type ToolDescriptor, type ToolServicesConfig } from '@switchyard/contracts';
import { ToolServiceClient, type RemoteTask, type ToolClientOptions } from '@switchyard/tool-client';

export interface StageCall {
  signal: AbortSignal;
  /** Streamed content, chunk by chunk (stream mode). */
  onChunk?: (chunk: string) => void;
  /** A stream broke and starts over: drop the chunks seen so far. */
  onReset?: () => void;
  /** An async call was accepted: record the task to resume it after a crash. */
  onTaskAccepted?: (task: RemoteTask) => Promise<void>;
  /** Poll this task instead of starting the work again. */
  resumeTask?: RemoteTask | undefined;
  /** The call's `Idempotency-Key`: derived from the run, stage (and iteration, or agent call), so every attempt and takeover sends the same. */
  idempotencyKey?: string | undefined;
}

export interface StepToolCall extends StageCall {
  service: string;
  tool: string;
  args: Record<string, unknown>;
  /** Default: the service's configured mode. */
  mode?: ToolCallMode | undefined;
  /** Per-attempt timeout in ms (default: the service's). */
  timeoutMs?: number | undefined;
}

export interface StepTools {
  /** The configured services' names. */
  services(): readonly string[];
  /** How a service is called when a step does not say. */
  modeOf(service: string): ToolCallMode;
  call(call: StepToolCall): Promise<unknown>;
  /**
   * The descriptor `service` publishes for `tool` (its GET /tools listing, as the client keeps it),
   * or undefined when it publishes none such. Absent: descriptors are not known (in-process tools).
   */
  describe?(service: string, tool: string): Promise<ToolDescriptor | undefined>;
  /** Releases what the tools hold (none for HTTP). */
  close?(): Promise<void>;
}

/** Every configured service over HTTP, each called in its configured mode unless a step says otherwise. */
export function createHttpTools(config: ToolServicesConfig, overrides: Partial<Omit<ToolClientOptions, 'service' | 'baseUrl'>> = {}): StepTools & { clients: Record<string, ToolServiceClient> } {
  const services = pipelineToolServices(config);
  const clients = Object.fromEntries(services.map((s) => [s.name, new ToolServiceClient({ timeoutMs: s.timeoutMs, apiKey: config.apiKey, ...overrides, service: s.name, baseUrl: s.url })]));
  const modes = new Map(services.map((s) => [s.name, s.mode]));
  return {
    clients,
    services: () => services.map((s) => s.name),
    modeOf: (service) => modes.get(service) ?? 'sync',
    call({ service, mode, ...call }) {
      const client = clients[service];
      if (!client) return Promise.reject(new Error(`no tool service ${service} is configured`));
      return client.call({ ...call, mode: mode ?? modes.get(service) ?? 'sync' });
    },
    async describe(service, tool) {
      const client = clients[service];
      if (!client) throw new Error(`no tool service ${service} is configured`);
      return (await client.listTools()).find((descriptor) => descriptor.name === tool);
    },
  };
}
