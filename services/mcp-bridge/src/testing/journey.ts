/**
 * What an agent does through the bridge, as tests drive it over either transport with the SDK's
 * own Client: start a batch, follow a run with progress, read the stories, list runs, cancel one.
 * Also the bad-argument calls every tool must refuse. Assertions throw, so a test that runs these
 * fails with the first difference.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Redis } from 'ioredis';
import { keyspace, scanKeys } from '@switchyard/redis';

export const JOB_TOOLS = ['start_story', 'start_story_batch', 'start_stage_pipeline', 'get_run', 'list_runs', 'cancel_run', 'wait_for_run'] as const;

type Structured = Record<string, unknown>;

/** Calls a tool that must succeed; answers its structured content. */
export async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Structured> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent, `${name} answered no structured content`);
  const [text] = result.content;
  assert.deepEqual(text?.type === 'text' ? JSON.parse(text.text) : undefined, result.structuredContent, 'the text block holds the same JSON');
  return result.structuredContent;
}

/** Calls a tool that must fail as a tool (isError); answers its error body. */
export async function toolError(client: Client, name: string, args: Record<string, unknown>, code: string): Promise<{ code: string; message: string; details?: unknown }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.equal(result.isError, true, `${name} should have failed: ${JSON.stringify(result.structuredContent)}`);
  const error = (result.structuredContent as { error: { code: string; message: string; details?: unknown } }).error;
  assert.equal(error.code, code);
  return error;
}

/** Tools list: every job tool with input and output schemas and annotations. */
export async function checkToolList(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  for (const name of JOB_TOOLS) {
    const tool = byName.get(name);
    assert.ok(tool, `${name} is listed`);
    assert.equal(tool.inputSchema.type, 'object');
    assert.equal(tool.outputSchema?.type, 'object', `${name} has an output schema`);
    assert.ok(tool.annotations, `${name} has annotations`);
    assert.equal(typeof tool.annotations.readOnlyHint, 'boolean');
  }
  for (const name of ['get_run', 'list_runs', 'wait_for_run']) assert.equal(byName.get(name)?.annotations?.readOnlyHint, true, `${name} is read-only`);
  assert.equal(byName.get('cancel_run')?.annotations?.destructiveHint, true);
  assert.equal(byName.get('cancel_run')?.annotations?.idempotentHint, true);
  assert.equal(byName.get('start_story')?.annotations?.idempotentHint, false);
  assert.deepEqual((byName.get('get_run')?.inputSchema as { required?: string[] }).required, ['run_id']);
  for (const tool of tools) assert.ok(tool.outputSchema && tool.annotations, `${tool.name} has an output schema and annotations`);
}

/**
 * Runs `call` while recording, into `updates`, the progress notifications the server sends, as
 * they arrive on the transport. The SDK's client hands a notification to its `onprogress` a
 * microtask late, after a response read in the same chunk has already retired the request, so
 * over stdio the last notification before a result would be dropped now and then: what the
 * server sent is read where it arrives instead.
 */
async function progressSent<T>(client: Client, updates: Progress[], call: () => Promise<T>): Promise<T> {
  const transport = client.transport;
  assert.ok(transport, 'the client is connected');
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'notifications/progress') {
      const { progressToken: _token, ...progress } = message.params as Progress & { progressToken: unknown };
      updates.push(progress);
    }
    deliver?.(message, extra);
  };
  try {
    return await call();
  } finally {
    transport.onmessage = deliver;
  }
}

/**
 * The whole job: a batch of three, the first followed with progress, every story read, the
 * listing, and a run cancelled after a wait that ran out. `waitFor` polls a condition.
 */
