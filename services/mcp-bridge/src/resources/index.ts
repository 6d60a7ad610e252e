/**
 * The bridge's resources on the SDK's McpServer: a resource template per kind (listed by
 * `resources/templates/list`, read through McpServer's template matching, their variables
 * completed), `resources/list` a page at a time (McpServer's own lists everything in one answer,
 * so the handler is replaced), and `resources/subscribe` / `resources/unsubscribe`.
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListResourcesRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CompletionSources } from '../completions/sources.js';
import type { SessionLog } from '../logging/session-log.js';
import { listResources, type ResourceListOptions } from './list.js';
import { readResource, type ResourceReadDeps } from './read.js';
import type { ResourceSubscriptions } from './subscriptions.js';
import { parseResourceUri, TEMPLATES } from './uris.js';

export interface ResourceDeps extends ResourceReadDeps, ResourceListOptions {
  sources: CompletionSources;
  subscriptions: ResourceSubscriptions;
  log: SessionLog;
  /** Other resources a session may subscribe to, which never change (the conformance fixtures'). */
  fixtureSubscribable?: ReadonlySet<string>;
}

export function registerResources(mcp: McpServer, deps: ResourceDeps): void {
  const read = (uri: URL) => readResource(deps, uri.toString());
  const { sources } = deps;
  const runId = { run_id: (value: string) => sources.runIds(value) };
  const pipelineName = (value: string) => sources.pipelineNames(value);

  mcp.registerResource(
    'run',
    new ResourceTemplate(TEMPLATES.run, { list: undefined, complete: runId }),
    { title: 'A run', description: 'A run as JSON: status, progress, stages, request, result and error (what get_run answers). Subscribe to hear as it changes.', mimeType: 'application/json' },
    read,
  );
  mcp.registerResource(
    'story',
    new ResourceTemplate(TEMPLATES.story, { list: undefined, complete: runId }),
    { title: 'A finished story', description: 'The story a completed story run wrote, as Markdown: its title, text and sections.', mimeType: 'text/markdown' },
    read,
  );
  mcp.registerResource(
    'batch',
    new ResourceTemplate(TEMPLATES.batch, { list: undefined, complete: { batch_id: (value) => sources.batchIds(value) } }),
    { title: 'A batch', description: 'A batch as JSON: its counts by status and its runs (the first 1000), each with its URI.', mimeType: 'application/json' },
    read,
  );
  mcp.registerResource(
    'pipeline',
    new ResourceTemplate(TEMPLATES.pipeline, { list: undefined, complete: { name: pipelineName } }),
    { title: 'A pipeline', description: 'A registered pipeline as JSON: its latest definition and its versions.', mimeType: 'application/json' },
    read,
  );
  mcp.registerResource(
    'pipeline_version',
    new ResourceTemplate(TEMPLATES.pipelineVersion, { list: undefined, complete: { name: pipelineName, version: (value, context) => sources.pipelineVersions(context?.arguments?.name, value) } }),
    { title: 'A pipeline version', description: 'One version of a pipeline definition as JSON (versions never change).', mimeType: 'application/json' },
    read,
  );

  mcp.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  mcp.server.setRequestHandler(ListResourcesRequestSchema, (request) => listResources(deps, request.params?.cursor));
  mcp.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    if (deps.fixtureSubscribable?.has(uri)) return {};
    await deps.subscriptions.subscribe(uri);
    const target = parseResourceUri(uri);
    // A subscribed run's events are logged too, from now on.
    if (target?.kind === 'run' || target?.kind === 'story') await deps.log.followRun(target.runId, 'subscribed');
    return {};
  });
  mcp.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    if (deps.fixtureSubscribable?.has(uri)) return {};
    await deps.subscriptions.unsubscribe(uri);
    const target = parseResourceUri(uri);
    if (target?.kind === 'run' || target?.kind === 'story') {
      const runId = target.runId;
      // The run stays logged while the session follows it through its other URI.
      const other = target.kind === 'run' ? `${uri}/story.md` : uri.slice(0, -'/story.md'.length);
      if (!deps.subscriptions.has(other)) deps.log.unfollowRun(runId);
    }
    return {};
  });
}
