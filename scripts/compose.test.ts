import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { REPO_ROOT } from '@switchyard/redis';

const compose = readFileSync(`${REPO_ROOT}docker-compose.yml`, 'utf8');

test('the compose stack refuses to start without its keys and publishes no placeholder key', () => {
  const keyUses = [...compose.matchAll(/\$\{(API_KEYS|TOOL_SERVICE_API_KEY)([^}]*)\}/g)];
  assert.ok(keyUses.length >= 4, 'the keys are passed to the services');
  for (const [use, , rest] of keyUses) assert.match(rest ?? '', /^:\?/, `${use} must stop the stack when unset`);
  assert.doesNotMatch(compose, /change-me/);
});
