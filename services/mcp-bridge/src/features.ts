/**
 * Everything beyond tools, for one MCP session: resources (with subscriptions), prompts,
 * completions and logging, on the SDK's McpServer. What the sessions of a process share — the
 * stores, the stream hub that follows runs, the bridge's notices — is `BridgeFeatures`, made
 * once per process by `openBridgeDeps`.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RUN_ID, type BatchStore, type PipelineStore, type RunStore, type RunViewer, type StreamHub } from '@switchyard/pipeline';
import type { SessionState, ToolOutcome } from '@switchyard/tool-suite';
import type { CompletionSources } from './completions/sources.js';
import type { BridgeNotices } from './logging/bridge-notices.js';
import { SessionLog } from './logging/session-log.js';
import { FIXTURE_SUBSCRIBABLE, registerConformanceFixtures } from './conformance/fixtures.js';
import { registerPrompts } from './prompts/index.js';
import { registerResources } from './resources/index.js';
import { ResourceSubscriptions } from './resources/subscriptions.js';

export interface BridgeFeatures {
  store: RunStore;
  batches: BatchStore;
  pipelines: PipelineStore;
  hub: StreamHub;
  notices: BridgeNotices;
  sources: CompletionSources;
  /** Every Supervisor project, id and name. */
  supervisorProjects(): Promise<{ id: string; name: string }[]>;
  /** Tells of each new pipeline version by name; answers the function that stops telling. */
  onPipelineChanged(listener: (name: string) => void): () => void;
  /** Milliseconds over which a subscribed run's events make one update (default 200). */
  debounceMs?: number;
  /** Runs per page of resources/list (default 50). */
  pageSize?: number;
  /** Also the MCP conformance suite's fixture resources and prompts (default false). */
  conformanceFixtures?: boolean;
}

export interface SessionFeatures {
  log: SessionLog;
  /** Logs the runs a tool call started, from their first event. */
  runsStarted(tool: string, suite: string, outcome: ToolOutcome): void;
  close(): void;
}

/** The job tools that start runs, and every pipeline tool. */
const STARTERS = new Set(['start_story', 'start_story_batch', 'start_stage_pipeline']);

/** The run ids a starting tool answered (`run_id`, or `run_ids` for a batch). */
export function startedRunIds(tool: string, suite: string, outcome: ToolOutcome): string[] {
  if (outcome.isError || !(STARTERS.has(tool) || (suite === 'pipelines' && tool.startsWith('pipeline_')))) return [];
  const { run_id: one, run_ids: many } = outcome.content;
  const ids = [one, ...(Array.isArray(many) ? (many as unknown[]) : [])];
  return ids.filter((id): id is string => typeof id === 'string' && RUN_ID.test(id));
}

/** `viewer`: the session's key, which reads runs' resources (another caller's API key id hidden unless it holds `admin`). */
export function installFeatures(mcp: McpServer, features: BridgeFeatures, session: SessionState, viewer?: RunViewer): SessionFeatures {
  const log = new SessionLog({ server: mcp.server, state: session, store: features.store, hub: features.hub, notices: features.notices });
  const subscriptions = new ResourceSubscriptions({
    store: features.store,
    pipelines: features.pipelines,
    hub: features.hub,
    onPipelineChanged: features.onPipelineChanged,
    notify: (uri) => mcp.server.sendResourceUpdated({ uri }),
    ...(features.debounceMs !== undefined ? { debounceMs: features.debounceMs } : {}),
  });
  if (features.conformanceFixtures) registerConformanceFixtures(mcp);
  registerResources(mcp, { ...features, viewer, subscriptions, log, ...(features.conformanceFixtures ? { fixtureSubscribable: FIXTURE_SUBSCRIBABLE } : {}) });
  registerPrompts(mcp, { sources: features.sources, supervisorProjects: features.supervisorProjects });
  return {
    log,
    runsStarted(tool, suite, outcome) {
      for (const runId of startedRunIds(tool, suite, outcome)) void log.followRun(runId, 'started').catch(() => undefined);
    },
    close() {
      subscriptions.close();
      log.close();
    },
  };
}
