export {
  JsonSchemaObject,
  ToolDescriptor,
  ToolList,
  RunMetadata,
  RunEnvelope,
  AsyncAccepted,
  ErrorDetail,
  ErrorBody,
  TaskStatusValue,
  TaskStatus,
  StreamProgress,
  StreamContent,
  StreamDone,
  StreamError,
  StreamEventName,
  HealthReport,
  ErrorCodes,
} from './tool-protocol.js';
export {
  StoryToolName,
  SectionName,
  SECTION_ORDER,
  SearchInput,
  SearchResult,
  SearchOutput,
  ResearchItem,
  OutlineInput,
  IntroductionOutline,
  DevelopmentOutline,
  ClimaxOutline,
  ConclusionOutline,
  OutlineOutput,
  SectionOutline,
  WriteSectionInput,
  WriteSectionOutput,
  PolishInput,
  Improvement,
  PolishOutput,
  STORY_TOOL_SCHEMAS,
} from './story-tools.js';
export type { StoryToolIo } from './story-tools.js';
export { ToolServiceKey, TOOL_SERVICE_KEYS, ToolCallMode, DEFAULT_TOOL_SERVICES, SERVICE_NAME, toolServicesEnvShape, toolServicesFromEnv, parseToolServicesEnv, pipelineToolServices } from './tool-services-config.js';
export type { ToolServiceConfig, ToolServicesConfig, PipelineToolService } from './tool-services-config.js';
export { countWords, readingTime } from './text.js';
export {
  StoryRequest,
  MAX_BATCH_ITEMS,
  BatchRequest,
  PipelineBatchRequest,
  NotifyRequest,
  RunStatus,
  LIVE_STATUSES,
  TERMINAL_STATUSES,
  StageStatus,
  RunError,
  StageView,
  StorySection,
  StoryResult,
  RunView,
  RunPriority,
  RunFlowView,
  WaitReason,
  RunEventName,
  BatchCounts,
  RunEventSchemas,
  BatchEventName,
  BatchEventSchemas,
} from './story-runs.js';
export type { RunEventData } from './story-runs.js';
export { RunLinks, RunAccepted, PipelineRunAccepted, PageMarks, RUN_LABEL_CHARS, RunSummary, RunList, BatchAccepted, BatchPage, BatchView, BatchSummary, BatchList, OrchestratorHealth, ProbeReport, ApiErrorBody } from './run-api.js';
export { STAGE_DOCUMENT_TOOL, StageDefect, StageDocumentInput, StageDocumentOutput } from './stage-document.js';
export { ACEFLOW_STAGE_IDS, AceflowStageId, AceflowRunRequest, AceflowRunAccepted } from './aceflow-runs.js';
export { AgentUsage, AgentToolCallView, AgentMessage, AgentTranscriptView, EVENT_PREVIEW_CHARS } from './agent-transcript.js';
export type { ScheduleCatchUp } from './schedules.js';
export { DEFAULT_CATCH_UP_MAX, MAX_CATCH_UP, SCHEDULE_CATCH_UP, SCHEDULE_NAME, ScheduleInterval, ScheduleRequest, ScheduleLastRun, ScheduleView, ScheduleList, ScheduleDeleted } from './schedules.js';
export { ApprovalRequest, ApprovalAccepted, SignalAccepted, InboxItem, InboxList } from './waits.js';
