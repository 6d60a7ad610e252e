/**
 * What each MCP tool needs, in one place: the scope a session's key must hold to see a tool in
 * `tools/list` and to call it (the scopes of API_KEYS, see @switchyard/config). A suite has a
 * scope for all its tools, and a tool may say otherwise by name:
 *
 * - `read`: tools that only read — runs and pipelines (get, list, wait), the inbox (`list_inbox`), the code intelligence
 *   and the module-docs lookups.
 * - `run`: tools that start or stop work, or write — starting and cancelling runs, answering
 *   what they wait for (`approve_call`, `send_signal`), each
 *   pipeline's `pipeline_<name>`, AceFlow (writes stage documents), the Supervisor (writes its
 *   projects' state and phase files), module-docs' `add_module`, the tool services' own tools
 *   (they do whatever the service does).
 * - `admin`: `register_pipeline`, and changing schedules (`put_schedule`, `pause_schedule`,
 *   `resume_schedule`, `delete_schedule`); `list_schedules` and `get_schedule` need `read`.
 *
 * A suite this table does not name needs `admin`, so that a new suite is shown to no restricted
 * key until it is placed here (tool-scopes.test.ts checks every suite the bridge serves is).
 */
import { allows, type Scope } from '@switchyard/config';

/** The scope of every tool of a suite, by the suite's name. */
export const SUITE_SCOPES: Readonly<Record<string, Scope>> = {
  jobs: 'run',
  pipelines: 'run',
  schedules: 'admin',
  inbox: 'run',
  aceflow: 'run',
  supervisor: 'run',
  'module-docs': 'read',
  'code-intel': 'read',
  federation: 'run',
  'conformance-fixtures': 'run',
};

/** Tools whose scope is not their suite's, by suite and tool name. */
export const TOOL_SCOPES: Readonly<Record<string, Readonly<Record<string, Scope>>>> = {
  jobs: { get_run: 'read', list_runs: 'read', wait_for_run: 'read' },
  pipelines: { list_pipelines: 'read', get_pipeline: 'read', register_pipeline: 'admin' },
  schedules: { list_schedules: 'read', get_schedule: 'read' },
  inbox: { list_inbox: 'read' },
  'module-docs': { add_module: 'run' },
};

/** The scope `tool` of `suite` needs. */
export function toolScope(suite: string, tool: string): Scope {
  return TOOL_SCOPES[suite]?.[tool] ?? SUITE_SCOPES[suite] ?? 'admin';
}

/** Whether a session holding `scopes` may see and call `tool` of `suite`. */
export function mayUseTool(scopes: ReadonlySet<Scope>, suite: string, tool: string): boolean {
  return allows(scopes, toolScope(suite, tool));
}
