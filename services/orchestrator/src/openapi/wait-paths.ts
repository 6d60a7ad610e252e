/**
 * What runs wait for in the OpenAPI document: the inbox, approving a tool call, sending a signal.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { ApprovalAccepted, ApprovalRequest, InboxItem, InboxList, SignalAccepted } from '@switchyard/contracts';
import { CALL_ID, SIGNAL_NAME } from '@switchyard/pipeline';
import { InboxQuery } from '../routes/waits.js';
import { BODY_ERRORS, errors, jsonResponse, RunIdParam } from './common.js';

const CallParams = RunIdParam.extend({ callId: z.string().regex(CALL_ID).describe("The call's key in the inbox (the model's call id); any other answers 404") });
const SignalParams = RunIdParam.extend({ name: z.string().regex(SIGNAL_NAME).describe("The signal's name, as the wait step gives it; any other answers 404") });
const SignalHeader = z.object({ 'Idempotency-Key': z.string().optional().describe('Kept with the signal (its first 200 characters); the first signal of a name stands whatever the key') });
const RUN_CONFLICT = 'The run has ended (`run_finished`, with `details.status`)';

export const waitPaths: ZodOpenApiPathsObject = {
  '/v1/inbox': {
    get: {
      operationId: 'listInbox',
      tags: ['runs'],
      summary: 'List what runs wait for: tool calls to approve, signals to send',
      description: "Oldest first, a page at a time; of one pipeline (`pipeline`) or one run (`run_id`). Each item says what it waits for and the form of the answer (`schema`: the tool's argument schema, or the signal's payload schema) and where it goes (`answer_url`).",
      requestParams: { query: InboxQuery },
      responses: { '200': jsonResponse('A page of the inbox', InboxList), ...errors({ v1: true, routeErrors: { 400: 'A bad `offset`, `limit`, `pipeline` or `run_id` (`invalid_parameters`)' } }) },
    },
  },
  '/v1/runs/{runId}/approvals/{callId}': {
    get: {
      operationId: 'getApproval',
      tags: ['runs'],
      summary: 'Read a tool call that waits for approval, its reason whole',
      description: "The inbox item of the call, as `GET /v1/inbox` lists it but with the model's reason whole (listings cut it to its first 500 characters).",
      requestParams: { path: CallParams },
      responses: { '200': jsonResponse('The waiting call', InboxItem), ...errors({ v1: true, routeErrors: { 404: 'The run waits for no approval of this call (`approval_not_found`)' } }) },
    },
    post: {
      operationId: 'answerApproval',
      tags: ['runs'],
      summary: 'Approve (optionally with edited arguments) or refuse a tool call that waits',
      description: "Recorded, then the waiting job is woken. Edited `arguments` are checked against the tool's schema; a refusal's `note` is what the model reads as the call's result. A call is decided once.",
      requestParams: { path: CallParams },
      requestBody: { required: true, content: { 'application/json': { schema: ApprovalRequest } } },
      responses: {
        '202': jsonResponse('The answer is recorded', ApprovalAccepted),
        ...errors({ v1: true, routeErrors: { ...BODY_ERRORS, 400: 'A bad body (`invalid_approval`), or edited arguments that do not fit the tool\'s schema (`invalid_arguments`, each problem naming its field)', 404: 'No such run (`run_not_found`), or it waits for no approval of this call (`approval_not_found`)', 409: `The call was decided already (\`approval_decided\`), or ${RUN_CONFLICT.toLowerCase()}` } }),
      },
    },
  },
  '/v1/runs/{runId}/signals/{name}': {
    post: {
      operationId: 'sendSignal',
      tags: ['runs'],
      summary: "Send a signal to a run's wait step",
      description: "The JSON body is the payload, checked against the wait step's schema; it becomes the step's output. A signal sent before the run reaches the step is kept for it. The first signal of a name stands: another answers 200 `duplicate`.",
      requestParams: { path: SignalParams, header: SignalHeader },
      requestBody: { required: true, content: { 'application/json': { schema: z.unknown().describe("The payload, of the wait step's schema") } } },
      responses: {
        '202': jsonResponse('The signal is recorded', SignalAccepted),
        '200': jsonResponse('A signal of this name was received before; the first stands', SignalAccepted),
        ...errors({ v1: true, routeErrors: { ...BODY_ERRORS, 400: "A payload that does not fit the signal's schema (`invalid_signal`, each problem naming its field)", 404: 'No such run (`run_not_found`), or no step of its pipeline waits for this signal (`signal_not_found`)', 409: RUN_CONFLICT } }),
      },
    },
  },
};
