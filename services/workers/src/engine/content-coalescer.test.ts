import assert from 'node:assert/strict';
import { once } from 'node:events';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { ContentCoalescer } from './content-coalescer.js';

function recorder(options: { flushMs?: number; flushChars?: number } = {}) {
  const emitted: string[] = [];
  const signals = new EventEmitter();
  const coalescer = new ContentCoalescer({
    ...options,
    emit: (text) => {
      emitted.push(text);
      signals.emit('emitted');
    },
  });
  return { emitted, coalescer, nextEmit: () => once(signals, 'emitted') };
}

test('chunks arriving within the interval are told as one piece, in order', async () => {
  const { emitted, coalescer, nextEmit } = recorder({ flushMs: 20 });
  const told = nextEmit();
  for (const chunk of ['The ', 'lamp ', 'was ', 'lit.']) coalescer.push(chunk);
  assert.deepEqual(emitted, [], 'nothing is told before the interval');
  await told;
  assert.deepEqual(emitted, ['The lamp was lit.']);
});

test('a buffer past its size is told at once, and what follows starts a new piece', () => {
  const { emitted, coalescer } = recorder({ flushMs: 60_000, flushChars: 10 });
  coalescer.push('12345');
  coalescer.push('67890');
  coalescer.push('abc');
  assert.deepEqual(emitted, ['1234567890']);
  coalescer.flush();
  assert.deepEqual(emitted, ['1234567890', 'abc']);
});

test('a flush tells what is buffered once, and a flush with nothing buffered tells nothing', () => {
  const { emitted, coalescer } = recorder({ flushMs: 60_000 });
  coalescer.push('a');
  coalescer.push('');
  coalescer.flush();
  coalescer.flush();
  assert.deepEqual(emitted, ['a']);
});

test('dropping forgets the buffered text of a stream that starts over, and no timer tells it later', async () => {
  const { emitted, coalescer, nextEmit } = recorder({ flushMs: 5 });
  coalescer.push('a broken ');
  coalescer.drop();
  const told = nextEmit();
  coalescer.push('a whole line');
  await told;
  assert.deepEqual(emitted, ['a whole line']);
});
