export { createToolServiceApp } from './app.js';
export type { ToolServiceOptions } from './app.js';
export { startToolServices } from './stack.js';
export type { StartToolServicesOptions, ToolServicesStack, RunningToolService } from './stack.js';
export { defaultFaults } from './faults.js';
export type { FaultKnobs } from './faults.js';
export { STORY_TOOLS, STAGE_DOCUMENT, SERVICE_TOOLS } from './tools.js';
export type { ToolDefinition } from './tools.js';
export type { StoryAuthor, AuthorCallOptions } from './authors/author.js';
export { createOfflineAuthor } from './authors/offline/index.js';
// How the offline author cuts text into streamed chunks (sentences), for tests that count them.
export { splitIntoChunks } from './authors/offline/text.js';
export { writeStageDocument, stageDocumentChunks } from './authors/offline/stage-document.js';
export { createToolServiceMetrics } from './metrics.js';
export type { ToolServiceMetrics } from './metrics.js';
