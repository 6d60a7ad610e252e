import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WaitForRunInput } from './schemas.js';

test('wait_for_run waits 25 s by default, well under the 60 s many MCP clients allow a request', () => {
  const { timeout_s } = WaitForRunInput.parse({ run_id: `run_${'0'.repeat(32)}` });
  assert.equal(timeout_s, 25);
  assert.throws(() => WaitForRunInput.parse({ run_id: `run_${'0'.repeat(32)}`, timeout_s: 601 }));
});
