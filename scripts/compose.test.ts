import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { REPO_ROOT } from '@switchyard/redis';
import { SERVICE_VARIABLES } from './launcher/service-env.js';

const compose = readFileSync(`${REPO_ROOT}docker-compose.yml`, 'utf8');

test('the compose stack refuses to start without its keys and publishes no placeholder key', () => {
  const keyUses = [...compose.matchAll(/\$\{(API_KEYS|TOOL_SERVICE_API_KEY)([^}]*)\}/g)];
  assert.ok(keyUses.length >= 4, 'the keys are passed to the services');
  for (const [use, , rest] of keyUses) assert.match(rest ?? '', /^:\?/, `${use} must stop the stack when unset`);
  assert.doesNotMatch(compose, /change-me/);
});

test("every variable a service's env schema reads reaches it from compose: handed through from the host, or set by compose itself", () => {
  // The reference tool services' ports are fixed inside the network (8101-8104, the model 8105) and published as such.
  const fixed = /^[A-Z]+_SERVICE_PORT$/;
  // The crash-point hook is for the tests' own processes: a deployment never sets it.
  const testOnly = new Set(['SWITCHYARD_CRASH_POINT']);
  const missing = [...SERVICE_VARIABLES].filter((name) => !fixed.test(name) && !testOnly.has(name) && !compose.includes(`\${${name}`) && !new RegExp(`^\\s+${name}:`, 'm').test(compose));
  assert.deepEqual(missing, []);
});
