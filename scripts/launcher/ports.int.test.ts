import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { freePort } from '@switchyard/redis';
import { choosePort, portIsFree } from './ports.js';

test('a free port is used as asked, and a taken one is swapped for a free one with a note', async () => {
  const wanted = await freePort();
  assert.deepEqual(await choosePort(wanted), { port: wanted });

  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(wanted, '127.0.0.1', resolve));
  try {
    assert.equal(await portIsFree(wanted), false);
    const chosen = await choosePort(wanted);
    assert.notEqual(chosen.port, wanted);
    assert.equal(chosen.note, `port ${wanted} is taken; the API uses ${chosen.port} instead`);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});
