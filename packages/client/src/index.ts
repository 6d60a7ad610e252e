export { SwitchyardClient, createSwitchyardClient, DEFAULT_TIMEOUT_MS } from './client.js';
export type { ClientOptions, DefinitionSource, FollowSettings } from './client.js';
export { ApiError, ApiUnreachable, EventsUnavailable } from './errors.js';
export { followEvents, FOLLOW_DEFAULTS } from './events.js';
export type { FollowOptions, StreamEvent } from './events.js';
export { ENDED_STATUSES } from './types.js';
export type {
  ApiErrorBody,
  ApprovalAccepted,
  ApprovalRequest,
  InboxList,
  InboxQuery,
  ScheduleDeleted,
  ScheduleList,
  ScheduleRequest,
  ScheduleView,
  SignalAnswer,
  BatchAccepted,
  BatchEvent,
  BatchList,
  BatchListQuery,
  BatchRequest,
  BatchView,
  PipelineList,
  PipelineRegistered,
  PipelineDeleted,
  PipelineView,
  RunAccepted,
  RunEvent,
  RunList,
  RunListQuery,
  RunStatus,
  RunView,
} from './types.js';
export type { components, operations, paths } from './generated/openapi.js';
