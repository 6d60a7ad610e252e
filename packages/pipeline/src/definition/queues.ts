/**
 * Where step jobs run: one queue per tool service, so each service's load is scaled and
 * rate-limited on its own, and one per step kind registered in code.
 */
export const toolQueue = (service: string) => `tool-${service}`;
export const kindQueue = (kind: string) => `kind-${kind.replace(/[^A-Za-z0-9_-]/g, '-')}`;
/** Where agent steps' model turns run, and their calls of pipelines and MCP tools (a tool service's calls run on its own queue). */
export const AGENT_QUEUE = 'agent';
/** Where wait steps' jobs run (and sit, delayed, while they wait). */
export const WAITS_QUEUE = 'waits';
/** Where child pipeline steps (`pipeline:`) start their child runs and look at them again; each look is short, the wait is in the delayed set. */
export const CHILD_QUEUE = 'child-runs';
