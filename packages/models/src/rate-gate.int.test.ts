/**
 * The rate-limit hook around a turn, against the scripted model over real HTTP: the gate is asked
 * before every request (retries of a 5xx too) and told each reply's tokens; a 429 goes to the gate,
 * once, and ends the turn instead of being retried here; a gate's long wait ends the turn with
 * nothing sent.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { ModelConfig } from './config.js';
import { ModelCallError } from './errors.js';
import { ModelClient } from './model-client.js';
import { ModelRateLimitWait, type TurnGate } from './rate-gate.js';
import { startScriptedModel, type ScriptedModel, type ScriptStep } from './testing/scripted-model.js';

let model: ScriptedModel;
let next: (n: number) => ScriptStep = () => ({ content: 'ok' });
before(async () => {
  model = await startScriptedModel({ script: (_request, n) => next(n) });
});
after(() => model.close());
beforeEach(() => {
  model.requests.length = 0;
});

/** A gate that records what it is told, and may refuse the first admission with a long wait. */
function recordingGate(options: { waitFirst?: number } = {}) {
  const told: { admits: { model: string; slot: number | undefined }[]; spent: number[]; limited: (number | undefined)[] } = { admits: [], spent: [], limited: [] };
  const gate: TurnGate = {
    admit(config: ModelConfig, admission) {
      told.admits.push({ model: config.name, slot: admission.slot });
      if (options.waitFirst !== undefined && told.admits.length === 1) return Promise.reject(new ModelRateLimitWait({ model: config.name, waitMs: options.waitFirst, slot: 1234 }));
      return Promise.resolve();
    },
    spent(_config, tokens) {
      told.spent.push(tokens);
      return Promise.resolve();
    },
    limited(_config, error) {
      told.limited.push(error.retryAfterMs);
      return Promise.resolve();
    },
  };
  return { gate, told };
}

const clientWith = (gate: TurnGate) => new ModelClient({ models: new Map([['default', { name: 'default', baseUrl: model.baseUrl, model: 'scripted-1' }]]), baseBackoffMs: 5, maxBackoffMs: 20, gate });
const turn = (client: ModelClient, rateSlot?: number) => client.turn({ model: 'default', messages: [{ role: 'user', content: 'Tides?' }], tools: [], signal: new AbortController().signal, rateSlot });

async function rejection(promise: Promise<unknown>): Promise<ModelCallError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelCallError, `expected a ModelCallError, got ${String(error)}`);
    return error;
  }
  assert.fail('the turn was expected to fail');
}

test('the gate admits every request of a turn, retries included, the reserved slot going with the first, and is told the tokens spent', async () => {
  let asked = 0;
  next = () => ((asked += 1) === 1 ? { status: 500 } : { content: 'The tide turns.', usage: { promptTokens: 12, completionTokens: 5 } });
  const { gate, told } = recordingGate();
  const reply = await turn(clientWith(gate), 777);
  assert.equal(reply.attempts, 2);
  assert.deepEqual(told.admits, [{ model: 'default', slot: 777 }, { model: 'default', slot: undefined }]);
  assert.deepEqual(told.spent, [17]);
  assert.deepEqual(told.limited, []);
});

test('a 429 is told to the gate with its Retry-After and ends the turn: the client does not retry it itself', async () => {
  next = () => ({ status: 429, retryAfterMs: 3000 });
  const { gate, told } = recordingGate();
  const error = await rejection(turn(clientWith(gate)));
  assert.equal(error.code, 'model_rate_limited');
  assert.equal(error.status, 429);
  assert.deepEqual(told.limited, [3000]);
  assert.equal(model.requests.length, 1, 'one request, no retry of its own');
});

test("a gate's long wait ends the turn before anything is sent, carrying the wait and the reserved slot", async () => {
  next = () => ({ content: 'never asked' });
  const { gate, told } = recordingGate({ waitFirst: 9000 });
  const error = await rejection(turn(clientWith(gate)));
  assert.ok(error instanceof ModelRateLimitWait);
  assert.equal(error.waitMs, 9000);
  assert.equal(error.slot, 1234);
  assert.equal(model.requests.length, 0);
  assert.deepEqual(told.limited, [], 'a wait of its own is no 429');
});
