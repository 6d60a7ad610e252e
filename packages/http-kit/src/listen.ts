import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface Listening {
  server: Server;
  port: number;
  /** Base URL such as `http://127.0.0.1:8101`. */
  url: string;
  /** Stops accepting connections and ends idle keep-alive ones. */
  close(): Promise<void>;
}

/**
 * Starts `app` on `host:port` (port 0 picks a free one) and resolves once it is listening.
 * @param options.host interface to bind (default 127.0.0.1)
 */
export function listen(app: Express, options: { port: number; host?: string }): Promise<Listening> {
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = app.listen(options.port, host);
    // Node closes an idle keep-alive connection after 5 s, close to the 4 s after which clients
    // (undici's fetch) stop reusing one: a client whose event loop was busy could send a request
    // on a socket being closed and see it reset. Idle connections are kept a minute instead, longer
    // than clients and load balancers keep theirs, so it is always the client that closes first.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    server.once('error', reject);
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo;
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      resolve({
        server,
        port,
        url: `http://${shownHost}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
          }),
      });
    });
  });
}