export async function agentJourney(client: Client): Promise<void> {
  const batch = await ok(client, 'start_story_batch', { items: [{ topic: 'a lighthouse keeper' }, { topic: 'a river town' }, { topic: 'an orbital garden', style: 'lyrical' }], defaults: { style: 'whimsical', depth: 2 } });
  assert.equal(batch.status, 'queued');
  assert.equal(batch.total, 3);
  const runIds = batch.run_ids as string[];
  assert.equal(runIds.length, 3);

  const updates: Progress[] = [];
  const first = CallToolResultSchema.parse(
    await progressSent(client, updates, () =>
      client.callTool({ name: 'wait_for_run', arguments: { run_id: runIds[0], timeout_s: 60 } }, undefined, { onprogress: () => undefined, resetTimeoutOnProgress: true }),
    ),
  );
  assert.equal(first.structuredContent?.status, 'completed');
  assert.equal(first.structuredContent?.timed_out, false);
  assert.ok(updates.length >= 3, `progress notifications arrived (${updates.length})`);
  for (let i = 1; i < updates.length; i += 1) assert.ok((updates[i]?.progress ?? 0) > (updates[i - 1]?.progress ?? 0), 'progress only grows');
  assert.deepEqual({ progress: updates.at(-1)?.progress, total: updates.at(-1)?.total, message: updates.at(-1)?.message }, { progress: 100, total: 100, message: 'run completed' });
  assert.ok(updates.some((update) => update.message === 'polish completed'), 'messages name the stages that changed');

  for (const runId of runIds.slice(1)) assert.equal((await ok(client, 'wait_for_run', { run_id: runId, timeout_s: 60 })).status, 'completed');
  for (const [i, runId] of runIds.entries()) {
    const run = await ok(client, 'get_run', { run_id: runId });
    assert.equal(run.batch_id, batch.batch_id);
    const story = run.result as { title: string; content: string; sections: unknown[]; word_count: number };
    assert.ok(story.title.length > 0 && story.content.length > 200, `story ${i} has a title and content`);
    assert.equal(story.sections.length, 4);
    assert.equal((run.request as { style: string }).style, i === 2 ? 'lyrical' : 'whimsical');
  }

  const single = await ok(client, 'start_story', { topic: 'a clockmaker', target_audience: 'children' });
  const waited = await ok(client, 'wait_for_run', { run_id: single.run_id, timeout_s: 0.05 });
  assert.equal(waited.timed_out, true);
  assert.ok(['queued', 'running'].includes(String(waited.status)));
  const cancelled = await ok(client, 'cancel_run', { run_id: single.run_id });
  assert.equal(cancelled.status, 'cancelled');
  assert.equal((await ok(client, 'cancel_run', { run_id: single.run_id })).status, 'cancelled', 'cancelling again answers the run again');
  assert.equal((await ok(client, 'wait_for_run', { run_id: single.run_id })).status, 'cancelled', 'an ended run is answered at once');

  const listed = await ok(client, 'list_runs', { limit: 10 });
  const runs = listed.runs as { run_id: string; status: string; title: string | null; result?: unknown }[];
  assert.deepEqual(runs.map((run) => run.run_id).sort(), [...runIds, single.run_id].sort());
  assert.equal(runs[0]?.run_id, single.run_id, 'newest first');
  assert.ok(runs.every((run) => !('result' in run)), 'a listing leaves the stories out');
  assert.ok(runs.filter((run) => run.status === 'completed').every((run) => typeof run.title === 'string' && run.title.length > 0));
  const onlyCancelled = (await ok(client, 'list_runs', { status: 'cancelled' })).runs as { run_id: string }[];
  assert.deepEqual(onlyCancelled.map((run) => run.run_id), [single.run_id]);

  const finished = await toolError(client, 'cancel_run', { run_id: runIds[0] as string }, 'run_finished');
  assert.match(finished.message, /already completed/);
  await toolError(client, 'get_run', { run_id: `run_${'0'.repeat(32)}` }, 'run_not_found');
  await toolError(client, 'wait_for_run', { run_id: `run_${'f'.repeat(32)}` }, 'run_not_found');
}

