/**
 * `npm start`: the main job. Resolves Redis (REDIS_URL, or a local redis-server, installed when
 * missing), starts the reference tool services (unless all four *_SERVICE_URL are set), the
 * orchestrator and WORKERS worker processes, each a child process logging to `.data/logs/`;
 * submits a batch of stories through the API with a progress bar per run, writes the stories to
 * `.data/stories/`, stops everything and exits 0 (1 when a story failed).
 *
 *   npm start                                  three sample topics
 *   npm start -- "a topic" "another topic"     your topics
 *   npm start -- --serve                       keep the stack serving afterwards
 *   npm start -- --agent "a topic"             the research agent instead of the batch
 *   npm run stack                              serve, without a batch (--serve --no-batch)
 *   npm run stack -- --compiled                the services' compiled JavaScript (built first)
 */
import path from 'node:path';
import { z } from 'zod';
import { parseEnv, pipelineEnvShape, redisUrlOf } from '@switchyard/config';
import { resolveRedis, type RedisHandle } from '@switchyard/redis';
import { createSwitchyardClient } from '@switchyard/client';
import { launcherKey, parseLaunch, USAGE } from './launcher/args.js';
import { runResearchAgent } from './launcher/agent.js';
import { runBatch } from './launcher/batch.js';
import { ChildFailed, Children, logTail, LOG_DIR } from './launcher/processes.js';
import { buildCompiled } from './launcher/runtime.js';
import { servingLines } from './launcher/serving.js';
import { startStack } from './launcher/stack.js';

const say = (line: string) => process.stdout.write(`${line}\n`);
const rel = (file: string) => path.relative(process.cwd(), file) || '.';
const started = Date.now();

const parsed = parseLaunch(process.argv.slice(2), process.env);
if (parsed.kind === 'help') {
  say(USAGE);
  process.exit(0);
}
if (parsed.kind === 'error') {
  say(`npm start: ${parsed.message}`);
  process.exit(2);
}
const { plan } = parsed;
const chosenKey = launcherKey(process.env, { batch: plan.topics.length > 0 || plan.agent !== undefined });
if (chosenKey.kind === 'error') {
  say(`npm start: ${chosenKey.message}`);
  process.exit(2);
}

const children = new Children();
const aborted = new AbortController();
let redis: RedisHandle | undefined;
let stopping: Promise<never> | undefined;

/** Stops every child (SIGTERM, awaited), then the Redis this launch started; exits with `code`. */
function shutdown(code: number): Promise<never> {
  stopping ??= (async () => {
    aborted.abort();
    if (children.all.length > 0) say(`stopping ${children.all.map((c) => c.name).join(', ')}…`);
    await children.stopAll();
    await redis?.stop();
    process.exit(code);
  })();
  return stopping;
}
process.once('SIGINT', () => void shutdown(130));
process.once('SIGTERM', () => void shutdown(143));

function explain(error: unknown): void {
  say(`\n✖ ${error instanceof Error ? error.message : String(error)}`);
  if (error instanceof ChildFailed) {
    const tail = logTail(error.child);
    if (tail) say(tail.replace(/^/gm, `  ${error.child.name} | `));
  }
}

try {
  // REDIS_URL or REDIS_CLUSTER_NODES (not both), read as the services read them: a bad value stops here.
  const given = redisUrlOf(parseEnv({ service: 'npm start', schema: z.object({ REDIS_URL: pipelineEnvShape.REDIS_URL, REDIS_CLUSTER_NODES: pipelineEnvShape.REDIS_CLUSTER_NODES }), source: process.env }));
  redis = await resolveRedis({ url: given });
  say(`redis        ${redis.url}${given ? '  (given)' : redis.owned ? '  (started; data in .data/redis)' : '  (already running from .data/redis)'}`);
} catch (error) {
  explain(error);
  await shutdown(1);
}

if (plan.compiled) {
  const building = Date.now();
  try {
    buildCompiled();
  } catch (error) {
    explain(error);
    await shutdown(1);
  }
  say(`build        compiled JavaScript in each workspace's dist/ (${((Date.now() - building) / 1000).toFixed(1)} s)`);
}

const stack = await startStack({ redisUrl: (redis as RedisHandle).url, env: process.env, workers: plan.workers, port: plan.port, children, say, runtime: plan.compiled ? 'compiled' : 'tsx', mcp: plan.serve, apiKey: chosenKey.key }).catch(async (error: unknown) => {
  explain(error);
  return shutdown(1);
});
children.watch((child, code, signal) => {
  explain(new ChildFailed(child, `stopped on its own (${code ?? signal})`));
  void shutdown(1);
});

let failed = 0;
if (plan.topics.length > 0) {
  const client = createSwitchyardClient({ url: stack.apiUrl, key: stack.apiKey });
  const outcome = await runBatch({ client, topics: plan.topics, out: process.stdout, say, signal: aborted.signal }).catch(async (error: unknown) => {
    if (aborted.signal.aborted) return stopping as Promise<never>;
    explain(error);
    return shutdown(1);
  });
  failed = outcome.failed.length;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  say(`\n${outcome.written.length} of ${plan.topics.length} ${plan.topics.length === 1 ? 'story' : 'stories'} written in ${seconds} s (batch ${outcome.batchId}):`);
  for (const story of outcome.written) say(`  ${rel(story.file)}  ${story.words} words  "${story.title}"`);
  for (const run of outcome.failed) say(`  ✖ ${run.topic}: ${run.reason}  (run ${run.runId})`);
  say(`logs of this launch: ${rel(LOG_DIR)}/`);
}

if (plan.agent !== undefined) {
  const client = createSwitchyardClient({ url: stack.apiUrl, key: stack.apiKey });
  const outcome = await runResearchAgent({ client, topic: plan.agent, say, signal: aborted.signal }).catch(async (error: unknown) => {
    if (aborted.signal.aborted) return stopping as Promise<never>;
    explain(error);
    return shutdown(1);
  });
  if (outcome.file) {
    const findings = outcome.run.result as { answer?: string; sources?: { tool: string; summary: string }[] };
    say(`\nfindings: ${findings.answer ?? JSON.stringify(findings)}`);
    for (const source of findings.sources ?? []) say(`  - ${source.tool}: ${source.summary}`);
    say(`written to ${rel(outcome.file)}, with the transcript`);
  } else {
    failed = 1;
    say(`\n✖ the research agent ${outcome.run.status}${outcome.run.error ? `: ${outcome.run.error.message}` : ''}  (run ${outcome.run.run_id})`);
  }
  say(`logs of this launch: ${rel(LOG_DIR)}/`);
}

if (plan.serve) {
  say('');
  for (const line of servingLines(stack, stack.localKeyFile ? { kind: 'local', key: stack.apiKey, file: rel(stack.localKeyFile) } : { kind: 'operator' })) say(line);
} else {
  await shutdown(failed === 0 ? 0 : 1);
}
