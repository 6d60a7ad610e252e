/**
 * The forms elicitation asks with: only MCP's flat primitive fields, bounded in count and text
 * whatever the tool or the pipeline's schema holds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnswerDeps, WaitRecord } from '@switchyard/pipeline';
import { primitiveField, waitQuestion } from './elicit.js';

// The forms are built without touching the stores: answering is tested against a real stack.
const deps = {} as AnswerDeps;
const runKey = { scopes: new Set(['read', 'run']) };
const record = (fields: Partial<WaitRecord>): WaitRecord => ({ kind: 'signal', key: 'go', run_id: 'run_x', pipeline: 'p', stage: 's', created_at: new Date(0).toISOString(), job: { queue: 'q', id: 'j' }, ...fields });

test('primitive fields keep what MCP forms allow and refuse the rest', () => {
  assert.deepEqual(primitiveField({ type: 'string', format: 'regex', pattern: '^a', minLength: 2 }, 'ab'), { type: 'string', minLength: 2, default: 'ab' });
  assert.deepEqual(primitiveField({ type: 'string', format: 'email' }), { type: 'string', format: 'email' });
  assert.deepEqual(primitiveField({ type: 'integer', minimum: 1 }, 'x'), { type: 'integer', minimum: 1 });
  assert.deepEqual(primitiveField({ enum: ['a', 'b'] }, 'c'), { type: 'string', enum: ['a', 'b'] });
  assert.equal(primitiveField({ enum: [1, 2] }), undefined);
  assert.equal(primitiveField({ type: 'array', items: { type: 'string' } }), undefined);
  assert.equal(primitiveField({ type: ['string', 'null'] }), undefined);
  assert.equal(primitiveField({ type: 'object', properties: {} }), undefined);
});

test('a signal is asked only when its schema is a flat object of primitive fields, of a bounded count', () => {
  assert.ok(waitQuestion(deps, record({ schema: { type: 'object', properties: { ok: { type: 'boolean' } } } }), runKey));
  assert.equal(waitQuestion(deps, record({ schema: { type: 'object', properties: { at: { type: 'object', properties: {} } } } }), runKey), undefined);
  assert.equal(waitQuestion(deps, record({}), runKey), undefined, 'no schema: any JSON, which no form can ask');
  const many = Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`f${i}`, { type: 'string' }]));
  assert.equal(waitQuestion(deps, record({ schema: { type: 'object', properties: many } }), runKey), undefined);
});

test("an approval's form holds approve, note and at most 38 of the tool's primitive fields, its texts cut to 500 characters", () => {
  const properties = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, { type: 'string', description: 'd'.repeat(10_000) }]));
  const question = waitQuestion(deps, record({ kind: 'approval', key: 'c1', tool: 't', arguments: JSON.stringify({ f0: 'x'.repeat(10_000), approve: 'kept' }), reason: 'r'.repeat(10_000), parameters: { type: 'object', properties: { approve: { type: 'string' }, ...properties, deep: { type: 'object' } } } }), runKey);
  const form = question?.form;
  assert.equal(Object.keys(form?.requestedSchema.properties ?? {}).length, 40);
  assert.deepEqual(form?.requestedSchema.properties.approve, { type: 'boolean', title: 'Approve the call', default: true }, "a tool field named approve does not replace the form's own");
  assert.equal((form?.requestedSchema.properties.f0 as { description: string }).description.length, 500);
  assert.ok((form?.message.length ?? 0) < 1500, `the message is bounded (${form?.message.length})`);
});

test('a key that may not answer (read, admin) is asked nothing', () => {
  const signal = record({ schema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
  const approval = record({ kind: 'approval', key: 'c1', tool: 't', arguments: '{}', parameters: { type: 'object', properties: {} } });
  for (const scopes of [['read'], ['read', 'admin']]) {
    assert.equal(waitQuestion(deps, signal, { scopes }), undefined, scopes.join('+'));
    assert.equal(waitQuestion(deps, approval, { scopes }), undefined, scopes.join('+'));
  }
});
