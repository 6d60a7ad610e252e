import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from './index.js';

test('lines keep their own fields one after another, and carry no trace_id with no active span', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ name: 'unit', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  logger.info({ run_id: 'run_a' }, 'first');
  logger.warn('second');
  logger.child({ stage: 'search' }).info({ attempt: 2 }, 'third');
  assert.deepEqual(lines.map((l) => [l.service, l.msg, l.run_id, l.stage, l.attempt, 'trace_id' in l]), [
    ['unit', 'first', 'run_a', undefined, undefined, false],
    ['unit', 'second', undefined, undefined, undefined, false],
    ['unit', 'third', undefined, 'search', 2, false],
  ]);
});
