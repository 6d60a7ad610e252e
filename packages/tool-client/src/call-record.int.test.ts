/**
 * What a call reports when it ends (`onCallEnd`), against the real reference services: who was
 * called and how, and an outcome word from a fixed set, whatever the service said.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { createOfflineAuthor, startToolServices, type ToolServicesStack } from '@switchyard/tool-services';
import { CALL_OUTCOMES, type ToolCallRecord } from './call-record.js';
import { ToolServiceClient } from './client.js';

const API_KEY = 'test-key-call-record';
let stack: ToolServicesStack;

before(async () => {
  stack = await startToolServices({ author: createOfflineAuthor(), logger: createLogger({ name: 'test', level: 'silent' }), apiKeys: [API_KEY] });
});
after(() => stack.close());

function recordingClient(key: keyof ToolServicesStack['services'], apiKey = API_KEY) {
  const records: ToolCallRecord[] = [];
  const client = new ToolServiceClient({ service: key, baseUrl: stack.services[key].url, apiKey, retry: { retries: 1, minDelayMs: 10, maxDelayMs: 20 }, poll: { initialDelayMs: 10, maxDelayMs: 20 }, onCallEnd: (record) => records.push(record) });
  return { client, records };
}

test('a call that succeeds reports ok with its service, tool, mode and duration', async () => {
  const { client, records } = recordingClient('editing');
  await client.call({ tool: 'polish_story', args: { draft: 'A short draft about a lighthouse keeper who collects letters.' }, mode: 'async' });
  assert.equal(records.length, 1);
  const [record] = records;
  assert.deepEqual({ ...record, seconds: undefined }, { service: 'editing', tool: 'polish_story', mode: 'async', outcome: 'ok', seconds: undefined });
  assert.ok((record?.seconds ?? -1) > 0);
});

test('a call that fails reports the kind of failure once, after its retries, never the message or status', async () => {
  const { client, records } = recordingClient('search');
  const { faults } = stack.services.search;
  faults.failureRate = 1;
  try {
    await assert.rejects(client.call({ tool: 'search_relevant_information', args: { topic: 'tides' } }));
  } finally {
    faults.failureRate = 0;
  }
  assert.deepEqual(records.map((r) => r.outcome), ['unavailable'], 'two attempts are one call');
  const refused = recordingClient('search', 'wrong-key');
  await assert.rejects(refused.client.call({ tool: 'search_relevant_information', args: { topic: 'tides' } }));
  assert.equal(refused.records[0]?.outcome, 'rejected');
  for (const record of [...records, ...refused.records]) assert.ok(CALL_OUTCOMES.includes(record.outcome));
});

test('a tool the service does not publish is reported as unknown, so a caller cannot add names', async () => {
  const { client, records } = recordingClient('outline');
  await assert.rejects(client.call({ tool: `invented_${Date.now()}`, args: {} }));
  assert.deepEqual(records.map((r) => [r.tool, r.outcome]), [['unknown', 'invalid_input']]);
});
