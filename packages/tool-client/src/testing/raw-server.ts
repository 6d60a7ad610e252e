/**
 * A hand-written HTTP server on loopback for wire details the reference services never produce
 * (CRLF framing, multi-line data, foreign poll URLs). It records every request it receives.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type RawHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export async function startRawServer(handler: RawHandler): Promise<{ url: string; port: number; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export const TOOLS_LISTING = JSON.stringify([
  { name: 'write_story_section', description: 'w', inputSchema: { type: 'object', properties: {}, additionalProperties: true } },
  { name: 'polish_story', description: 'p', inputSchema: { type: 'object', properties: {}, additionalProperties: true } },
]);