/** Calls every job tool must refuse with invalid params, and what the message must name. */
export const BAD_CALLS: { name: string; args: Record<string, unknown>; names: RegExp }[] = [
  { name: 'start_story', args: {}, names: /topic/ },
  { name: 'start_story', args: { topic: 'ok', colour: 'red' }, names: /unknown argument 'colour'/ },
  { name: 'start_story', args: { topic: 'ok', depth: 99 }, names: /depth/ },
  { name: 'start_story', args: { topic: 42 }, names: /topic/ },
  { name: 'start_story_batch', args: { items: [] }, names: /items/ },
  { name: 'start_story_batch', args: { items: [{ topic: 'fine' }, { style: 'no topic' }] }, names: /items\.1\.topic/ },
  { name: 'start_story_batch', args: { items: [{ topic: 'x' }], defaults: { tone: 'dark' } }, names: /defaults|tone/ },
  { name: 'start_stage_pipeline', args: { project: { name: '../escape' } }, names: /project\/name|project/ },
  { name: 'start_stage_pipeline', args: { project: { name: 'ok', mode: 'minimal' }, from_stage: 's3_testcases' }, names: /not a stage of mode minimal/ },
  { name: 'start_stage_pipeline', args: { project: { name: 'ok' }, from_stage: 's5_test_report', to_stage: 's2_tasks_group' }, names: /comes after/ },
  { name: 'start_stage_pipeline', args: { project: { name: 'ok' }, analysis: { code_metrics: { complexity_score: 25 } } }, names: /complexity_score/ },
  { name: 'get_run', args: {}, names: /run_id/ },
  { name: 'get_run', args: { run_id: 'run_1; DEL everything' }, names: /run_id/ },
  { name: 'list_runs', args: { limit: 0 }, names: /limit/ },
  { name: 'list_runs', args: { status: 'sleeping' }, names: /status/ },
  { name: 'list_runs', args: { offset: -1 }, names: /offset/ },
  { name: 'cancel_run', args: { run_id: 7 }, names: /run_id/ },
  { name: 'cancel_run', args: { run_id: `run_${'0'.repeat(32)}`, force: true }, names: /unknown argument 'force'/ },
  { name: 'wait_for_run', args: { run_id: `run_${'0'.repeat(32)}`, timeout_s: 601 }, names: /timeout_s/ },
  { name: 'wait_for_run', args: { timeout_s: 5 }, names: /run_id/ },
  { name: 'no_such_tool', args: {}, names: /Unknown tool: no_such_tool/ },
];

/**
 * What a refused call says, whatever its suite's failure shape: `{error:{code,message}}`, the
 * seeds' `error_code` (or `code`) beside `message`/`error`/`error_message`, or a JSON-RPC error (module docs).
 */
export function refusalOf(result: CallToolResult): { code: string | number | undefined; text: string } {
  const content = (result.structuredContent ?? {}) as { error?: unknown; error_code?: string; code?: string };
  const nested = typeof content.error === 'object' && content.error !== null ? (content.error as { code?: string | number }) : undefined;
  const [block] = result.content;
  return { code: nested?.code ?? content.error_code ?? content.code, text: block?.type === 'text' ? block.text : '' };
}

/** The codes a suite's refusal of bad arguments carries (see ToolSuite.refuseArguments). */
// The tools that answer as the API does for the same body use its codes (an approval, a schedule, a run's input).
const REFUSAL_CODES = new Set<string | number | undefined>(['invalid_arguments', 'invalid_approval', 'invalid_schedule', 'invalid_input', 'VALIDATION_ERROR', 'INVALID_DATA', -32602]);

/**
 * Each bad call is a tool result with isError, `invalid_arguments`, naming what is wrong, so a
 * model can correct it; an unknown tool is the protocol's invalid-params error (-32602).
 */
