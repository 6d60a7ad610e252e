/**
 * One MCP server per connection (a stdio process, or an HTTP session) over the shared tool
 * registry. Tools are served by handlers on the low-level SDK server rather than McpServer's
 * registerTool, because suites publish JSON Schemas and answer refused arguments in each tool's
 * own failure shape: as MCP 2025-11-25 recommends, bad arguments are a tool result with `isError`
 * that a model can read and correct, while an unknown tool stays the protocol's invalid-params
 * error. Resources, prompts and completions are McpServer's (see features.ts).
 */
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, RELATED_TASK_META_KEY, type CallToolResult, type CreateTaskResult, type ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import { SCOPES, type Scope } from '@switchyard/config';
import type { Logger } from '@switchyard/logger';
import { mayAnswer, RunLimitError, TooManyRunsError } from '@switchyard/pipeline';
import { InvalidArgumentsError, type SessionState, type ToolContext, type ToolOutcome } from '@switchyard/tool-suite';
import { installFeatures, type BridgeFeatures } from './features.js';
import type { ToolRegistry } from './registry.js';
import { mayUseTool, toolScope } from './tool-scopes.js';
import { runAsTask } from './tasks/run-as-task.js';
import { callerOfRequest } from './flow-caller.js';

export const SERVER_INFO = { name: 'switchyard', version: '0.1.0' } as const;

const INSTRUCTIONS = [
  'Switchyard runs story pipelines and AceFlow stage pipelines on a job queue.',
  'start_story, start_story_batch and start_stage_pipeline start runs and answer their ids at once; wait_for_run follows a run (pass a progressToken for progress notifications);',
  'get_run reads a run and its result; list_runs lists runs; cancel_run stops one.',
  'A failed call is a result with isError and {error:{code,message,details}}. The suites (AceFlow, Supervisor, module docs) and the tool services\' tools follow.',
  'Resources: switchyard://runs/{run_id} (subscribe to follow a run), switchyard://runs/{run_id}/story.md, switchyard://batches/{batch_id}, switchyard://pipelines/{name}.',
  'Prompts: write_story, aceflow_stages, supervisor_phases. logging/setLevel chooses which run events of your runs arrive as log messages.',
].join(' ');

export interface BridgeServerOptions {
  tools: ToolRegistry;
  /** The MCP session id (a stdio connection makes up one of its own). */
  sessionId: string;
  /** What suites keep for the session (e.g. the current project). */
  session: SessionState;
  logger: Logger;
  /** Where MCP tasks live; without one, tools cannot be called as tasks. */
  tasks?: TaskStore;
  /** Resources, prompts, completions and logging; without them the server serves tools only. */
  features?: BridgeFeatures;
  /**
   * The scopes of the key the session was opened with: tools needing another are neither listed
   * nor callable (see tool-scopes.ts). Default: every scope (stdio, whose user started the bridge).
   */
  scopes?: ReadonlySet<Scope>;
  /** The id of the session's key (keyId): the runs its tools start are held by it (live-runs). Default: none (stdio: not bounded per key). */
  keyId?: string | undefined;
}

