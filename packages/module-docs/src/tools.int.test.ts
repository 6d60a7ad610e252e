import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { MODULE_TYPES } from './module.js';
import { ModuleStore, moduleDocsKeys } from './store.js';
import { createModuleDocsHandler, ERROR_CODES, listAvailableTools, type McpResponse } from './tools.js';

let redis: Redis;
let prefix: string;
let handle: ReturnType<typeof createModuleDocsHandler>;

before(async () => {
  redis = createRedisClient((await testRedis()).url);
  prefix = uniquePrefix('module-docs');
  handle = createModuleDocsHandler(new ModuleStore({ redis, prefix }));
});
after(() => redis.quit());

const resultOf = (response: McpResponse) => {
  assert.ok('result' in response, JSON.stringify(response));
  return response.result;
};
const errorOf = (response: McpResponse) => {
  assert.ok('error' in response, JSON.stringify(response));
  return response.error;
};
const keysWritten = async () => (await redis.keys(`${prefix}:*`)).sort();
const writeCount = async (project: string) => Number((await redis.get(moduleDocsKeys(prefix, project).version)) ?? 0);

test('the four tools are listed with a description and an input schema', () => {
  assert.deepEqual(listAvailableTools().map((t) => t.name), ['add_module', 'get_module_by_name', 'smart_search', 'get_type_structure']);
  for (const tool of listAvailableTools()) assert.equal((tool.inputSchema as { type: string }).type, 'object');
});

test('replies are JSON-RPC 2.0 responses carrying the request id', async () => {
  const reply = await handle('get_type_structure', { type_name: 'file' }, 7);
  assert.equal(reply.jsonrpc, '2.0');
  assert.equal(reply.id, 7);
  const failed = await handle('get_type_structure', {}, 'abc');
  assert.equal(failed.id, 'abc');
  assert.equal(errorOf(failed).code, ERROR_CODES.invalidParams);
});

test('a module is added under its parent with a generated hierarchical name, and found by that name', async () => {
  resultOf(await handle('add_module', { name: 'utils', type: 'file', description: 'Shared helpers', file: 'src/utils.ts', project: 'p1' }));
  const added = resultOf(await handle('add_module', { name: 'parse_line', type: 'function', description: 'Parses one line of input', parent: 'utils', file: 'src/utils.ts', project: 'p1' }));
  assert.deepEqual(added.module, { name: 'parse_line', hierarchical_name: 'utils.parse_line', type: 'function', description: 'Parses one line of input', parent: 'utils', file: 'src/utils.ts' });
  assert.deepEqual(resultOf(await handle('get_module_by_name', { hierarchical_name: 'utils.parse_line', project: 'p1' })).module, added.module);
  assert.equal(errorOf(await handle('get_module_by_name', { hierarchical_name: 'utils.parse_line', project: 'p2' })).code, ERROR_CODES.moduleNotFound, 'projects are kept apart');
});

test('a duplicate name, a missing parent and a sixth level are refused, and nothing is written', async () => {
  let parent: string | undefined;
  for (const name of ['l1', 'l2', 'l3', 'l4', 'l5']) {
    resultOf(await handle('add_module', { name, type: 'class', description: `level ${name}`, project: 'deep', ...(parent ? { parent } : {}) }));
    parent = parent ? `${parent}.${name}` : name;
  }
  assert.equal(parent, 'l1.l2.l3.l4.l5', 'five levels are accepted');
  const before = await writeCount('deep');
  const keys = await keysWritten();
  assert.equal(errorOf(await handle('add_module', { name: 'l6', type: 'class', description: 'too deep', parent, project: 'deep' })).code, ERROR_CODES.invalidParams);
  assert.equal(errorOf(await handle('add_module', { name: 'l1', type: 'class', description: 'again', project: 'deep' })).code, ERROR_CODES.duplicateModule);
  assert.equal(errorOf(await handle('add_module', { name: 'orphan', type: 'class', description: 'no parent', parent: 'nowhere', project: 'deep' })).code, ERROR_CODES.parentNotFound);
  assert.equal(errorOf(await handle('add_module', { name: '9lives', type: 'class', description: 'bad name', project: 'deep' })).code, ERROR_CODES.invalidParams);
  assert.equal(errorOf(await handle('add_module', { name: 'ok', type: 'module', description: 'bad type', project: 'deep' })).code, ERROR_CODES.invalidParams);
  assert.equal(await writeCount('deep'), before);
  assert.deepEqual(await keysWritten(), keys);
  assert.equal((resultOf(await handle('get_module_by_name', { hierarchical_name: 'l1', project: 'deep' })).module as { description: string }).description, 'level l1');
});

test('smart_search ranks, filters and pages what was added', async () => {
  for (const [name, description] of [['render', 'Draws the page'], ['parser', 'Reads the input'], ['parse', 'Entry point'], ['reparse_all', 'Parses again']] as const) {
    resultOf(await handle('add_module', { name, type: 'function', description, project: 'search' }));
  }
  const page = resultOf(await handle('smart_search', { query: 'parse', project: 'search', limit: 2 }));
  assert.equal(page.total, 3);
  assert.deepEqual((page.results as { module: { name: string }; score: number }[]).map((r) => r.module.name), ['parse', 'parser']);
  const byDescription = resultOf(await handle('smart_search', { query: 'page', project: 'search' }));
  assert.deepEqual((byDescription.results as { module: { name: string } }[]).map((r) => r.module.name), ['render']);
});

test('get_type_structure describes each of the five types with its fields', async () => {
  for (const type_name of MODULE_TYPES) {
    const structure = resultOf(await handle('get_type_structure', { type_name }));
    assert.equal(structure.type_name, type_name);
    assert.ok(typeof structure.description === 'string' && structure.description.length > 10);
    const fields = structure.fields as { name: string; required: boolean }[];
    assert.deepEqual(fields.filter((f) => f.required).map((f) => f.name), ['name', 'hierarchical_name', 'type', 'description']);
    assert.ok('parent' in (structure.structure as object));
  }
});

test('an unknown tool answers method not found', async () => {
  assert.equal(errorOf(await handle('delete_module', {})).code, ERROR_CODES.methodNotFound);
});