export async function checkBadCalls(client: Client): Promise<void> {
  for (const call of BAD_CALLS) {
    const what = `${call.name} ${JSON.stringify(call.args)}`;
    if (call.name === 'no_such_tool') {
      await assert.rejects(client.callTool({ name: call.name, arguments: call.args }), (error: Error & { code?: number }) => {
        assert.equal(error.code, -32602, `${what}: ${error.message}`);
        assert.match(error.message, call.names, what);
        return true;
      });
      continue;
    }
    const result = (await client.callTool({ name: call.name, arguments: call.args })) as CallToolResult;
    assert.equal(result.isError, true, `${what} should have been refused: ${JSON.stringify(result.structuredContent)}`);
    const error = (result.structuredContent as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'invalid_arguments', what);
    assert.match(error.message, call.names, what);
  }
}

/** Every key under `prefix` with its type and content digest, to show that nothing changed. */
export async function snapshotKeys(redis: Redis, prefix: string, options: { except?: RegExp } = {}): Promise<Map<string, string>> {
  const snapshot = new Map<string, string>();
  for (const key of await scanKeys(redis, keyspace(prefix).pattern)) {
    if (options.except?.test(key)) continue;
    const dump = await redis.dumpBuffer(key);
    snapshot.set(key, dump ? dump.toString('base64') : '');
  }
  return snapshot;
}

