/**
 * The agent bench at a tiny size: the stub model and the orchestrator as processes, a few runs of
 * each kind. Checks that the runs had the shape asked for (the model asked as many turns as the
 * runs take), that each figure is there, and that the profile sums up both kinds.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { testRedis } from '@switchyard/redis';
import { benchAgentSteps } from './agent-steps.js';

test('the agent bench runs both kinds to completion, reports CPU per tool call of each, and profiles them', { timeout: 300_000 }, async () => {
  const redis = await testRedis();
  const profileDir = mkdtempSync(path.join(os.tmpdir(), 'agent-bench-'));
  try {
    const report = await benchAgentSteps({ redisUrl: redis.url, runs: 4, calls: 2, turns: 2, rounds: 1, concurrency: 4, profileDir });
    const { profile, ...figures } = report;
    process.stdout.write(`# ${JSON.stringify(figures)}\n`);
    // 4 runs × (2 turns with calls + the answer): no turn asked twice, none left out.
    assert.deepEqual(report.model_requests_per_round, [12]);
    assert.equal(report.shape.tool_calls_per_measurement, 16);
    for (const cost of [report.agent_per_tool_call, report.plain_per_tool_call]) {
      assert.ok(cost.workers_us > 0 && cost.redis_us > 0 && cost.redis_commands > 0, JSON.stringify(cost));
      // Each figure is rounded to 0.1 µs apart: four roundings of 0.05 at most.
      assert.ok(Math.abs(cost.total_us - (cost.workers_us + cost.api_us + cost.redis_us)) <= 0.25, 'the total is the sum of the classes');
    }
    // Counted by the stub, not by its CPU: /proc counts in 10 ms ticks, and an idle process's timer or
    // collection can land one in a plain batch on a loaded machine.
    assert.deepEqual(report.model_requests_per_plain_round, [0], 'a plain run never asks the model');
    assert.ok(report.ratio_agent_over_plain > 0);
    assert.ok(report.model_client_alone.us_per_turn > 0);
    assert.ok((report.redis_top_commands_per_tool_call.agent?.xadd ?? 0) > 0, 'an agent run writes events');
    for (const kind of ['agent', 'plain'] as const) {
      const summary = profile?.[kind] as { file: string; busy_us_per_call: number } | undefined;
      assert.ok(summary && summary.busy_us_per_call > 0, `a profile of the ${kind} runs`);
      assert.ok(statSync(summary.file).size > 0);
    }
  } finally {
    rmSync(profileDir, { recursive: true, force: true });
  }
});
