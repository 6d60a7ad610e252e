/**
 * What an agent does with the bridge beyond tools, as tests drive it over either transport with
 * the SDK's own Client: read each kind of resource, page through resources/list, follow a run by
 * subscription, get each prompt, complete each kind of argument, and choose a logging level.
 * Assertions throw; conditions are waited on, never slept for.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { ok, waitFor } from './journey.js';

type Structured = Record<string, unknown>;

/** Records the resource updates and log messages a client receives, with when they came. */
export function recordNotifications(client: Client) {
  const updates: { uri: string; at: number }[] = [];
  const messages: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push({ uri: n.params.uri, at: Date.now() }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
  return { updates, messages };
}
export type Recorded = ReturnType<typeof recordNotifications>;

const textOf = (result: { contents: ({ text?: string; blob?: string; uri: string; mimeType?: string } & Record<string, unknown>)[] }) => {
  const [content] = result.contents;
  assert.ok(content && typeof content.text === 'string', 'a text content');
  return content as { uri: string; mimeType?: string; text: string };
};

const rejectsWith = (promise: Promise<unknown>, code: number, message: RegExp) =>
  assert.rejects(promise, (error: Error & { code?: number }) => {
    assert.equal(error.code, code, error.message);
    assert.match(error.message, message);
    return true;
  });

/** A story started and waited for: its run id. */
export async function finishedStory(client: Client, topic: string): Promise<string> {
  const { run_id: runId } = await ok(client, 'start_story', { topic });
  assert.equal((await ok(client, 'wait_for_run', { run_id: runId, timeout_s: 60 })).status, 'completed');
  return String(runId);
}

/** The server declares resources (with subscriptions), prompts, completions and logging, and lists a template per kind. */
export async function checkCapabilitiesAndTemplates(client: Client): Promise<void> {
  const capabilities = client.getServerCapabilities();
  assert.equal(capabilities?.resources?.subscribe, true);
  assert.ok(capabilities?.prompts && capabilities.completions && capabilities.logging && capabilities.tools);
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), [
    'switchyard://batches/{batch_id}',
    'switchyard://pipelines/{name}',
    'switchyard://pipelines/{name}/versions/{version}',
    'switchyard://runs/{run_id}',
    'switchyard://runs/{run_id}/story.md',
  ]);
  for (const template of resourceTemplates) assert.ok(template.name && template.description && template.mimeType, `${template.uriTemplate} is described`);
}

/** Each kind of resource read: a run, its story, a batch, a pipeline and one of its versions; unknown ones are -32002. */
export async function checkResourceReads(client: Client): Promise<void> {
  const runId = await finishedStory(client, 'a harbour pilot at dawn');
  const run = textOf(await client.readResource({ uri: `switchyard://runs/${runId}` }));
  assert.equal(run.uri, `switchyard://runs/${runId}`);
  assert.equal(run.mimeType, 'application/json');
  const view = JSON.parse(run.text) as Structured;
  assert.deepEqual(view, await ok(client, 'get_run', { run_id: runId }), 'the run resource is the run view get_run answers');

  const story = textOf(await client.readResource({ uri: `switchyard://runs/${runId}/story.md` }));
  assert.equal(story.mimeType, 'text/markdown');
  const result = view.result as { title: string; content: string; sections: { title: string }[] };
  assert.ok(story.text.startsWith(`# ${result.title}\n\n`), 'the story opens with its title');
  assert.ok(story.text.includes(result.content.trim().slice(0, 200)), 'the story holds its text');
  for (const section of result.sections) assert.ok(story.text.includes(`**${section.title}**`), `section ${section.title} is named`);
  assert.match(story.text, new RegExp(`run ${runId}\\*\\n$`));

  const batch = await ok(client, 'start_story_batch', { items: [{ topic: 'a tide mill' }, { topic: 'a salt road' }] });
  const batchView = JSON.parse(textOf(await client.readResource({ uri: `switchyard://batches/${String(batch.batch_id)}` })).text) as { total: number; counts: Structured; runs: { run_id: string; uri: string }[] };
  assert.equal(batchView.total, 2);
  assert.deepEqual(batchView.runs.map((r) => r.run_id), batch.run_ids);
  assert.deepEqual(batchView.runs.map((r) => r.uri), (batch.run_ids as string[]).map((id) => `switchyard://runs/${id}`));
  for (const id of batch.run_ids as string[]) await ok(client, 'wait_for_run', { run_id: id, timeout_s: 60 });

  const pipeline = JSON.parse(textOf(await client.readResource({ uri: 'switchyard://pipelines/story' })).text) as { name: string; latest: number; versions: { version: number; uri: string }[]; definition: { steps: Structured } };
  assert.equal(pipeline.name, 'story');
  assert.deepEqual(Object.keys(pipeline.definition.steps), ['search', 'outline', 'write', 'polish']);
  const first = pipeline.versions[0];
  assert.ok(first);
  const version = JSON.parse(textOf(await client.readResource({ uri: first.uri })).text) as { name: string; version: number };
  assert.deepEqual([version.name, version.version], ['story', first.version]);

  const missing = `run_${'0'.repeat(32)}`;
  await rejectsWith(client.readResource({ uri: `switchyard://runs/${missing}` }), -32002, /No run/);
  await rejectsWith(client.readResource({ uri: `switchyard://runs/${missing}/story.md` }), -32002, /No run/);
  await rejectsWith(client.readResource({ uri: `switchyard://batches/batch_${'0'.repeat(32)}` }), -32002, /No batch/);
  await rejectsWith(client.readResource({ uri: 'switchyard://pipelines/no-such-pipeline' }), -32002, /No pipeline/);
  await rejectsWith(client.readResource({ uri: 'switchyard://pipelines/story/versions/999' }), -32002, /No version 999/);
  const { run_id: cancelled } = await ok(client, 'start_story', { topic: 'a story nobody finishes' });
  await ok(client, 'cancel_run', { run_id: cancelled });
  await rejectsWith(client.readResource({ uri: `switchyard://runs/${String(cancelled)}/story.md` }), -32002, /no story yet: it is cancelled/);
}

