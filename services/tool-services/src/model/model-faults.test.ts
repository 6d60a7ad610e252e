import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultModelFaults, emptyRateLimitLog, RATE_LOG_SIZE, rateLimitWait } from './model-faults.js';

test('the rate-limit knob admits N requests a clock-aligned window and answers the rest with the wait to its end', () => {
  const faults = defaultModelFaults({ rateLimit: { requests: 2, windowMs: 1000 } });
  const log = emptyRateLimitLog();
  assert.equal(rateLimitWait(faults, log, 10_100), null);
  assert.equal(rateLimitWait(faults, log, 10_200), null);
  assert.equal(rateLimitWait(faults, log, 10_700), 300, 'the third waits until the window ends at 11 000');
  assert.equal(rateLimitWait(faults, log, 11_000), null, 'a new window admits again');
  assert.deepEqual({ admitted: log.admitted, refused: log.refused }, { admitted: 3, refused: 1 });
  assert.deepEqual(log.arrivals.map((a) => a.admitted), [true, true, false, true]);
});

test('with no limit every request is admitted and still logged, and the log keeps its bound', () => {
  const faults = defaultModelFaults();
  const log = emptyRateLimitLog();
  for (let i = 0; i < RATE_LOG_SIZE + 10; i += 1) assert.equal(rateLimitWait(faults, log, i), null);
  assert.equal(log.arrivals.length, RATE_LOG_SIZE);
  assert.equal(log.arrivals[0]?.at, 10);
  assert.equal(log.admitted, RATE_LOG_SIZE + 10);
});
