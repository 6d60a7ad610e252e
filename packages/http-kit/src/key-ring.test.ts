import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressBucket } from './client-address.js';
import { KeyRing, keyDigest } from './key-ring.js';

test('the key ring knows each key by its digest with its scopes, and plain keys have every scope', () => {
  const ring = new KeyRing(['plain', { key: 'reader', scopes: ['read'] }, { key: 'runner', scopes: ['read', 'run'] }]);
  assert.deepEqual([...(ring.identify('plain')?.scopes ?? [])], ['read', 'run', 'admin']);
  assert.deepEqual([...(ring.identify('reader')?.scopes ?? [])], ['read']);
  assert.equal(ring.identify('runner')?.digest, keyDigest('runner'));
  assert.ok(!ring.identify('runner')?.digest.includes('runner'));
  assert.equal(ring.byDigest(keyDigest('reader')), ring.identify('reader'));
  for (const wrong of ['', undefined, 'reade', 'readerx', 'READER', keyDigest('reader')]) assert.equal(ring.identify(wrong), undefined, String(wrong));
  assert.equal(ring.byDigest(keyDigest('nobody')), undefined);
});

test('wrong keys are counted per IPv4 address, per IPv4 behind an IPv6 mapping, and per IPv6 /64', () => {
  assert.equal(addressBucket('127.0.0.2'), '127.0.0.2');
  assert.equal(addressBucket('::ffff:10.1.2.3'), '10.1.2.3');
  assert.equal(addressBucket('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(addressBucket('2001:db8:1:2::9'), '2001:db8:1:2::/64', 'two hosts of one /64 share a count');
  assert.equal(addressBucket('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressBucket('::1'), '0:0:0:0::/64');
  assert.equal(addressBucket('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(addressBucket(undefined), 'unknown');
});