/**
 * resources/list a page at a time (the bridge runs with a page of `pageSize` runs): pipelines on
 * the first page, every run of the index once, newest first, stories and batches beside their
 * runs, and a cursor that is not one refused.
 */
export async function checkResourcePaging(client: Client, indexed: () => Promise<string[]>, pageSize: number): Promise<void> {
  const pages: { uri: string; name: string; mimeType?: string }[][] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listResources(cursor ? { cursor } : {});
    pages.push(page.resources);
    cursor = page.nextCursor;
    assert.ok(pages.length < 100, 'the listing ends');
  } while (cursor);
  assert.ok(pages.length >= 2, `several pages (${pages.length})`);
  assert.ok(pages[0]?.some((r) => r.uri === 'switchyard://pipelines/story'), 'the pipelines are on the first page');
  assert.ok(pages.slice(1).every((page) => page.every((r) => !r.uri.startsWith('switchyard://pipelines/'))));
  const runsPerPage = pages.map((page) => page.filter((r) => /^switchyard:\/\/runs\/run_[0-9a-f]+$/.test(r.uri)).length);
  assert.ok(runsPerPage.every((n) => n <= pageSize), `at most ${pageSize} runs a page: ${runsPerPage.join(', ')}`);
  const all = pages.flat();
  for (const resource of all) assert.ok(resource.uri && resource.name, 'each resource has a uri and a name');
  const runUris = all.filter((r) => /^switchyard:\/\/runs\/run_[0-9a-f]+$/.test(r.uri)).map((r) => r.uri);
  assert.deepEqual(runUris, (await indexed()).map((id) => `switchyard://runs/${id}`), 'every indexed run once, newest first');
  const stories = all.filter((r) => r.uri.endsWith('/story.md'));
  assert.ok(stories.length > 0 && stories.every((r) => r.mimeType === 'text/markdown'));
  assert.ok(all.some((r) => r.uri.startsWith('switchyard://batches/batch_')), 'batches are listed beside their runs');
  await rejectsWith(client.listResources({ cursor: 'not-a-cursor' }), -32602, /Invalid cursor/);
}

/**
 * Subscribing to a run brings notifications/resources/updated as it moves on, the last one once
 * it has ended; after unsubscribing, its later changes bring none.
 */
