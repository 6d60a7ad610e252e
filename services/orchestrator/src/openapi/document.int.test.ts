/**
 * The OpenAPI document as served: valid OpenAPI 3.1, public, in step with the routes the app
 * really serves, and its reference page working without the network.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { routeAccess } from '../route-scopes.js';
import { registeredRoutes } from '../testing/routes.js';
import { startTestStack, type TestStack } from '../testing/stack.js';

interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
}
interface Document {
  openapi: string;
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
let stack: TestStack;
let document: Document;

before(async () => {
  stack = await startTestStack({ label: 'openapi-document', inProcessWorkers: false });
  // No key: the document is public.
  const res = await fetch(`${stack.api.url}/openapi.json`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  document = (await res.json()) as Document;
});
after(() => stack.close());

const operations = () => Object.entries(document.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ method, path, operation: item[method] as Operation })));

test('the document at /openapi.json needs no key and is a valid OpenAPI 3.1 document', async () => {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  assert.equal(validator.version, '3.1');
  assert.match(document.openapi, /^3\.1\./);
});

/** Every Schema Object of the document: the components and each `schema` under the paths. */
function schemasIn(value: unknown, at: string, found: { at: string; schema: unknown }[] = []): { at: string; schema: unknown }[] {
  if (Array.isArray(value)) value.forEach((item, i) => schemasIn(item, `${at}/${i}`, found));
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'schema') found.push({ at: `${at}/schema`, schema: child });
      else schemasIn(child, `${at}/${key}`, found);
    }
  }
  return found;
}

test('every schema in the document is a valid JSON Schema 2020-12, the dialect of OpenAPI 3.1', () => {
  // The OpenAPI 3.1 meta-schema leaves Schema Objects to the dialect; ajv checks them against it.
  const ajv = new Ajv2020({ strict: false });
  const schemas = [...schemasIn(document.paths, '#/paths'), ...Object.entries(document.components.schemas).map(([name, schema]) => ({ at: `#/components/schemas/${name}`, schema }))];
  assert.ok(schemas.length > 50, `found ${schemas.length}`);
  for (const { at, schema } of schemas) assert.equal(ajv.validateSchema(schema as object), true, `${at}: ${ajv.errorsText(ajv.errors)}`);
});

test('every route the app serves is in the document, and the document has no route the app does not serve', () => {
  const served = new Set(registeredRoutes(stack.api.app).map((r) => `${r.method} ${r.path}`));
  const documented = new Set(operations().map((o) => `${o.method} ${o.path}`));
  assert.ok(served.size > 10, `the walk found the routes: ${[...served].join(', ')}`);
  assert.deepEqual([...served].filter((r) => !documented.has(r)), [], 'served but not documented');
  assert.deepEqual([...documented].filter((r) => !served.has(r)), [], 'documented but not served');
});

test('the key is a Bearer token, X-API-Key or the browser session cookie, asked with its scope of every /v1 operation and of no other', () => {
  const schemes = document.components.securitySchemes;
  const bearer = Object.entries(schemes).find(([, s]) => s.type === 'http' && s.scheme === 'bearer');
  const header = Object.entries(schemes).find(([, s]) => s.type === 'apiKey' && s.in === 'header' && s.name === 'X-API-Key');
  const cookie = Object.entries(schemes).find(([, s]) => s.type === 'apiKey' && s.in === 'cookie' && s.name === 'sy_session');
  assert.ok(bearer && header && cookie, JSON.stringify(schemes));
  // Alternatives: any scheme alone is enough.
  assert.deepEqual(document.security, [{ [bearer[0]]: [] }, { [header[0]]: [] }, { [cookie[0]]: [] }]);
  for (const { method, path, operation } of operations()) {
    const label = `${method} ${path}`;
    if (path.startsWith('/v1/')) {
      const scope = routeAccess(method, path);
      assert.ok(scope && scope !== 'public', `${label} needs a scope`);
      assert.deepEqual(operation.security, [{ [bearer[0]]: [scope] }, { [header[0]]: [scope] }, { [cookie[0]]: [scope] }], `${label} names its scope in each scheme`);
      for (const status of ['401', '403', '429', '503']) assert.ok(operation.responses[status], `${label} documents ${status}`);
    } else {
      assert.deepEqual(operation.security, [], `${label} is public`);
    }
  }
});

test('every documented error answers the one error shape', () => {
  for (const { method, path, operation } of operations()) {
    for (const [status, response] of Object.entries(operation.responses)) {
      // A health report answers 503 with the report itself, not an error.
      if (Number(status) < 400 || path === '/health' || path === '/readyz') continue;
      const schema = (response as { content?: Record<string, { schema?: { $ref?: string } }> }).content?.['application/json']?.schema;
      assert.equal(schema?.$ref, '#/components/schemas/Error', `${method} ${path} ${status}`);
    }
  }
});

test('/docs needs no key and answers an HTML page that loads only assets this server serves', async () => {
  const res = await fetch(`${stack.api.url}/docs`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const html = await res.text();
  const references = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? '');
  assert.ok(references.length >= 2, html);
  for (const reference of references) {
    assert.match(reference, /^\/(?!\/)/, `${reference} is a path on this server`);
    const asset = await fetch(`${stack.api.url}${reference}`);
    assert.equal(asset.status, 200, reference);
    await asset.arrayBuffer();
  }
  assert.doesNotMatch(html, /https?:\/\//, 'no absolute URL, so nothing is fetched from elsewhere');
  // The initializer is a file of the page (no inline script, for its Content-Security-Policy).
  assert.match(html, /<script src="\/docs\/init\.js"><\/script>/);
  assert.match(await (await fetch(`${stack.api.url}/docs/init.js`)).text(), /url: '\/openapi\.json'/);
});

test('/docs serves only the reference page\'s own files, not the rest of the Swagger UI package', async () => {
  for (const path of ['/docs/index.html', '/docs/swagger-initializer.js', '/docs/package.json']) {
    const res = await fetch(`${stack.api.url}${path}`);
    assert.equal(res.status, 404, path);
    await res.arrayBuffer();
  }
});
