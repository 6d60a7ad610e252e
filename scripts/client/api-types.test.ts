import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { API_TYPES_FILE, generateApiTypes } from './api-types.js';

test("the client's checked-in types are what the current OpenAPI document generates (else: npm run client:generate)", async () => {
  const expected = await generateApiTypes();
  const actual = readFileSync(API_TYPES_FILE, 'utf8');
  assert.ok(actual === expected, 'packages/client/src/generated/openapi.ts is out of date with the OpenAPI document: run `npm run client:generate` and commit it');
});

test('a change to the document changes the generated types, so the check above can fail', async () => {
  const document = JSON.parse(JSON.stringify((await import('@switchyard/orchestrator')).createOpenApiDocument())) as { paths: Record<string, unknown> };
  document.paths['/v1/extra'] = { get: { operationId: 'extra', responses: { '204': { description: 'nothing' } } } };
  const changed = await generateApiTypes(document);
  assert.notEqual(changed, await generateApiTypes());
  assert.match(changed, /"\/v1\/extra"/);
});