export async function checkSubscriptions(client: Client, recorded: Recorded): Promise<void> {
  const of = (uri: string) => recorded.updates.filter((u) => u.uri === uri);
  const { run_id: followed } = await ok(client, 'start_story', { topic: 'a lock keeper on a long canal', depth: 3 });
  const uri = `switchyard://runs/${String(followed)}`;
  await client.subscribeResource({ uri });
  await waitFor('an update of the followed run', () => of(uri).length > 0);
  assert.equal((await ok(client, 'wait_for_run', { run_id: followed, timeout_s: 60 })).status, 'completed');
  await waitFor('an update after the run ended', async () => {
    const last = of(uri).at(-1);
    return last && JSON.parse(textOf(await client.readResource({ uri })).text).status === 'completed' && of(uri).length;
  });
  await client.unsubscribeResource({ uri });

  // Unsubscribed while it runs: nothing arrives about it once the unsubscription is answered.
  const { run_id: dropped } = await ok(client, 'start_story', { topic: 'a ferry that only sails at night', depth: 3 });
  const droppedUri = `switchyard://runs/${String(dropped)}`;
  await client.subscribeResource({ uri: droppedUri });
  await client.subscribeResource({ uri: `${droppedUri}/story.md` });
  await client.unsubscribeResource({ uri: droppedUri });
  // The bridge answers once a notification it was sending is written, so any sent before the answer
  // is in this process already: read in the same turn of the event loop, done by the next check phase.
  await new Promise((resolve) => setImmediate(resolve));
  const beforeAnswer = of(droppedUri).length;
  // The story URI stays subscribed: its update, once the run is done, shows the stream has moved past the run's end.
  await waitFor('the story update of the run still subscribed', () => of(`${droppedUri}/story.md`).length > 0, 60_000);
  assert.equal((await ok(client, 'wait_for_run', { run_id: dropped })).status, 'completed');
  assert.deepEqual(of(droppedUri).slice(beforeAnswer), [], 'no update after unsubscribing');
  await client.unsubscribeResource({ uri: `${droppedUri}/story.md` });

  await rejectsWith(client.subscribeResource({ uri: `switchyard://runs/run_${'0'.repeat(32)}` }), -32002, /No run/);
  await rejectsWith(client.subscribeResource({ uri: 'test://watched-resource' }), -32002, /No resource/);
}

const promptText = (result: { messages: { role: string; content: { type: string; text?: string } }[] }) => {
  const [message] = result.messages;
  assert.equal(message?.role, 'user');
  assert.equal(message.content.type, 'text');
  return message.content.text ?? '';
};

/** Each prompt listed with its arguments, and got with arguments; bad arguments are -32602. */
export async function checkPrompts(client: Client, supervisor: { id: string; name: string }): Promise<void> {
  const { prompts } = await client.listPrompts();
  const byName = new Map(prompts.map((p) => [p.name, p]));
  assert.deepEqual([...byName.keys()].sort(), ['aceflow_stages', 'supervisor_phases', 'write_story']);
  for (const prompt of prompts) assert.ok(prompt.description && prompt.title, `${prompt.name} is described`);
  assert.deepEqual(byName.get('write_story')?.arguments?.map((a) => [a.name, a.required]), [['topic', true], ['style', false], ['audience', false]]);
  assert.deepEqual(byName.get('aceflow_stages')?.arguments?.map((a) => [a.name, a.required]), [['project', false], ['stage', false]]);
  assert.deepEqual(byName.get('supervisor_phases')?.arguments?.map((a) => [a.name, a.required]), [['project', true]]);

  const story = promptText(await client.getPrompt({ name: 'write_story', arguments: { topic: 'a glass harbour', style: 'lyrical', audience: 'children' } }));
  assert.match(story, /"a glass harbour"/);
  assert.match(story, /start_story with \{"topic":"a glass harbour","style":"lyrical","target_audience":"children"\}/);
  assert.match(story, /wait_for_run/);
  assert.match(story, /switchyard:\/\/runs\/\{run_id\}\/story\.md/);

  const stages = promptText(await client.getPrompt({ name: 'aceflow_stages', arguments: { project: 'harbour-docs', stage: 's5_test_report' } }));
  assert.match(stages, /project \{"name": "harbour-docs"\}/);
  assert.match(stages, /aceflow_stage/);
  for (const id of ['s5_test_report', 's6_codereview', 's8_summary_report']) assert.ok(stages.includes(`- ${id}:`), `${id} is among the stages`);
  assert.ok(!stages.includes('- s1_user_story:'), 'stages before the one named are left out');
  const current = promptText(await client.getPrompt({ name: 'aceflow_stages', arguments: {} }));
  assert.match(current, /current project/);
  assert.ok(current.includes('- s1_user_story:'));

  const phases = promptText(await client.getPrompt({ name: 'supervisor_phases', arguments: { project: supervisor.name } }));
  assert.ok(phases.includes(`project_id "${supervisor.id}"`), 'a project named is looked up to its id');
  for (const tool of ['login_with_project', 'next', 'report', 'finish_task']) assert.ok(phases.includes(tool), `${tool} is named`);
  assert.ok(promptText(await client.getPrompt({ name: 'supervisor_phases', arguments: { project: 'nobody-made-this' } })).includes('create_project'));

  await rejectsWith(client.getPrompt({ name: 'write_story', arguments: {} }), -32602, /topic/);
  await rejectsWith(client.getPrompt({ name: 'aceflow_stages', arguments: { stage: 's9_party' } }), -32602, /stage/);
  await rejectsWith(client.getPrompt({ name: 'no_such_prompt' }), -32602, /no_such_prompt/);
}

