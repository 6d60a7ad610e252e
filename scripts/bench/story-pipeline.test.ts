import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuRatio } from './story-pipeline.js';

const cost = (node: number, redis: number) => ({ node_cpu_us: node, redis_cpu_us: redis, redis_commands: 0, redis_net_input_bytes: 0 });

test('the CPU ratio is plain BullMQ CPU over Switchyard CPU per story in each round, with their median against the 0.75 target', () => {
  const switchyard = [cost(3000, 2000), cost(4000, 1000), cost(2000, 2000)];
  const baseline = [cost(1500, 1000), cost(2000, 1000), cost(1600, 1000)];
  const report = cpuRatio(switchyard, baseline);
  assert.deepEqual(report.round_ratios, [0.5, 0.6, 0.65]);
  assert.equal(report.ratio, 0.6);
  assert.equal(report.met, false);
  // 1e6 µs over the median CPU per story: 5,000 µs → 200 stories per CPU-second; 2,600 µs → 384.6.
  assert.equal(report.switchyard_stories_per_cpu_s, 200);
  assert.equal(report.baseline_stories_per_cpu_s, 384.6);
  assert.equal(cpuRatio([cost(1000, 1000)], [cost(1000, 800)]).met, true);
  assert.equal(cpuRatio([cost(1000, 1000)], [cost(800, 700)]).met, true, '0.75 is met');
  assert.equal(cpuRatio([cost(1000, 1000)], [cost(800, 690)]).met, false, '0.745 is not');
});
