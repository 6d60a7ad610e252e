/**
 * A TCP proxy to a Redis on 127.0.0.1 that holds every chunk `delayMs` each way, for the bench's
 * single-story acceptance: with it between the orchestrator and Redis, a request's time counts its
 * round trips (each costs 2 × `delayMs`), whatever else the machine is doing, and the chunks sent
 * to Redis while it is measured say how many round trips a request made.
 */
import net from 'node:net';

export interface DelayProxy {
  /** The proxy's Redis URL. */
  url: string;
  /** Chunks sent on to Redis so far (a command, a pipeline or a MULTI goes as one). */
  sent(): number;
  close(): void;
}

export async function startDelayProxy(options: { redisUrl: string; delayMs: number }): Promise<DelayProxy> {
  const target = new URL(options.redisUrl);
  if (target.hostname !== '127.0.0.1' && target.hostname !== 'localhost') throw new Error('the delay proxy only fronts a Redis on 127.0.0.1');
  let sent = 0;
  const sockets = new Set<net.Socket>();
  // Every chunk is held the same time, so the order of a connection's chunks is kept.
  const later = (to: net.Socket, count: boolean) => (chunk: Buffer) => {
    if (count) sent += 1;
    setTimeout(() => void (to.destroyed || to.write(chunk)), options.delayMs);
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) sockets.add(socket);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', later(upstream, true));
    upstream.on('data', later(client, false));
    // A close is held as long as the chunks before it, which would be lost else (QUIT's reply).
    for (const socket of [client, upstream]) socket.on('close', () => setTimeout(end, options.delayMs)).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    sent: () => sent,
    close() {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
