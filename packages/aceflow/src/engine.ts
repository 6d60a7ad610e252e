/**
 * The AceFlow engine: seed 000's `aceflow_stage(action, stage?, data?)` for a project, and the
 * same actions as typed methods for a pipeline worker. `stage()` never throws for a caller's
 * mistake: it answers the seed's error response. The typed methods throw AceflowError instead,
 * which carries the same fields.
 */
import type { Redis } from 'ioredis';
import { openProject, type EngineContext } from './context.js';
import { prepareData, saveOutput, setAnalysis } from './data-actions.js';
import { AceflowError, invalidData } from './errors.js';
import { goto, next, status, validate } from './flow-actions.js';
import type { ProjectRef } from './inputs.js';
import { ACTIONS, type AceflowResponse, type PrepareDataResponse, type SaveOutputResponse, type SetAnalysisResponse, type StatusResponse, type TransitionResponse, type ValidateResponse } from './responses.js';
import { STAGE_DEPENDENCIES, stagesForMode, type AceflowMode } from './stages.js';
import { ProjectStore, type ProjectRecord } from './store.js';
import { TemplateStore } from './templates.js';
import { DEFAULT_WORKSPACE_ROOT, Workspaces } from './workspace.js';

export interface AceflowEngineOptions {
  redis: Redis;
  /** Key prefix of the deployment (the queues' prefix); projects live under `{prefix}:aceflow:`. */
  prefix: string;
  /** Directory every project's workspace lives under; nothing is written outside it. Default: `<repo>/.data/aceflow`. */
  workspaceRoot?: string;
  /** Directory of the `{stage}.md` templates. Default: the package's `templates/`. */
  templatesDir?: string;
  /** Mode of a project created without one. Default: `complete`. */
  defaultMode?: AceflowMode;
}

export interface AceflowEngine {
  /** Seed 000's tool: one action on `project`; answers the seed's success or error response. */
  stage(action: string, stage: string | undefined, data: unknown, project: ProjectRef): Promise<AceflowResponse>;
  /** The project, created on first use; checks the reference as every action does. */
  openProject(project: ProjectRef): Promise<ProjectRecord>;
  setAnalysis(project: ProjectRef, data: unknown): Promise<SetAnalysisResponse>;
  saveOutput(project: ProjectRef, stage: string, data: unknown): Promise<SaveOutputResponse>;
  prepareData(project: ProjectRef, stage: string): Promise<PrepareDataResponse>;
  status(project: ProjectRef): Promise<StatusResponse>;
  next(project: ProjectRef): Promise<TransitionResponse>;
  goto(project: ProjectRef, stage: string): Promise<TransitionResponse>;
  /** Validates `stage`, or the project's current stage when omitted. */
  validate(project: ProjectRef, stage?: string): Promise<ValidateResponse>;
  stagesForMode: typeof stagesForMode;
  readonly STAGE_DEPENDENCIES: typeof STAGE_DEPENDENCIES;
  readonly templates: TemplateStore;
  readonly workspaces: Workspaces;
}

export function createAceflowEngine(options: AceflowEngineOptions): AceflowEngine {
  const context: EngineContext = {
    store: new ProjectStore({ redis: options.redis, prefix: options.prefix }),
    templates: new TemplateStore({ dir: options.templatesDir }),
    workspaces: new Workspaces({ root: options.workspaceRoot ?? DEFAULT_WORKSPACE_ROOT }),
    defaultMode: options.defaultMode ?? 'complete',
  };

  const engine: Omit<AceflowEngine, 'stage'> = {
    openProject: (project) => openProject(context, project),
    setAnalysis: (project, data) => setAnalysis(context, project, data),
    saveOutput: (project, stage, data) => saveOutput(context, project, stage, data),
    prepareData: (project, stage) => prepareData(context, project, stage),
    status: (project) => status(context, project),
    next: (project) => next(context, project),
    goto: (project, stage) => goto(context, project, stage),
    validate: (project, stage) => validate(context, project, stage),
    stagesForMode,
    STAGE_DEPENDENCIES,
    templates: context.templates,
    workspaces: context.workspaces,
  };

  async function run(action: string, stage: string | undefined, data: unknown, project: ProjectRef): Promise<AceflowResponse> {
    switch (action) {
      case 'set_analysis':
        return engine.setAnalysis(project, data);
      case 'save_output':
        return saveOutput(context, project, stage, data);
      case 'prepare_data':
        return prepareData(context, project, stage);
      case 'status':
        return engine.status(project);
      case 'next':
        return engine.next(project);
      case 'goto':
        return goto(context, project, stage);
      case 'validate':
        return engine.validate(project, stage);
      default:
        throw invalidData('action', `must be one of ${ACTIONS.join(', ')}`, { value: String(action).slice(0, 100) });
    }
  }

  return {
    ...engine,
    async stage(action, stage, data, project) {
      try {
        return await run(action, stage, data, project);
      } catch (error) {
        if (error instanceof AceflowError) return error.toResponse();
        throw error;
      }
    },
  };
}
