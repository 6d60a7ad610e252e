/**
 * The configured tool services as a registration asks about them: their names, the tools each
 * publishes on `GET /tools` (asked each time, as a service may publish new ones), and a client
 * per service for other short questions such as health.
 */
import { pipelineToolServices, type ToolDescriptor, type ToolServicesConfig } from '@switchyard/contracts';
import { ToolServiceClient } from './client.js';

export interface ServiceDirectory {
  /** The services' names, the four story ones first. */
  services(): readonly string[];
  /** The tools `service` publishes; rejects when it cannot be reached or is not configured. */
  tools(service: string): Promise<ToolDescriptor[]>;
  clients: Readonly<Record<string, ToolServiceClient>>;
  urls: Readonly<Record<string, string>>;
}

/** Longest wait for a directory question: someone is waiting on the answer. */
const QUESTION_TIMEOUT_MS = 10_000;

/** Clients that ask once (no retries) and wait at most 10 s or the service's own timeout. */
export function serviceDirectory(config: ToolServicesConfig): ServiceDirectory {
  const services = pipelineToolServices(config);
  const clients = Object.fromEntries(services.map((s) => [s.name, new ToolServiceClient({ service: s.name, baseUrl: s.url, apiKey: config.apiKey, timeoutMs: Math.min(s.timeoutMs, QUESTION_TIMEOUT_MS), retry: { retries: 0 } })]));
  const names = services.map((s) => s.name);
  return {
    services: () => names,
    tools: async (service) => {
      const client = clients[service];
      if (!client) throw new Error(`no service ${service}`);
      return client.listTools();
    },
    clients,
    urls: Object.fromEntries(services.map((s) => [s.name, s.url])),
  };
}
