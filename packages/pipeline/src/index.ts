export {
  QUEUES,
  STAGE_QUEUE_KEYS,
  STORY_STAGES,
  writeStage,
  RemoteTaskRef,
  SearchJob,
  OutlineJob,
  WriteJob,
  PolishJob,
  DispatchJob,
  AceflowStageJob,
  STAGE_JOB_OPTIONS,
  MAX_STAGE_ATTEMPTS,
  BULLMQ_EVENTS_MAXLEN,
  stageQueue,
  dispatchJobId,
  JOB_CATALOG,
  jobId,
} from './catalog.js';
export type { QueueKey, StageQueueKey, StageResults, JobName } from './catalog.js';
export { runKeys } from './keys.js';
export type { RunKeys } from './keys.js';
export { RunStore, newRunId } from './run-store.js';
export type { ActiveRun, RunRecord, NewRun, RunStoreOptions, StageStart } from './run-store.js';
export { BatchStore, newBatchId } from './batch-store.js';
export type { BatchView } from './batch-store.js';
export { readEvents, EVENT_ID_PATTERN } from './events.js';
export type { StreamEvent } from './events.js';
export { storyStartFlow, storySectionsFlow, enqueueStory, enqueueStories } from './story-flow.js';
export { createPipelineQueues } from './queues.js';
export type { PipelineQueues } from './queues.js';
export { startStoryRun, batchStoryRequests, startStoryBatch, cancelRun, findRun, toRunView, runLinks, batchLinks, RUN_ID, BATCH_ID } from './story-runs.js';
export type { StoryRunsDeps, CancelOutcome } from './story-runs.js';
export { ACEFLOW_MODE_STAGES, AceflowRangeError, aceflowRunStages, aceflowFlow, startAceflowRun } from './aceflow-flow.js';
