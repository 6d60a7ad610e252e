import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ephemeralPortRange, freePort } from './free-port.js';

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

test('the ephemeral range is read from the kernel, and an unreadable or malformed file gives none', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'free-port-'));
  const file = path.join(dir, 'range');
  writeFileSync(file, '32768\t60999\n');
  assert.deepEqual(ephemeralPortRange(file), { low: 32768, high: 60999 });
  writeFileSync(file, 'nonsense\n');
  assert.equal(ephemeralPortRange(file), undefined);
  assert.equal(ephemeralPortRange(path.join(dir, 'absent')), undefined);
});

test('a free port is below the ephemeral range, where no outgoing connection takes it before it is bound, and it can be bound', async () => {
  const range = ephemeralPortRange();
  assert.ok(range, 'this Linux machine has an ephemeral range');
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const port of ports) assert.ok(port >= 10_000 && port < range.low, `${port} is below ${range.low}`);
  const servers = await Promise.all([...new Set(ports)].map((port) => listen(port)));
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});
