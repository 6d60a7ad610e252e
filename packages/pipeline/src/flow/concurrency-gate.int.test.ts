/**
 * A concurrency gate on a real Redis (or cluster), with a process dying between any two of its
 * round trips: whatever was left half done, the line goes on, in order, never past its limit.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { ConcurrencyGates } from './concurrency-gate.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.disconnect());

const gateOf = (limit: number) => ({ scope: 'run:per-user', value: 'ann', limit });
const job = (id: string) => ({ queue: 'tool-search', id });

test('members are let through up to the limit and the rest wait in the order they asked, each keeping its place', async () => {
  const gates = new ConcurrencyGates({ redis, prefix: uniquePrefix('gate-order') });
  const gate = gateOf(2);
  assert.deepEqual(await gates.acquire(gate, 'a', { job: job('a') }), { admitted: true, holders: 1 });
  assert.deepEqual(await gates.acquire(gate, 'b', { job: job('b') }), { admitted: true, holders: 2 });
  assert.deepEqual(await gates.acquire(gate, 'c', { job: job('c') }), { admitted: false, ahead: 0, holders: 2 });
  assert.deepEqual(await gates.acquire(gate, 'd', { job: job('d') }), { admitted: false, ahead: 1, holders: 2 });
  assert.deepEqual(await gates.acquire(gate, 'c', { job: job('c') }), { admitted: false, ahead: 0, holders: 2 }, 'asking again keeps its place');
  assert.deepEqual(await gates.acquire(gate, 'a'), { admitted: true, holders: 2 }, 'a holder asking again is let through (its other jobs)');
  assert.deepEqual(await gates.release(gate, ['a']), [job('c')], 'a release answers the job first in line, to wake');
  assert.deepEqual(await gates.acquire(gate, 'd'), { admitted: false, ahead: 1, holders: 1 }, 'a later member cannot take the place of one ahead of it');
  assert.deepEqual(await gates.acquire(gate, 'c'), { admitted: true, holders: 2 });
  assert.deepEqual(await gates.look(gate), { holders: ['b', 'c'], waiting: ['d'] });
});

test('a holder whose run ended without being released (its process died first) gives way to the next member that finds the key full', async () => {
  const gates = new ConcurrencyGates({ redis, prefix: uniquePrefix('gate-lost-release') });
  const gate = gateOf(1);
  await gates.acquire(gate, 'ended-run', { job: job('x') });
  assert.equal((await gates.acquire(gate, 'next', { job: job('next') })).admitted, false);
  // The process that ended `ended-run` died before releasing it: the next asker sweeps.
  const woken = await gates.sweep(gate, async (members) => members.map((m) => m !== 'ended-run'));
  assert.deepEqual(woken, [job('next')]);
  assert.deepEqual(await gates.acquire(gate, 'next'), { admitted: true, holders: 1 });
});

test('a member let through whose job died before starting is let through again when its job looks, holding one place', async () => {
  const gates = new ConcurrencyGates({ redis, prefix: uniquePrefix('gate-lost-start') });
  const gate = gateOf(1);
  await gates.acquire(gate, 'a', { job: job('a') });
  // Its worker died here; the job comes back (stalled, or its delay ends) and asks again.
  assert.deepEqual(await gates.acquire(gate, 'a', { job: job('a') }), { admitted: true, holders: 1 });
  assert.equal((await gates.acquire(gate, 'b')).admitted, false, 'the limit still holds');
});

test('a run cancelled while first in line is dropped from it, and the one behind goes', async () => {
  const gates = new ConcurrencyGates({ redis, prefix: uniquePrefix('gate-dead-head') });
  const gate = gateOf(1);
  await gates.acquire(gate, 'holder', { job: job('h') });
  await gates.acquire(gate, 'cancelled', { job: job('c') });
  await gates.acquire(gate, 'behind', { job: job('b') });
  // The holder ends and is released, but the woken head is a cancelled run whose job is gone.
  assert.deepEqual(await gates.release(gate, ['holder']), [job('c')]);
  assert.equal((await gates.acquire(gate, 'behind')).admitted, false, 'the line keeps its order');
  const woken = await gates.sweep(gate, async (members) => members.map((m) => m !== 'cancelled'));
  assert.deepEqual(woken, [job('b')]);
  assert.deepEqual(await gates.acquire(gate, 'behind'), { admitted: true, holders: 1 });
});

test('without waiting, a full key refuses and keeps nothing; an idle key leaves no keys behind', async () => {
  const prefix = uniquePrefix('gate-refuse');
  const gates = new ConcurrencyGates({ redis, prefix });
  const gate = { scope: 'live:key-1', value: '', limit: 1 };
  assert.equal((await gates.acquire(gate, 'first', { wait: false })).admitted, true);
  assert.deepEqual(await gates.acquire(gate, 'second', { wait: false }), { admitted: false, ahead: 0, holders: 1 });
  assert.deepEqual(await gates.look(gate), { holders: ['first'], waiting: [] });
  await gates.release(gate, ['first']);
  const keys = gates.keysOf(gate);
  assert.equal(await redis.exists(keys.holders, keys.waiting, keys.jobs), 0);
  // One slot per gate on a cluster: every key carries the same hash tag.
  const tags = new Set(Object.values(keys).map((key) => /\{[^}]+\}/.exec(key)?.[0]));
  assert.equal(tags.size, 1);
});
