/**
 * Names for the shapes of the generated document that callers use most. Every one is taken from
 * `generated/openapi.ts`, so a change to the API shows here at the next generation.
 */
import type { components, operations, paths } from './generated/openapi.js';

type Schemas = components['schemas'];
export type RunView = Schemas['RunView'];
export type RunStatus = Schemas['RunStatus'];
export type RunList = Schemas['RunList'];
export type RunAccepted = Schemas['PipelineRunAccepted'];
export type BatchView = Schemas['BatchView'];
export type BatchList = Schemas['BatchList'];
export type BatchAccepted = Schemas['BatchAccepted'];
export type PipelineList = Schemas['PipelineList'];
export type PipelineView = Schemas['PipelineView'];
export type PipelineDeleted = operations['deletePipeline']['responses'][200]['content']['application/json'];
export type PipelineRegistered = Schemas['PipelineRegistered'];
export type ApiErrorBody = Schemas['Error'];
export type InboxList = operations['listInbox']['responses'][200]['content']['application/json'];
export type InboxQuery = NonNullable<operations['listInbox']['parameters']['query']>;
export type ApprovalRequest = NonNullable<operations['answerApproval']['requestBody']>['content']['application/json'];
export type ApprovalAccepted = operations['answerApproval']['responses'][202]['content']['application/json'];
export type SignalAnswer = operations['sendSignal']['responses'][202]['content']['application/json'];
export type ScheduleRequest = NonNullable<operations['putSchedule']['requestBody']>['content']['application/json'];
export type ScheduleView = operations['getSchedule']['responses'][200]['content']['application/json'];
export type ScheduleList = operations['listSchedules']['responses'][200]['content']['application/json'];
export type ScheduleDeleted = operations['deleteSchedule']['responses'][200]['content']['application/json'];

/** The body of `POST /v1/batches`: story items, or a pipeline's inputs. */
export type BatchRequest = NonNullable<paths['/v1/batches']['post']['requestBody']>['content']['application/json'];
export type RunListQuery = NonNullable<paths['/v1/runs']['get']['parameters']['query']>;
export type BatchListQuery = NonNullable<paths['/v1/batches']['get']['parameters']['query']>;

/** One event of `GET /v1/runs/{runId}/events`: `{id, event, data}`, typed by `event`. */
export type RunEvent = paths['/v1/runs/{runId}/events']['get']['responses'][200]['content']['text/event-stream'];
/** One event of `GET /v1/batches/{batchId}/events`. */
export type BatchEvent = paths['/v1/batches/{batchId}/events']['get']['responses'][200]['content']['text/event-stream'];

export const ENDED_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];
