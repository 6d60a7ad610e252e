/**
 * A free loopback port to hand to a process that binds it later. The port is chosen below the
 * kernel's ephemeral range: every outgoing TCP connection takes a local port from that range, so a
 * port picked there can be taken by some connection between the pick and the bind (an
 * `EADDRINUSE` at start-up, seen when two test suites ran side by side). Below it, only another
 * deliberate pick can collide, and picks are random over some twenty thousand ports.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Lowest port picked: above the well-known and most registered service ports. */
const LOWEST = 10_000;
/** Ports tried below the ephemeral range before asking the OS for one in it. */
const TRIES = 20;

/** The kernel's ephemeral range (Linux), or undefined where it cannot be read. */
export function ephemeralPortRange(file = '/proc/sys/net/ipv4/ip_local_port_range'): { low: number; high: number } | undefined {
  try {
    const [low, high] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    return low !== undefined && high !== undefined && Number.isInteger(low) && Number.isInteger(high) && low <= high ? { low, high } : undefined;
  } catch {
    return undefined;
  }
}

/** Binds `port` (0: any) on 127.0.0.1 and closes it again; the bound port, or undefined when taken. */
function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(undefined) : reject(error)));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/** A free TCP port on 127.0.0.1, below the ephemeral range when there is room there. */
export async function freePort(): Promise<number> {
  const range = ephemeralPortRange();
  if (range && range.low - LOWEST >= 1000) {
    for (let i = 0; i < TRIES; i += 1) {
      const port = await tryPort(LOWEST + Math.floor(Math.random() * (range.low - LOWEST)));
      if (port !== undefined) return port;
    }
  }
  const any = await tryPort(0);
  if (any === undefined) throw new Error('no free TCP port on 127.0.0.1');
  return any;
}
