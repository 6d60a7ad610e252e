export { startOrchestrator } from './server.js';
export type { StartOrchestratorOptions, RunningOrchestrator } from './server.js';
export { createApp } from './app.js';
export type { AppDeps, HealthReport } from './deps.js';
export { loadEnv, OrchestratorEnv } from './env.js';
export type { OrchestratorConfig } from './env.js';
export { createOpenApiDocument } from './openapi/document.js';
export type { OpenApiDocumentOptions } from './openapi/document.js';
export { localApiKey } from '@switchyard/http-kit';
