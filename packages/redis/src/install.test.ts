import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { findRedisServer, planRedisInstall, type HostFacts } from './install.js';

const debian = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n';
const ubuntu = 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\n';
const mint = 'NAME="Linux Mint"\nID=linuxmint\nID_LIKE="ubuntu debian"\n';
const fedora = 'NAME="Fedora Linux"\nID=fedora\n';
const host = (facts: Partial<HostFacts>): HostFacts => ({ platform: 'linux', isRoot: true, osRelease: debian, hasAptGet: true, ...facts });

test('root on Debian, Ubuntu or a derivative installs with apt-get', () => {
  for (const osRelease of [debian, ubuntu, mint]) assert.deepEqual(planRedisInstall(host({ osRelease })), { kind: 'apt' });
});

test('a non-root user on Debian is told to use sudo', () => {
  const plan = planRedisInstall(host({ isRoot: false }));
  assert.equal(plan.kind, 'manual');
  assert.match(plan.kind === 'manual' ? plan.instruction : '', /sudo apt-get install -y redis-server/);
});

test('other systems get one line that says how, naming REDIS_URL', () => {
  for (const facts of [host({ osRelease: fedora, hasAptGet: false }), host({ platform: 'darwin', osRelease: '' }), host({ osRelease: debian, hasAptGet: false })]) {
    const plan = planRedisInstall(facts);
    assert.equal(plan.kind, 'manual');
    if (plan.kind === 'manual') {
      assert.doesNotMatch(plan.instruction, /\n/);
      assert.match(plan.instruction, /REDIS_URL/);
    }
  }
});

test('redis-server is found on the given PATH', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sy-path-'));
  const fake = path.join(dir, 'redis-server');
  writeFileSync(fake, '#!/bin/sh\n');
  chmodSync(fake, 0o755);
  assert.equal(findRedisServer(dir), fake);
});