export function createBridgeServer(options: BridgeServerOptions): Server {
  const capabilities = {
    // Tools of a tool service that answers after start-up are added then (see federation).
    tools: { listChanged: true },
    ...(options.tasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
    ...(options.features ? { logging: {} } : {}),
  };
  // Tools are not declared to McpServer itself: it would install its own tools handlers.
  const { tools: toolsCapability, ...others } = capabilities;
  const mcp = new McpServer(SERVER_INFO, { capabilities: others, instructions: INSTRUCTIONS, ...(options.tasks ? { taskStore: options.tasks } : {}) });
  const server = mcp.server;
  server.registerCapabilities({ tools: toolsCapability });
  const features = options.features ? installFeatures(mcp, options.features, options.session, { keyId: options.keyId, admin: (options.scopes ?? new Set(SCOPES)).has('admin') }) : undefined;

  const scopes = options.scopes ?? new Set(SCOPES);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: options.tools.list((entry) => mayUseTool(scopes, entry.suite, entry.tool.name)) }));
  const stopTelling = options.tools.onToolsAdded(() => void server.sendToolListChanged().catch(() => undefined));
  // An ended or evicted session has nobody left to tell. Callers that want to know of the close too chain onto this.
  server.onclose = () => {
    stopTelling();
    features?.close();
  };

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult | CreateTaskResult> => {
    const { name } = request.params;
    const entry = options.tools.get(name);
    if (!entry) throw invalidParams(`Unknown tool: ${name}`, { tool: name });
    if (!mayUseTool(scopes, entry.suite, name)) return insufficientScope(name, toolScope(entry.suite, name), scopes);
    const args = request.params.arguments ?? {};
    const issues = entry.check(args);
    const refuse = (message: string, details: unknown) => toCallToolResult(entry.refuse({ message: `Invalid arguments for tool ${name}: ${message}`, details, args, requestId: extra.requestId }));

    const progressToken = request.params._meta?.progressToken;
    const call = async (signal: AbortSignal, taskId?: string): Promise<CallToolResult> => {
      // Also for a task: its result is the refusal.
      if (issues.length > 0) return refuse(issues.join('; '), { issues });
      const context: ToolContext = {
        caller: callerOfRequest(extra.authInfo?.token, request.params._meta),
        sessionId: options.sessionId,
        requestId: extra.requestId,
        session: options.session,
        scopes,
        ...(options.keyId ? { keyId: options.keyId } : {}),
        signal,
        reportProgress: async (progress) => {
          if (progressToken === undefined || signal.aborted) return;
          // A task's call outlives its request: its progress goes on the session's own stream.
          const params = { progressToken, ...progress, ...(taskId ? { _meta: { [RELATED_TASK_META_KEY]: { taskId } } } : {}) };
          if (taskId) await server.notification({ method: 'notifications/progress', params }).catch(() => undefined);
          else await extra.sendNotification({ method: 'notifications/progress', params });
        },
        // On the call's own stream; a task's call has none, so it asks nobody.
        // Offered only to a key that may answer what it would ask (the answer is checked again where it is applied).
        ...(server.getClientCapabilities()?.elicitation?.form && !taskId && mayAnswer({ scopes })
          ? {
              elicit: async (form, asked) => {
                const params = { mode: 'form' as const, message: form.message, requestedSchema: form.requestedSchema as ElicitRequestFormParams['requestedSchema'] };
                const answer = await server.elicitInput(params, { signal: asked.signal, timeout: asked.timeoutMs, relatedRequestId: extra.requestId });
                return { action: answer.action, content: answer.content };
              },
            }
          : {}),
      };
      try {
        const outcome = await entry.tool.handler(args, context);
        features?.runsStarted(name, entry.suite, outcome);
        return toCallToolResult(outcome);
      } catch (error) {
        if (error instanceof InvalidArgumentsError) return refuse(error.message, error.details ?? {});
        // A run's input past its bound: the tools that start runs answer failures in this shape.
        if (error instanceof RunLimitError || error instanceof TooManyRunsError) return toCallToolResult({ content: { error: { code: error.code, message: error.message, details: error.details } }, isError: true });
        if (error instanceof McpError) throw error;
        options.logger.error({ err: error, tool: name, session: options.sessionId }, 'tool failed');
        features?.log.log('error', 'bridge', { message: `${name} failed unexpectedly; the failure is logged by the bridge`, tool: name });
        // Text only: a suite's output schema need not admit this body, and clients check structured content against it.
        const body = { error: { code: 'internal_error', message: `${name} failed unexpectedly; the failure is logged` } };
        return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
      }
    };

    if (!request.params.task) return call(extra.signal);
    if (!extra.taskStore || !entry.tool.longRunning) {
      throw Object.assign(new Error(`Tool ${name} cannot be called as a task (its taskSupport is forbidden)`), { code: ErrorCode.MethodNotFound });
    }
    return runAsTask({ store: extra.taskStore, ttl: request.params.task.ttl, logger: options.logger, run: call });
  });

  return server;
}

/**
 * The JSON-RPC invalid-params error. Thrown as a plain error with `code` and `data`, which the SDK
 * sends as they are: an McpError would carry its "MCP error -32602:" prefix into the message, and
 * the client adds its own.
 */
function invalidParams(message: string, data: Record<string, unknown>): Error & { code: number; data: unknown } {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams, data });
}

/** A tool the session's key may not use: a result with `isError`, text only (the tool's output schema need not admit it). */
function insufficientScope(tool: string, needed: Scope, held: ReadonlySet<Scope>): CallToolResult {
  const scopes = [...held];
  const body = {
    error: {
      code: 'insufficient_scope',
      message: `Tool ${tool} needs the '${needed}' scope; this session's key has ${scopes.map((s) => `'${s}'`).join(', ')}`,
      details: { tool, required_scope: needed, scopes },
    },
  };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

/** The outcome as structured content, and as the same JSON in a text block for clients without it. */
export function toCallToolResult(outcome: ToolOutcome): CallToolResult {
  if (outcome.blocks) return { content: outcome.blocks, ...(outcome.isError ? { isError: true } : {}) };
  return {
    content: [{ type: 'text', text: JSON.stringify(outcome.content) }],
    structuredContent: outcome.content,
    ...(outcome.isError ? { isError: true } : {}),
  };
}