/** completion/complete for each kind: run ids, batch ids, pipeline names and versions, stage ids, projects, the prompts' arguments. */
export async function checkCompletions(client: Client, known: { runId: string; batchId: string; aceflowProject: string; supervisorProject: string }): Promise<void> {
  const complete = async (ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }, name: string, value: string, context?: Record<string, string>) =>
    (await client.complete({ ref, argument: { name, value }, ...(context ? { context: { arguments: context } } : {}) })).completion.values;
  const run = { type: 'ref/resource' as const, uri: 'switchyard://runs/{run_id}' };
  assert.ok((await complete(run, 'run_id', known.runId.slice(0, 12))).includes(known.runId), 'a run id by its prefix');
  assert.ok((await complete(run, 'run_id', known.runId.slice(4, 14))).includes(known.runId), 'a run id by its hex digits');
  assert.deepEqual(await complete(run, 'run_id', 'run_zzz'), []);
  assert.ok((await complete({ type: 'ref/resource', uri: 'switchyard://runs/{run_id}/story.md' }, 'run_id', 'run_')).length > 0);
  assert.ok((await complete({ type: 'ref/resource', uri: 'switchyard://batches/{batch_id}' }, 'batch_id', known.batchId.slice(0, 10))).includes(known.batchId));
  assert.ok((await complete({ type: 'ref/resource', uri: 'switchyard://pipelines/{name}' }, 'name', 'st')).includes('story'));
  const versions = { type: 'ref/resource' as const, uri: 'switchyard://pipelines/{name}/versions/{version}' };
  const storyVersions = await complete(versions, 'version', '', { name: 'story' });
  assert.ok(storyVersions.length > 0 && storyVersions.every((v) => /^[1-9]\d*$/.test(v)), `versions of the pipeline named in the context: ${storyVersions.join(', ')}`);
  assert.deepEqual(await complete(versions, 'version', ''), [], 'no versions without a pipeline name');

  const stages = { type: 'ref/prompt' as const, name: 'aceflow_stages' };
  assert.deepEqual(await complete(stages, 'stage', 's3'), ['s3_testcases']);
  assert.deepEqual(await complete(stages, 'stage', 'test'), ['s3_testcases', 's5_test_report']);
  assert.equal((await complete(stages, 'stage', '')).length, 8);
  assert.ok((await complete(stages, 'project', known.aceflowProject.slice(0, 4))).includes(known.aceflowProject), 'AceFlow projects');
  const supervisor = await complete({ type: 'ref/prompt', name: 'supervisor_phases' }, 'project', known.supervisorProject.slice(0, 4).toLowerCase());
  assert.ok(supervisor.includes(known.supervisorProject), `Supervisor projects: ${JSON.stringify(supervisor)}`);
  assert.deepEqual(await complete({ type: 'ref/prompt', name: 'write_story' }, 'style', 'wh'), ['whimsical']);
  assert.deepEqual(await complete({ type: 'ref/prompt', name: 'write_story' }, 'audience', 'you'), ['young_adult']);
  assert.deepEqual(await complete({ type: 'ref/prompt', name: 'write_story' }, 'topic', 'a'), [], 'free text has no completions');
  await rejectsWith(complete({ type: 'ref/prompt', name: 'no_such_prompt' }, 'x', ''), -32602, /no_such_prompt/);
}

/**
 * logging/setLevel filters the run events of the session's runs: at "notice" a run's end arrives
 * and its stage changes (info) do not; at "debug" its stages and progress arrive too.
 */
export async function checkLogging(client: Client, recorded: Recorded): Promise<void> {
  const severity = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
  const ofRun = (runId: unknown) => recorded.messages.filter((m) => (m.data as { run_id?: string }).run_id === runId);
  assert.deepEqual(await client.setLoggingLevel('notice'), {});
  const { run_id: quiet } = await ok(client, 'start_story', { topic: 'a quiet signal box' });
  await waitFor('the run\'s end, at notice', () => ofRun(quiet).some((m) => m.level === 'notice' && (m.data as { message: string }).message === 'run completed'), 60_000);
  // The end is the run's last event: any stage change sent before it would have arrived already.
  assert.deepEqual(ofRun(quiet).filter((m) => severity.indexOf(m.level) < severity.indexOf('notice')), [], 'nothing below notice');
  assert.equal(ofRun(quiet)[0]?.logger, 'run');

  await client.setLoggingLevel('debug');
  const { run_id: loud } = await ok(client, 'start_story', { topic: 'a loud foghorn' });
  await waitFor('the second run\'s end', () => ofRun(loud).some((m) => (m.data as { message: string }).message === 'run completed'), 60_000);
  const levels = new Set(ofRun(loud).map((m) => m.level));
  assert.ok(levels.has('info') && levels.has('debug'), `stage changes and progress arrive at debug: ${[...levels].join(', ')}`);
  assert.ok(ofRun(loud).some((m) => /^stage polish completed/.test((m.data as { message: string }).message)));
  await client.setLoggingLevel('info');
}
