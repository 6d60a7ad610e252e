export { QUEUES, MAX_MAP_ITEMS, RemoteTaskRef, StepJob, DispatchJob, STAGE_JOB_OPTIONS, MAX_STAGE_ATTEMPTS, BULLMQ_EVENTS_MAXLEN, dispatchJobId, JOB_CATALOG, jobId } from './catalog.js';
export type { JobName } from './catalog.js';
export { runKeys } from './keys.js';
export type { RunKeys } from './keys.js';
export { RunStore, newRunId } from './run-store.js';
export { stepStateFields, readStepStates, readStepOutputs } from './step-states.js';
export type { RecordedStage, StepStates } from './step-states.js';
export type { ActiveRun, RunRecord, NewRun, RunObserver, RunStoreOptions, StageStart } from './run-store.js';
export { BatchStore, newBatchId } from './batch-store.js';
export { readEvents, toStreamEvents, EVENT_ID_PATTERN } from './events.js';
export { runEventPages, findRunDone, readRunHistories, compareStreamIds } from './run-archive.js';
export { StreamHub } from './stream-hub.js';
export type { StreamHubOptions, StreamListener, StreamFailureListener } from './stream-hub.js';
export { compactEndedRuns } from './run-compaction.js';
export type { CompactionOptions, CompactionReport } from './run-compaction.js';
export type { StreamEvent } from './events.js';
export { createPipelineQueues } from './queues.js';
export type { PipelineQueues } from './queues.js';
export {
  startStoryRun,
  batchStoryRequests,
  startStoryBatch,
  startAceflowRun,
  aceflowRunStages,
  ACEFLOW_MODE_STAGES,
  AceflowRangeError,
  PipelineMissingError,
  requirePipeline,
  cancelRun,
  findRun,
  toRunView,
  runLinks,
  batchLinks,
  RUN_ID,
  BATCH_ID,
} from './runs.js';
export type { CancelOutcome } from './runs.js';
export { PipelineDefinition, StepDefinition, pipelineJsonSchema, STEP_NAME, PIPELINE_NAME, MAX_REPEAT, MAX_STEP_ATTEMPTS } from './definition/schema.js';
export type { PipelineDefinitionInput } from './definition/schema.js';
export { compilePipeline, orderSteps } from './definition/compile.js';
export type { CompiledPipeline, CompiledStep, StoredPipeline, StepTarget } from './definition/compile.js';
export { compileExpression, compileArgs, isTruthy, ExpressionError } from './definition/expressions.js';
export type { Expression, ExpressionContext } from './definition/expressions.js';
export { DefinitionError, problemsRefusal } from './definition/problems.js';
export type { DefinitionProblem } from './definition/problems.js';
export { parseDefinitionText, validateDefinition } from './definition/validate.js';
export type { ToolDirectory } from './definition/validate.js';
export { toolQueue, kindQueue } from './definition/queues.js';
export { PipelineStore, sameDefinition } from './engine/pipeline-store.js';
export type { PipelineSummary, RegisterOutcome } from './engine/pipeline-store.js';
export { startPipelineRun, startPipelineBatch, checkRunInput, newPipelineRun, rootJobs, jobsForStep, chainParentOf, InputError } from './engine/pipeline-runs.js';
export type { PipelineRunsDeps } from './engine/pipeline-runs.js';
export { StepQueues, STEP_JOB_NAME, stageOf, stepJob, stepJobOptions, branchKeys } from './engine/step-jobs.js';
export type { StepJobSpec } from './engine/step-jobs.js';
export { advanceRun, finishRun, runEndOf, stepDone, needsAfter } from './engine/advance.js';
export { registerShippedPipelines, shippedStepNames, STEP_KINDS, SHIPPED_PIPELINES_DIR } from './engine/shipped.js';
export { definitionProblemsOf, registerDefinition, VersionConflictError } from './engine/register.js';
export type { PipelineRegistration } from './engine/register.js';
export type { StepKindName } from './engine/shipped.js';
