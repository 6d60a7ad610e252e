export { SupervisorEngine, DEFAULT_WORKSPACE_ROOT } from './engine.js';
export type { SupervisorEngineOptions } from './engine.js';
export { SUPERVISOR_TOOLS, TOOL_ARGS, TOOL_DESCRIPTIONS, describeIssue } from './args.js';
export type { SupervisorTool, ToolArgs } from './args.js';
export { TOOL_OUTPUTS } from './outputs.js';
export { failureOf } from './replies.js';
export type { SupervisorReply } from './replies.js';
export type { SessionStore, SupervisorSession } from './session.js';
export { SupervisorStore, SupervisorStoreError, USERNAME_PATTERN } from './store.js';
export type { SupervisorStoreOptions } from './store.js';
export { TaskStore } from './task-store.js';
export type { TransitionAction, TransitionResult, NewTaskGroup } from './task-store.js';
export { supervisorKeys } from './keys.js';
export {
  TASK_STATUSES,
  PHASE_TYPES,
  PHASE_STATUSES,
  DEFAULT_STAGES,
  ERROR_CODES,
  SupervisorError,
} from './domain.js';
export type { TaskStatus, PhaseType, PhaseStatus, SopStep, SopGraph, User, Project, TaskGroup, Phase, ErrorCode } from './domain.js';
export { defaultSop } from './default-sop.js';
export { validateSop, SopGraphError } from './sop.js';
export { nextPhaseType, instructionsFileName } from './phases.js';
export { rankSteps, tokenize } from './relevance.js';
export type { StepMatch } from './relevance.js';
export { resolveWorkspace, Workspace, SUPERVISOR_DIR } from './workspace.js';