/** Polls `condition` every 20 ms until it holds; fails after `timeoutMs`. */
export async function waitFor<T>(what: string, condition: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Every listed tool, of every suite, called with arguments its schema refuses: nothing for a tool
 * with required arguments, an unknown one for a closed schema. Answers how many were tried.
 */
export async function checkEveryToolRefusesBadArguments(client: Client): Promise<number> {
  const { tools } = await client.listTools();
  let tried = 0;
  for (const tool of tools) {
    const schema = tool.inputSchema as { required?: string[]; additionalProperties?: unknown };
    const args = schema.required && schema.required.length > 0 ? {} : schema.additionalProperties === false ? { no_such_argument: true } : undefined;
    if (!args) continue;
    tried += 1;
    const result = (await client.callTool({ name: tool.name, arguments: args })) as CallToolResult;
    assert.equal(result.isError, true, `${tool.name} should have refused ${JSON.stringify(args)}`);
    const refusal = refusalOf(result);
    assert.ok(REFUSAL_CODES.has(refusal.code), `${tool.name} refused with ${String(refusal.code)}: ${refusal.text}`);
  }
  return tried;
}

/**
 * Federated tools: each service's published tools are listed with their inputSchema exactly as
 * `GET /tools` gives it, and calls go through to the service.
 */
export async function checkFederation(client: Client, services: { url: string; apiKey?: string | undefined }[]): Promise<void> {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  for (const service of services) {
    const published = (await (await fetch(`${service.url}/tools`, { headers: service.apiKey ? { authorization: `Bearer ${service.apiKey}` } : {} })).json()) as { name: string; inputSchema: Record<string, unknown> }[];
    assert.ok(published.length > 0);
    for (const tool of published) assert.deepEqual(byName.get(tool.name)?.inputSchema, tool.inputSchema, `${tool.name} is federated with its schema as given`);
  }
  assert.equal(byName.get('search_relevant_information')?.annotations?.openWorldHint, true);
  const federated = tools.filter((tool) => /\(tool service "/.test(tool.description ?? ''));
  assert.ok(federated.length >= 4, 'the story services\' tools are federated');
  for (const tool of federated) {
    assert.doesNotMatch(tool.description ?? '', /https?:\/\/|127\.0\.0\.1|localhost/, `${tool.name}'s description names no address`);
    assert.match(tool.title ?? '', /^[A-Z]/, `${tool.name} has a title`);
  }
  assert.equal(byName.get('search_relevant_information')?.title, 'Search relevant information');
  const found = await ok(client, 'search_relevant_information', { topic: 'tidal power', depth: 2 });
  assert.ok(Array.isArray(found.results) && found.results.length > 0, 'the search service answered');
  const refused = (await client.callTool({ name: 'search_relevant_information', arguments: { depth: 2 } })) as CallToolResult;
  assert.equal(refused.isError, true);
  assert.equal(refusalOf(refused).code, 'invalid_arguments');
  assert.match(refusalOf(refused).text, /topic/);
}

/** Starts a tool call as an MCP task; answers the task id. */
export async function startTask(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const created = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
  assert.ok(['working', 'completed'].includes(created.task.status));
  return created.task.taskId;
}

/**
 * Long calls as MCP tasks (task support optional): start_story and wait_for_run run as tasks whose
 * results tasks/result answers, tasks/list shows them, tasks/cancel stops one, and a tool that is
 * not long refuses to be a task.
 */
export async function checkTasks(client: Client): Promise<void> {
  assert.ok(client.getServerCapabilities()?.tasks?.requests?.tools?.call, 'the server runs tools/call as tasks');
  const { tools } = await client.listTools();
  const support = new Map(tools.map((tool) => [tool.name, tool.execution?.taskSupport]));
  assert.equal(support.get('wait_for_run'), 'optional');
  assert.equal(support.get('start_story'), 'optional');
  assert.equal(support.get('get_run'), undefined);

  const startTaskId = await startTask(client, 'start_story', { topic: 'a harbour in winter' });
  const started = await client.experimental.tasks.getTaskResult(startTaskId, CallToolResultSchema);
  const runId = String(started.structuredContent?.run_id);
  assert.match(runId, /^run_/);

  const waitTaskId = await startTask(client, 'wait_for_run', { run_id: runId, timeout_s: 60 });
  const waited = await client.experimental.tasks.getTaskResult(waitTaskId, CallToolResultSchema);
  assert.equal(waited.structuredContent?.status, 'completed');
  assert.equal((await client.experimental.tasks.getTask(waitTaskId)).status, 'completed');
  const listed = (await client.experimental.tasks.listTasks()).tasks.map((task) => task.taskId);
  assert.ok(listed.includes(startTaskId) && listed.includes(waitTaskId), 'tasks/list shows the session\'s tasks');

  // A wait that would last a minute, cancelled: the task ends as cancelled, at once.
  const slow = await ok(client, 'start_story', { topic: 'a very long winter' });
  const slowTaskId = await startTask(client, 'wait_for_run', { run_id: slow.run_id, timeout_s: 60 });
  await client.experimental.tasks.cancelTask(slowTaskId);
  assert.equal((await client.experimental.tasks.getTask(slowTaskId)).status, 'cancelled');
  await ok(client, 'cancel_run', { run_id: slow.run_id });

  const failed = await startTask(client, 'wait_for_run', { run_id: `run_${'0'.repeat(32)}` });
  const failure = await client.experimental.tasks.getTaskResult(failed, CallToolResultSchema);
  assert.equal(failure.isError, true);
  assert.equal((await client.experimental.tasks.getTask(failed)).status, 'failed', 'a call that fails makes a failed task');

  await assert.rejects(client.request({ method: 'tools/call', params: { name: 'get_run', arguments: { run_id: runId }, task: {} } }, CreateTaskResultSchema), (error: Error & { code?: number }) => error.code === -32601);
}

/** An AceFlow stage pipeline started, followed and read through the job tools. */
export async function checkStagePipeline(client: Client, project: string): Promise<void> {
  const analysis = { project_info: { name: 'Bridge Shop', tech_stack: ['TypeScript'], file_count: 12 }, code_metrics: { total_lines: 900, complexity_score: 3 } };
  const started = await ok(client, 'start_stage_pipeline', { project: { name: project, mode: 'minimal' }, analysis, to_stage: 's2_tasks_group' });
  assert.deepEqual(started.stages, ['s1_user_story', 's2_tasks_group']);
  const run = await ok(client, 'wait_for_run', { run_id: started.run_id, timeout_s: 120 });
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.equal(run.kind, 'aceflow');
  const stages = (run.result as { stages: Record<string, { completeness_score: number; saved_to: string }> }).stages;
  assert.deepEqual(Object.keys(stages).sort(), ['s1_user_story', 's2_tasks_group']);
  assert.ok(Object.values(stages).every((stage) => stage.completeness_score === 1 && stage.saved_to.includes(project)));
}
