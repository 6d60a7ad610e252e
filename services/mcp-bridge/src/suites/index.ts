/**
 * The one list of suites the bridge serves. A suite is a folder here exporting a `ToolSuite`
 * factory; adding one is adding its line below. The job tools come first.
 */
import type { Redis } from 'ioredis';
import type { PipelineRunsDeps, RunWaits, ScheduleStore, ToolDirectory } from '@switchyard/pipeline';
import type { ToolSuite } from '@switchyard/tool-suite';
import { aceflowSuite } from './aceflow/index.js';
import { inboxSuite } from './inbox/index.js';
import { jobsSuite } from './jobs/index.js';
import { moduleDocsSuite } from './module-docs/index.js';
import { pipelinesSuite, type PipelinesSuite } from './pipelines/index.js';
import { schedulesSuite } from './schedules/index.js';
import { supervisorSuite } from './supervisor/index.js';

export interface SuiteDeps extends PipelineRunsDeps {
  redis: Redis;
  /** Key prefix of the deployment (the queues' prefix). */
  prefix: string;
  /** Root of AceFlow workspaces (default: the AceFlow package's, `.data/aceflow`). */
  aceflowRoot?: string | undefined;
  /** Root of Supervisor workspaces (default: the Supervisor package's, `.data/supervisor`). */
  supervisorRoot?: string | undefined;
  /** The configured tool services, for pipelines registered over MCP (default none: no register_pipeline). */
  tools?: ToolDirectory | undefined;
  /** Schedules and their job schedulers. */
  schedules: ScheduleStore;
  /** What runs wait for: the inbox, approvals and signals. */
  waits: RunWaits;
}

/** The suites, and the pipelines suite apart: it follows registrations until closed. */
export function bridgeSuites(deps: SuiteDeps): { suites: ToolSuite[]; pipelines: PipelinesSuite } {
  const shared = { redis: deps.redis, prefix: deps.prefix };
  const pipelines = pipelinesSuite(deps);
  const suites = [
    jobsSuite(deps),
    pipelines,
    inboxSuite({ store: deps.store, waits: deps.waits, pipelines: deps.pipelines, steps: deps.queues.steps }),
    schedulesSuite(deps),
    aceflowSuite({ ...shared, ...(deps.aceflowRoot ? { workspaceRoot: deps.aceflowRoot } : {}) }),
    supervisorSuite({ ...shared, ...(deps.supervisorRoot ? { workspaceRoot: deps.supervisorRoot } : {}) }),
    moduleDocsSuite(shared),
  ];
  return { suites, pipelines };
}
