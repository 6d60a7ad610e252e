export { startWorkers } from './start-workers.js';
export type { StartWorkersOptions, RunningWorkers } from './start-workers.js';
export { RunCompactor } from './background/compactor.js';
export type { RunCompactorOptions, CompactorReport } from './background/compactor.js';
export { createHttpTools } from './tools.js';
export type { StepTools, StepToolCall, StageCall } from './tools.js';
export type { StepKind, StepKinds, StepKindContext } from './engine/step-kinds.js';
export { loadEnv, WorkersEnv } from './env.js';
export type { WorkersConfig, QueueSettings } from './env.js';
export { createHttpStageWriter } from './aceflow/stage-writer.js';
export type { StageWriter } from './aceflow/stage-writer.js';
export { listedDefects, blockingDefects } from './aceflow/defects.js';
export { DEFAULT_STAGE_BUDGET } from './stage-budget.js';
// The stage runner every step runs in, and the abort signals it hands out: also what the
// benchmark's reconstruction of the hand-built story flow ran its stages in.
export { runStage } from './stage-runner.js';
export type { StageDeps, StageSpec, StageOutcome } from './stage-runner.js';
export { RunAborts } from './run-aborts.js';
export type { StageBudget } from './stage-budget.js';
export { createWorkerMetrics } from './metrics.js';
export type { WorkerMetrics } from './metrics.js';
export { StageMetrics, stageLabels } from './stage-metrics.js';
export type { StageLabels, StageOutcome as StageMetricOutcome } from './stage-metrics.js';
export type { AgentModels } from './agent/model-port.js';
export { notifyProcessor, DEFAULT_WEBHOOK_TIMEOUT_MS, DEFAULT_WEBHOOK_RESPONSE_MAX_BYTES } from './notify-delivery.js';
export type { WebhookSettings } from './notify-delivery.js';
