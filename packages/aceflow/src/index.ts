export { createAceflowEngine } from './engine.js';
export type { AceflowEngine, AceflowEngineOptions } from './engine.js';
export { STAGE_IDS, STAGE_DEPENDENCIES, MODES, isStageId, isMode, stagesForMode, requiredInputs, optionalInputs, stageAfter } from './stages.js';
export type { StageId, AceflowMode } from './stages.js';
export { STAGE_GUIDES, COMMON_QUALITY_REQUIREMENTS } from './guides.js';
export type { StageGuide } from './guides.js';
export { AceflowError, ERROR_CODES, LIMITS, MIB } from './errors.js';
export type { AceflowErrorCode, AceflowErrorResponse } from './errors.js';
export { PROJECT_NAME_PATTERN, projectRefSchema, analysisDataSchema, saveOutputDataSchema } from './inputs.js';
export type { ProjectRef, AnalysisData, SaveOutputData } from './inputs.js';
export { deepMerge } from './analysis.js';
export {
  ACTIONS,
  RESPONSE_SCHEMAS,
  setAnalysisResponseSchema,
  saveOutputResponseSchema,
  prepareDataResponseSchema,
  statusResponseSchema,
  transitionResponseSchema,
  validateResponseSchema,
  errorResponseSchema,
} from './responses.js';
export type {
  AceflowAction,
  AceflowResponse,
  AceflowSuccess,
  SetAnalysisResponse,
  SaveOutputResponse,
  PrepareDataResponse,
  StatusResponse,
  TransitionResponse,
  ValidateResponse,
  ErrorResponse,
} from './responses.js';
export { TemplateStore, DEFAULT_TEMPLATES_DIR } from './templates.js';
export type { StageTemplate, TemplateStoreOptions } from './templates.js';
export { measureOutput, VALIDATION_WEIGHTS } from './validation.js';
export type { ValidationInput, ValidationResult } from './validation.js';
export { Workspaces, DEFAULT_WORKSPACE_ROOT, RESULT_DIR, outputLocation, workspacePath } from './workspace.js';
export type { ProjectRecord, StoredOutput } from './store.js';
export { aceflowKeys } from './store.js';
