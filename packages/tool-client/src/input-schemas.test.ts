import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ToolCatalog } from './catalog.js';
import { ToolInputError } from './errors.js';
import { InputSchemas } from './input-schemas.js';

const topicSchema = () => JSON.parse('{"$id":"urn:search","type":"object","properties":{"topic":{"type":"string","maxLength":5}},"required":["topic"]}') as Record<string, unknown>;
const depthSchema = () => JSON.parse('{"type":"object","properties":{"depth":{"type":"integer","maximum":3}}}') as Record<string, unknown>;

test('a listing fetched again with the same schemas compiles none of them again', () => {
  const schemas = new InputSchemas();
  assert.equal(schemas.validator(topicSchema())({ topic: 'sea' }), true);
  schemas.retain([topicSchema()]);
  const again = topicSchema();
  assert.equal(schemas.validator(again)({ topic: 'mountains' }), false);
  assert.equal(schemas.compilations, 1);
  assert.equal(schemas.size, 1);
});

test('a schema that leaves the listing is dropped, and one listed anew is compiled', () => {
  const schemas = new InputSchemas();
  schemas.validator(topicSchema());
  schemas.retain([depthSchema()]);
  assert.equal(schemas.size, 0);
  assert.equal(schemas.validator(depthSchema())({ depth: 4 }), false);
  // The dropped one left ajv too: compiling it again is a new compile, with no clash of its $id.
  assert.equal(schemas.validator(topicSchema())({ topic: 'sea' }), true);
  assert.equal(schemas.compilations, 3);
});

test('arguments that break the schema are refused with every problem named', () => {
  const schemas = new InputSchemas();
  assert.throws(
    () => schemas.check({ service: 'search', tool: 'find', schema: topicSchema() }, { topic: 'a long topic' }),
    (error: unknown) => error instanceof ToolInputError && error.code === 'invalid_parameters' && /\/topic/.test(error.message),
  );
});

test('a catalog whose listing is fetched a thousand times keeps one schema compiled', async () => {
  const schemas = new InputSchemas();
  // Each fetch parses its body anew, as a listing from GET /tools is: new objects every time.
  const catalog = new ToolCatalog({ service: 'search', ttlMs: 0, schemas, load: async () => JSON.parse(JSON.stringify([{ name: 'find', description: 'finds', inputSchema: topicSchema() }])) as unknown });
  for (let i = 0; i < 1000; i++) await catalog.checkArguments('find', { topic: 'sea' });
  await assert.rejects(catalog.checkArguments('find', { topic: 'mountains' }), ToolInputError);
  assert.equal(schemas.compilations, 1);
  assert.equal(schemas.size, 1);
});
