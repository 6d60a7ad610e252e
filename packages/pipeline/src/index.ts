export { QUEUES, RemoteTaskRef, StepJob, DispatchJob, STAGE_JOB_OPTIONS, MAX_STAGE_ATTEMPTS, BULLMQ_EVENTS_MAXLEN, dispatchJobId, JOB_CATALOG, jobId } from './catalog.js';
export type { JobName } from './catalog.js';
export { runKeys } from './store/keys.js';
export { DEFAULT_RUN_LIMITS, RUN_LIMIT_VARIABLES, runLimitsEnvShape, runLimitsConfig, runLimitsOf, RunLimitError, jsonBytesWithin } from './store/limits.js';
export type { RunLimits } from './store/limits.js';
export type { RunKeys } from './store/keys.js';
export { RunStore, newRunId } from './store/run-store.js';
export { LiveRuns, TooManyRunsError } from './store/live-runs.js';
export { admitDescendant, ChildBudgetError } from './store/run-tree.js';
export { RUN_FIELDS, inputTopic, resultTitle } from './store/run-listing.js';
export type { RunField, RunListQuery } from './store/run-listing.js';
export { RawJson, stringifyWithRaw, rawJsonBytes } from './store/raw-json.js';
export { withinBudget } from './store/page-budget.js';
export { stepStateFields, readStepStates, readStepOutputs } from './store/step-states.js';
export type { RecordedStage, StepStates } from './store/step-states.js';
export type { ActiveRun, RunRecord, NewRun, RunObserver, RunStoreOptions, StageStart } from './store/run-store.js';
export { BatchStore, newBatchId } from './store/batch-store.js';
export { readEvents, toStreamEvents, EVENT_ID_PATTERN } from './store/events.js';
export { runEventPages, findRunDone, readRunHistories, compareStreamIds, encodeArchive, decodeArchive, type RunArchive } from './store/run-archive.js';
export { StreamHub } from './store/stream-hub.js';
export type { StreamHubOptions, StreamListener, StreamFailureListener } from './store/stream-hub.js';
export { compactEndedRuns } from './store/run-compaction.js';
export type { CompactionOptions, CompactionReport } from './store/run-compaction.js';
export type { StreamEvent } from './store/events.js';
export { createPipelineQueues } from './engine/queues.js';
export type { PipelineQueues } from './engine/queues.js';
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
  latestStart,
  cancelRun,
  findRun,
} from './engine/runs.js';
export { toRunView, runLinks, batchLinks, RUN_ID, BATCH_ID, HIDDEN_CALLER_KEY, shownFlowKey, type RunViewer } from './store/run-view.js';
export type { CancelOutcome } from './engine/runs.js';
export { PipelineDefinition, StepDefinition, pipelineJsonSchema, STEP_NAME, PIPELINE_NAME, MAX_REPEAT, MAX_STEP_ATTEMPTS } from './definition/schema.js';
export type { PipelineDefinitionInput } from './definition/schema.js';
export { compilePipeline, orderSteps } from './definition/compile.js';
export type { CompiledPipeline, CompiledStep, StoredPipeline, StepTarget } from './definition/compile.js';
export { compileExpression, compileArgs, isTruthy, ExpressionError } from './definition/expressions.js';
export type { Expression, ExpressionContext, ExpressionErrorCode } from './definition/expressions.js';
export { configureExpressionSandbox, closeExpressionSandbox } from './definition/sandbox/shared.js';
export { ExpressionSandbox, SandboxEvaluationError } from './definition/sandbox/sandbox.js';
export type { ExpressionSandboxOptions, SandboxStats } from './definition/sandbox/sandbox.js';
export { DEFAULT_EXPRESSION_BUDGET } from './definition/sandbox/budget.js';
export type { ExpressionBudget, BudgetKind } from './definition/sandbox/budget.js';
export { DefinitionError, problemsRefusal } from './definition/problems.js';
export type { DefinitionProblem } from './definition/problems.js';
export { validateDefinition } from './definition/validate.js';
export { parseDefinitionText } from './definition/parse-text.js';
export type { ToolDirectory } from './definition/validate.js';
export { toolQueue, kindQueue } from './definition/queues.js';
export { LinearRegExp, linearRegExpEngine } from './definition/linear-regex.js';
export {
  MAX_DEFINITION_BYTES,
  MAX_DEFINITION_SIZE,
  MAX_DEFINITION_NODES,
  MAX_DEFINITION_DEPTH,
  MAX_YAML_ALIASES,
  MAX_STEPS,
  MAX_NEEDS,
  MAX_EXPRESSION_CHARS,
  MAX_LITERAL_SIZE,
  MAX_SCHEMA_NODES,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_COST,
  MAX_VERSION,
  MAX_LIVE_VERSIONS,
  MAX_PIPELINES,
} from './definition/limits.js';
export { PipelineStore, sameDefinition, parseVersion, UnusablePipelineError } from './store/pipeline-store.js';
export type { PipelineSummary, RegisterOutcome, PipelineStoreOptions } from './store/pipeline-store.js';
export { startPipelineRun, startPipelineBatch, checkRunInput, checkInputSize, checkBatchSize, newPipelineRun, rootJobs, jobsForStep, chainParentOf, InputError, type StartedRun } from './engine/pipeline-runs.js';
export { checkMapList, mapItemTexts, constantListOf, isConstantMap } from './engine/map-lists.js';
export type { PipelineRunsDeps } from './engine/pipeline-runs.js';
export { StepQueues, STEP_JOB_NAME, stageOf, stepJob, stepJobOptions, branchKeys } from './engine/step-jobs.js';
export type { StepJobSpec } from './engine/step-jobs.js';
export { advanceRun, finishRun, runEndOf, stepDone, needsAfter } from './engine/advance.js';
export { CARRIED_BYTES_MAX, type KnownOutputs } from './engine/carried.js';
export { addFirstJobsAgain } from './engine/first-jobs-again.js';
export { registerShippedPipelines, shippedStepNames, STEP_KINDS, SHIPPED_PIPELINES_DIR, SHIPPED_PIPELINE_NAMES } from './engine/shipped.js';
export { definitionProblemsOf, registerDefinition, VersionConflictError, agentDirectory } from './engine/register.js';
export type { PipelineRegistration } from './engine/register.js';
export { pipelineNotFound } from './engine/not-found.js';
export type { StepKindName } from './engine/shipped.js';
export { AgentDefinition, AgentToolDefinition, modelToolName, isServiceTool } from './definition/agent-schema.js';
export type { AgentToolTarget } from './definition/compile-agent.js';
export type { CompiledAgent } from './definition/compile-agent.js';
export type { AgentDirectory } from './definition/validate-agents.js';
export { AGENT_QUEUE, CHILD_QUEUE } from './definition/queues.js';
export { takeFallback, standIn } from './store/fallback-scripts.js';
export { MAX_CHILD_DEPTH, childRunField, childRunsOf, cancelChildRuns } from './engine/child-links.js';
export { AgentTranscripts, transcriptView } from './store/agent-transcript.js';
export type { AgentTranscript, AgentTurnEvents, AgentTurnRecord, AgentResultRecord, AgentToolCallRecord } from './store/agent-transcript.js';
export { agentTurnJob, agentCallQueue, agentTurnJobId, agentCallJobId } from './engine/agent-jobs.js';
export { schemaProblems } from './definition/schema-bounds.js';
export { ToolArgumentChecker } from './definition/tool-arguments.js';
export { ScheduleTickJob, SCHEDULE_TICK_JOB_OPTIONS } from './catalog.js';
export { ScheduleStore, ScheduleLimitError } from './schedules/schedule-store.js';
export type { StoredSchedule, ScheduleTick, ScheduleStoreOptions } from './schedules/schedule-store.js';
export { ScheduleError, checkScheduleRequest, scheduleEnvShape, scheduleLimitsConfig, intervalMs, isTimeZone, nextCronTime, DEFAULT_SCHEDULE_LIMITS, MIN_INTERVAL_MS, MAX_INTERVAL_MS } from './schedules/schedule-spec.js';
export type { ScheduleLimits } from './schedules/schedule-spec.js';
export { processScheduleTick, tickRunId, tickTimeOf } from './schedules/schedule-tick.js';
export type { TickOutcome, ScheduleTickDeps } from './schedules/schedule-tick.js';
export { saveSchedule, scheduleRequestOf } from './schedules/save-schedule.js';
export { NotifyDeliveryJob, NOTIFY_JOB_OPTIONS, notifyJobId } from './catalog.js';
export { Notifier } from './notify/notifier.js';
export type { NotifierOptions } from './notify/notifier.js';
export { checkNotifyUrl, parseAllowList, resolveNotifyAddress, isInternalAddress, webhookAllowEnvShape, NotifyUrlError, NotifyRefusedError, MAX_NOTIFY_URL_CHARS } from './notify/notify-url.js';
export type { NotifyAllowList, Lookup } from './notify/notify-url.js';
export { signWebhook, verifyWebhookSignature, SIGNATURE_HEADER } from './notify/signature.js';
export { notifySummary, NOTIFY_RESULT_MAX_BYTES } from './notify/summary.js';
export { RunWaits, approvalKey, CALL_ID } from './store/run-waits.js';
export type { WaitRecord, WaitKind, ApprovalDecision, SignalRecord, InboxPage } from './store/run-waits.js';
export { WaitDefinition, SIGNAL_NAME, MAX_WAIT_MS, DEFAULT_WAIT_MS } from './definition/wait-schema.js';
export type { CompiledWait } from './definition/compile-wait.js';
export { WAITS_QUEUE } from './definition/queues.js';
export { wakeWaitingJob, releaseWaits } from './engine/wake.js';
export { answerApproval, answerSignal, inboxList, inboxItem, inboxApproval, LISTED_REASON_CHARS, AnswerError, ANSWER_SCOPE, mayAnswer, type Answerer } from './engine/answers.js';
export type { AnswerDeps, AnswerRefusal } from './engine/answers.js';
export { FlowTag, GateTag, PRIORITY_FIRST, PRIORITY_LAST, PRIORITY_SINGLE_RUN, PRIORITY_BATCH } from './catalog.js';
export { runFlow, childFlow, callerKey, keyText, keyValue, gateOf, ANONYMOUS_KEY } from './flow/run-flow.js';
export type { CallerFlow } from './flow/run-flow.js';
export { FairShares, CLASS_SPAN, classOfPriority, UNTAGGED_FLOW } from './flow/fair-shares.js';
export { BatchTurns, type BatchTurn } from './flow/batch-turns.js';
export { ConcurrencyGates, GATE_RECHECK_MS } from './flow/concurrency-gate.js';
export type { Admission, GateJobRef, GateKeys } from './flow/concurrency-gate.js';
export { waitingOf } from './flow/waiting.js';
export { armCrashPoint, crashPoint } from './crash-points.js';
