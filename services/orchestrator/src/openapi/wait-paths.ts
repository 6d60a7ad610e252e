/**
 * What runs wait for, in the OpenAPI document: answering an approval, sending a signal, the inbox.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { ApprovalAccepted, ApprovalRequest, InboxList, SignalAccepted } from '@switchyard/contracts';
import { SIGNAL_NAME } from '@switchyard/pipeline';
import { InboxQuery } from '../routes/waits.js';
import { BODY_ERRORS, errors, jsonResponse, RunIdParam } from './common.js';

const CallIdParam = RunIdParam.extend({ callId: z.string().describe("The tool call's id, as the inbox and the `waiting` event give it") });
const SignalParam = RunIdParam.extend({ name: z.string().regex(SIGNAL_NAME).describe('The signal a wait step of the run waits for') });
const ENDED = 'The run has ended (`run_finished`)';

export const waitPaths: ZodOpenApiPathsObject = {
  '/v1/runs/{runId}/approvals/{callId}': {
    post: {
      operationId: 'answerApproval',
      tags: ['runs'],
      summary: "Approve or refuse an agent's tool call that waits for a person",
      description: "`approve: true` makes the call (with `arguments` when given, checked against the tool's schema); `approve: false` gives the model the refusal, with `note`, as the call's result. The waiting job is woken at once; the run goes on.",
      requestParams: { path: CallIdParam },
      requestBody: { required: true, content: { 'application/json': { schema: ApprovalRequest } } },
      responses: {
        '202': jsonResponse('The answer is recorded; the call goes on', ApprovalAccepted),
        ...errors({ v1: true, routeErrors: { ...BODY_ERRORS, 400: 'A bad body (`invalid_approval`), or edited arguments that break the tool\'s schema (`invalid_arguments`, each problem in `details.problems`)', 404: 'No such run, or it waits for no approval of that call (`approval_not_found`)', 409: `The call was decided already (\`approval_decided\`), or ${ENDED}` } }),
      },
    },
  },
  '/v1/runs/{runId}/signals/{name}': {
    post: {
      operationId: 'sendSignal',
      tags: ['runs'],
      summary: "Send a signal to a run's wait step; its payload is the step's output",
      description: 'The body is the payload, checked against the step\'s `schema`. A signal sent before the run reaches the step is kept and used when it does. The first signal of a name stands: another answers 200 `duplicate` and changes nothing. `Idempotency-Key` is recorded with it.',
      requestParams: { path: SignalParam, header: z.object({ 'idempotency-key': z.string().max(200).optional() }) },
      requestBody: { required: true, content: { 'application/json': { schema: z.unknown() } } },
      responses: {
        '202': jsonResponse('The signal is recorded', SignalAccepted),
        '200': jsonResponse('A signal of this name was received before: this one is a duplicate and changes nothing', SignalAccepted),
        ...errors({ v1: true, routeErrors: { ...BODY_ERRORS, 400: "The payload breaks the signal's schema (`invalid_signal`, each problem in `details.problems`)", 404: 'No such run, or no step of it waits for that signal (`signal_not_found`)', 409: ENDED } }),
      },
    },
  },
  '/v1/inbox': {
    get: {
      operationId: 'listInbox',
      tags: ['runs'],
      summary: 'What waits on a person or a signal, across runs, oldest first',
      description: "Each item says what it waits for (an approval of an agent's tool call, with the call's arguments and the model's reason; or a signal), the form of its answer (`schema`: the tool's, or the signal's) and where to send it (`answer_url`).",
      requestParams: { query: InboxQuery },
      responses: { '200': jsonResponse('A page of the inbox', InboxList), ...errors({ v1: true, routeErrors: { 400: 'A bad `offset`, `limit` or `pipeline` (`invalid_parameters`)' } }) },
    },
  },
};
