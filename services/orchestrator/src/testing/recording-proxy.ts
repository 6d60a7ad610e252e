/**
 * A loopback HTTP proxy in front of a tool service that records what each request carried, so a
 * test sees the headers as they travel on the wire (e.g. `traceparent`). Requests and responses,
 * streams included, pass through unchanged. The target can be set after the proxy starts, since
 * a test stack starts its tool services itself; until then the proxy answers 503.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TOOL_SERVICE_KEYS, type ToolServiceKey } from '@switchyard/contracts';
import { startTestStack, type TestStack, type TestStackOptions } from './stack.js';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface RecordingProxy {
  url: string;
  requests: ProxiedRequest[];
  /** Where requests go, e.g. the tool service's URL. */
  target: string | undefined;
  close(): Promise<void>;
}

export async function startRecordingProxy(): Promise<RecordingProxy> {
  const proxy: Omit<RecordingProxy, 'url' | 'close'> = { requests: [], target: undefined };
  const server = http.createServer((req, res) => {
    proxy.requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers });
    if (!proxy.target) {
      res.writeHead(503).end();
      return;
    }
    const target = new URL(req.url ?? '/', proxy.target);
    const upstream = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** A test stack whose workers and API reach each tool service through a recording proxy. */
export async function startProxiedTestStack(options: TestStackOptions): Promise<{ stack: TestStack; proxies: Record<ToolServiceKey, RecordingProxy>; close(): Promise<void> }> {
  const proxies = Object.fromEntries(await Promise.all(TOOL_SERVICE_KEYS.map(async (key) => [key, await startRecordingProxy()] as const))) as Record<ToolServiceKey, RecordingProxy>;
  const urls = Object.fromEntries(TOOL_SERVICE_KEYS.map((key) => [`${key.toUpperCase()}_SERVICE_URL`, proxies[key].url]));
  const stack = await startTestStack({ ...options, toolEnv: { ...options.toolEnv, ...urls } });
  for (const key of TOOL_SERVICE_KEYS) proxies[key].target = stack.tools.services[key].url;
  return {
    stack,
    proxies,
    async close() {
      await stack.close();
      await Promise.all(TOOL_SERVICE_KEYS.map((key) => proxies[key].close()));
    },
  };
}
