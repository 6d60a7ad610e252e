/**
 * The inbox for agents: what runs wait for (an approval of an agent's tool call, a signal to a
 * wait step), and answering it, through the same checks and answer code as the API's
 * `/v1/inbox`, `/v1/runs/{id}/approvals/{call_id}` and `/v1/runs/{id}/signals/{name}`
 * (packages/pipeline's engine/answers.ts). Listing needs `read`, answering `run` (tool-scopes.ts).
 * A refusal (an unknown run or call, a call decided already, arguments or a payload that do not
 * fit the schema) is an `isError` result with `{error:{code,message,details}}`.
 */
import { z } from 'zod';
import { ApprovalAccepted, ApprovalRequest, InboxList, SignalAccepted } from '@switchyard/contracts';
import { answerApproval, AnswerError, answerSignal, CALL_ID, inboxList, RUN_ID, SIGNAL_NAME, type AnswerDeps } from '@switchyard/pipeline';
import { describeZodError } from '@switchyard/http-kit';
import { failure, jsonSchemaOf, refusedArguments, success, type ArgumentsRefusal, type SuiteTool, type ToolOutcome, type ToolSuite } from '@switchyard/tool-suite';
import { parseArgs } from '../parse-args.js';
import { outputSchemaOf } from '../error-body.js';

const RunId = z.string().regex(RUN_ID, 'must be a run id such as run_0123…(32 hex digits)').describe('The run that waits');

export const ListInboxInput = z.strictObject({
  pipeline: z.string().min(1).max(60).optional().describe('Only what runs of this pipeline wait for'),
  run_id: RunId.optional().describe('Only what this run waits for'),
  offset: z.number().int().min(0).max(100_000).default(0).describe('Items to skip, oldest first'),
  limit: z.number().int().min(1).max(200).default(50).describe('Most items to answer (default 50)'),
});

export const ApproveCallInput = z.strictObject({
  run_id: RunId,
  call_id: z.string().regex(CALL_ID, 'a call id: 1 to 256 letters, digits, _ . : -').describe("The call's key in the inbox (list_inbox's `key`)"),
  ...ApprovalRequest.shape,
});

export const SendSignalInput = z.strictObject({
  run_id: RunId,
  name: z.string().regex(SIGNAL_NAME, 'a signal name: a letter, then up to 59 letters, digits, _ and -').describe('The signal (list_inbox\'s `key` of a signal)'),
  payload: z.unknown().describe("The signal's payload, checked against the wait step's schema (list_inbox's `schema`)"),
  idempotency_key: z.string().min(1).max(200).optional().describe('As the API\'s Idempotency-Key header: the first signal of a name stands either way'),
});

/** The shared checks' refusal as this suite's error result. */
async function answering<T extends Record<string, unknown>>(answer: () => Promise<T>): Promise<ToolOutcome> {
  try {
    return success(await answer());
  } catch (error) {
    if (!(error instanceof AnswerError)) throw error;
    return failure({ error: { code: error.code, message: error.message, details: error.details ?? {} } });
  }
}

function tool(definition: { name: string; title: string; description: string; input: z.ZodType; output: z.ZodType; readOnly: boolean; handler: SuiteTool['handler'] }): SuiteTool {
  return {
    name: definition.name,
    longRunning: false,
    description: definition.description,
    inputSchema: jsonSchemaOf(definition.input),
    outputSchema: outputSchemaOf(definition.output),
    annotations: { title: definition.title, readOnlyHint: definition.readOnly, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: definition.handler,
  };
}

export function inboxSuite(deps: AnswerDeps): ToolSuite {
  return {
    name: 'inbox',
    description: 'The inbox: what runs wait for (a tool call waiting for approval, a wait step waiting for a signal), and answering it.',
    tools: [
      tool({
        name: 'list_inbox',
        title: 'List what runs wait for',
        description:
          "What runs wait for, oldest first, a page at a time: each item's run, stage, kind (approval or signal), key (the call id or the signal's name), the call's tool, arguments and the model's reason (approvals), and `schema`, the form of the answer (the tool's argument schema, or the signal's payload schema). Answer with approve_call or send_signal.",
        input: ListInboxInput,
        output: InboxList,
        readOnly: true,
        handler: async (args) => success(InboxList.parse(await inboxList(deps, parseArgs(ListInboxInput, args)))),
      }),
      tool({
        name: 'approve_call',
        title: 'Approve or refuse a tool call',
        description:
          "Answers a tool call that waits for approval: approve true makes the call (with `arguments` instead of the model's when given, checked against the tool's schema); approve false refuses it, and the model reads `note` as the call's result. A call is decided once.",
        input: ApproveCallInput,
        output: ApprovalAccepted,
        readOnly: false,
        handler: async (args, context) => {
          const { run_id, call_id, ...request } = parseArgs(ApproveCallInput, args);
          return answering(() => answerApproval(deps, { runId: run_id, callId: call_id, by: { scopes: context.scopes } }, () => request));
        },
      }),
      tool({
        name: 'send_signal',
        title: 'Send a signal to a run',
        description:
          "Sends a signal to a run's wait step: the payload, checked against the step's schema, becomes the step's output. A signal sent before the run reaches the step is kept for it; the first of a name stands (status duplicate after).",
        input: SendSignalInput,
        output: SignalAccepted,
        readOnly: false,
        handler: async (args, context) => {
          const { run_id, name, payload, idempotency_key } = parseArgs(SendSignalInput, args);
          return answering(() => answerSignal(deps, { runId: run_id, name, by: { scopes: context.scopes } }, payload, idempotency_key));
        },
      }),
    ],
    refuseArguments: (name, refusal) => (name === 'approve_call' ? refusedApproval(refusal) : refusedArguments(refusal)),
  };
}

/**
 * Arguments approve_call refuses, answered as the API refuses the same approval's body
 * (`invalid_approval`, and details.problems with the same paths), so an agent and a script read
 * one shape for one mistake.
 */
function refusedApproval(refusal: ArgumentsRefusal): ToolOutcome {
  const parsed = ApproveCallInput.safeParse(refusal.args);
  if (parsed.success) return refusedArguments(refusal);
  const { message, details } = describeZodError(parsed.error);
  return failure({ error: { code: 'invalid_approval', message, details } });
}
