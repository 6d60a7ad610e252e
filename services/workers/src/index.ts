export { startWorkers } from './start-workers.js';
export type { StartWorkersOptions, RunningWorkers } from './start-workers.js';
export { createHttpStoryTools } from './story-tools.js';
export type { StoryTools, StageCall } from './story-tools.js';
export { loadEnv, WorkersEnv } from './env.js';
export type { WorkersConfig, QueueSettings } from './env.js';
export { createHttpStageWriter } from './aceflow/stage-writer.js';
export type { StageWriter } from './aceflow/stage-writer.js';
export { listedDefects, blockingDefects } from './aceflow/defects.js';
