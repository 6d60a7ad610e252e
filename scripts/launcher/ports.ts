/**
 * A service's port: the one wanted, or the default (the API's 8080); when that one is taken, a
 * free one (and a note saying so).
 */
import { createServer } from 'node:net';
import { freePort } from '@switchyard/redis';

export const DEFAULT_PORT = 8080;

export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

export async function choosePort(wanted: number | undefined, options: { fallback?: number; what?: string } = {}): Promise<{ port: number; note?: string }> {
  const port = wanted ?? options.fallback ?? DEFAULT_PORT;
  if (await portIsFree(port)) return { port };
  const free = await freePort();
  return { port: free, note: `port ${port} is taken; ${options.what ?? 'the API'} uses ${free} instead` };
}
