/**
 * What every action shares: the engine's parts, opening a project from a caller's reference, and
 * checking a stage argument against the known ids and the project's mode.
 */
import { AceflowError, invalidData } from './errors.js';
import { parseInput, projectRefSchema } from './inputs.js';
import { STAGE_IDS, isStageId, requiredInputs, stagesForMode, type AceflowMode, type StageId } from './stages.js';
import { STAGE_GUIDES } from './guides.js';
import type { ProjectRecord, ProjectStore } from './store.js';
import type { TemplateStore } from './templates.js';
import { workspacePath, type Workspaces } from './workspace.js';

export interface EngineContext {
  store: ProjectStore;
  templates: TemplateStore;
  workspaces: Workspaces;
  defaultMode: AceflowMode;
}

export const now = () => new Date().toISOString();

/**
 * The project a reference names, created on first use. A project's mode and workspace are fixed
 * when it is created: a reference that names different ones is refused rather than silently
 * switching a flow under another process's feet.
 */
export async function openProject(context: EngineContext, reference: unknown): Promise<ProjectRecord> {
  if (reference === undefined || reference === null) {
    throw invalidData('project', 'is required: name the project, e.g. {"name": "task-manager"}', {}, ['Pass project: {name, mode?, workspace?}']);
  }
  const ref = parseInput(projectRefSchema, reference, 'project');
  const workspace = workspacePath(ref.name, ref.workspace);
  const mode = ref.mode ?? context.defaultMode;
  const created = now();
  const record = await context.store.open({ name: ref.name, mode, workspace, created_at: created, current_stage: stagesForMode(mode)[0] as StageId });
  if ('taken' in record) {
    const field = ref.workspace === undefined ? 'project.name' : 'project.workspace';
    throw invalidData(field, `workspace "${workspace}" belongs to project "${record.taken}"`, { value: workspace, owner: record.taken }, [
      'Pass project.workspace naming a directory of its own',
    ]);
  }
  if (ref.mode && ref.mode !== record.mode) {
    throw invalidData('project.mode', `project "${ref.name}" was created in mode "${record.mode}"; a project's mode cannot change`, { value: ref.mode, current: record.mode }, [
      `Omit project.mode, or pass "${record.mode}"`,
      'Start a project under another name for another mode',
    ]);
  }
  if (ref.workspace !== undefined && workspace !== record.workspace) {
    throw invalidData('project.workspace', `project "${ref.name}" already uses workspace "${record.workspace}"`, { value: ref.workspace, current: record.workspace }, [
      `Omit project.workspace, or pass "${record.workspace}"`,
    ]);
  }
  return record;
}

/** The stage argument as a stage of the project's mode, or MISSING_STAGE saying which ones exist. */
export function resolveStage(record: ProjectRecord, stage: unknown, action: string): StageId {
  const inMode = stagesForMode(record.mode);
  if (stage === undefined || stage === null || stage === '') {
    throw new AceflowError('MISSING_STAGE', `Action "${action}" needs a stage`, { action, available_stages: inMode }, [`Call again with stage set to one of: ${inMode.join(', ')}`]);
  }
  if (!isStageId(stage)) {
    throw new AceflowError('MISSING_STAGE', `Stage "${String(stage).slice(0, 100)}" does not exist`, { stage: String(stage).slice(0, 100), known_stages: STAGE_IDS }, [
      `Use one of: ${inMode.join(', ')}`,
    ]);
  }
  if (!inMode.includes(stage)) {
    throw new AceflowError('MISSING_STAGE', `Stage ${stage} is not part of mode "${record.mode}"`, { stage, mode: record.mode, available_stages: inMode }, [
      `Use one of the mode's stages: ${inMode.join(', ')}`,
    ]);
  }
  return stage;
}

export function dependencyMissing(stage: StageId, missing: readonly StageId[], record: ProjectRecord, what = `${stage} needs`): AceflowError {
  return new AceflowError(
    'DEPENDENCY_MISSING',
    `${what} the output of ${missing.join(', ')} first`,
    { stage, missing_dependencies: missing, required_inputs: requiredInputs(stage, record.mode), mode: record.mode },
    missing.flatMap((dependency) => [
      `aceflow_stage(action="prepare_data", stage="${dependency}")`,
      `aceflow_stage(action="save_output", stage="${dependency}", data={content, metadata})`,
    ]),
  );
}

export function analysisMissing(record: ProjectRecord, stage: StageId): AceflowError {
  return new AceflowError('ANALYSIS_DATA_MISSING', `Project "${record.name}" has no analysis data yet; ${stage} is written from it`, { project: record.name, stage }, [
    'Analyse the project, then aceflow_stage(action="set_analysis", data={project_info, code_metrics, test_metrics, build_info})',
  ]);
}

/** Share of the mode's stages with a saved output, 0–100. */
export function progressOf(mode: AceflowMode, saved: ReadonlySet<StageId>): number {
  const stages = stagesForMode(mode);
  return Math.round((100 * stages.filter((stage) => saved.has(stage)).length) / stages.length);
}

/** The guides' estimates for the stages not yet done, e.g. "about 2 h 35 min"; null when all are. */
export function remainingTime(mode: AceflowMode, saved: ReadonlySet<StageId>): string | null {
  const minutes = stagesForMode(mode)
    .filter((stage) => !saved.has(stage))
    .reduce((sum, stage) => sum + STAGE_GUIDES[stage].estimatedMinutes, 0);
  if (minutes === 0) return null;
  const hours = Math.floor(minutes / 60);
  return `about ${hours > 0 ? `${hours} h ` : ''}${minutes % 60 > 0 || hours === 0 ? `${minutes % 60} min` : ''}`.trim();
}

/** What an agent does with a stage, as calls it can make. */
export function actionsFor(stage: StageId): string[] {
  return [
    `aceflow_stage(action="prepare_data", stage="${stage}")`,
    `Write the document from the data package, then aceflow_stage(action="save_output", stage="${stage}", data={content, metadata})`,
    `aceflow_stage(action="validate", stage="${stage}")`,
  ];
}
