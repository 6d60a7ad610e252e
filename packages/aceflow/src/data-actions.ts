/**
 * The actions that move data in and out of a project: set_analysis, save_output, prepare_data.
 * Each checks everything a caller sent before it writes anything.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { ANALYSIS_CATEGORIES, mergeAnalysis, parseAnalysis } from './analysis.js';
import { analysisMissing, now, openProject, progressOf, resolveStage, type EngineContext } from './context.js';
import { LIMITS, tooLarge } from './errors.js';
import { COMMON_QUALITY_REQUIREMENTS, STAGE_GUIDES } from './guides.js';
import { parseInput, saveOutputDataSchema } from './inputs.js';
import { keyPoints, outline, wordCount } from './markdown.js';
import type { PrepareDataResponse, SaveOutputResponse, SetAnalysisResponse } from './responses.js';
import { optionalInputs, requiredInputs, stageAfter, stagesForMode, type StageId } from './stages.js';
import { outputLocation } from './workspace.js';

/** Compare-and-set rounds before giving up; each lost round means another writer succeeded. */
const MAX_MERGE_ROUNDS = 100;

export async function setAnalysis(context: EngineContext, project: unknown, data: unknown): Promise<SetAnalysisResponse> {
  const record = await openProject(context, project);
  const patch = parseAnalysis(data);
  for (let round = 1; round <= MAX_MERGE_ROUNDS; round += 1) {
    const stored = await context.store.readAnalysis(record.name);
    const merged = mergeAnalysis(stored.data, patch);
    const analysisId = `analysis_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const timestamp = now();
    if (await context.store.writeAnalysis(record.name, stored.version, merged, analysisId, timestamp)) {
      const categories = Object.keys(patch);
      return {
        success: true,
        message: `Merged ${categories.join(', ')} into the analysis of "${record.name}" (${Object.keys(merged).length} categories stored)`,
        data_stored: { analysis_id: analysisId, timestamp, categories },
      };
    }
    // Another process merged first: read its result and merge on top, after a short random pause
    // so that the writers spread out.
    await delay(Math.random() * round);
  }
  throw new Error(`set_analysis on "${record.name}" lost ${MAX_MERGE_ROUNDS} compare-and-set rounds in a row`);
}

export async function saveOutput(context: EngineContext, project: unknown, stageArg: unknown, data: unknown): Promise<SaveOutputResponse> {
  const record = await openProject(context, project);
  const stage = resolveStage(record, stageArg, 'save_output');
  const content = (data as { content?: unknown } | null | undefined)?.content;
  // Measured before parsing, so an oversized payload costs no more work than this.
  if (typeof content === 'string') {
    const size = Buffer.byteLength(content);
    if (size > LIMITS.outputBytes) throw tooLarge('data.content', size, LIMITS.outputBytes);
  }
  const parsed = parseInput(saveOutputDataSchema, data, 'data');

  // An output written without some of its inputs is kept (the agent chose to), and said so.
  const { saved } = await context.store.snapshot(record.name);
  const missing = requiredInputs(stage, record.mode).filter((dependency) => !saved.has(dependency));

  const metadata = { word_count: wordCount(parsed.content), sections_count: outline(parsed.content).sections.length, ...parsed.metadata };
  const savedTo = await context.workspaces.writeOutput(record.workspace, stage, parsed.content);
  const stages = stagesForMode(record.mode);
  const after = await context.store.saveOutput(record.name, stage, { content: parsed.content, metadata, artifacts: parsed.artifacts ?? {}, saved_at: now() }, stages.slice(0, stages.indexOf(stage)));

  const next = stageAfter(stage, record.mode);
  const stillMissing = next ? requiredInputs(next, record.mode).filter((dependency) => !after.has(dependency)) : [];
  const unlocked = next !== null && stillMissing.length === 0;
  const outcome = next === null ? 'it is the last stage of the flow' : unlocked ? `${next} is unlocked` : `${next} still needs ${stillMissing.join(', ')}`;
  const without = missing.length > 0 ? ` (written without ${missing.join(', ')}, which it builds on)` : '';
  return { success: true, stage_id: stage, saved_to: savedTo, next_stage_unlocked: unlocked, message: `Saved ${stage} (${metadata.word_count} words) to ${outputLocation(stage)}${without}; ${outcome}` };
}

export async function prepareData(context: EngineContext, project: unknown, stageArg: unknown): Promise<PrepareDataResponse> {
  const record = await openProject(context, project);
  const stage = resolveStage(record, stageArg, 'prepare_data');
  const [snapshot, analysis] = await Promise.all([context.store.snapshot(record.name), context.store.readAnalysis(record.name)]);
  if (analysis.version === '0') throw analysisMissing(record, stage);
  const required = requiredInputs(stage, record.mode);
  // Inputs not saved yet do not stop the package (seed 000's example prepares s5 first thing):
  // the instructions name them, and the agent works from the analysis instead.
  const missing = required.filter((dependency) => !snapshot.saved.has(dependency));
  const template = await context.templates.get(stage);

  const optional = optionalInputs(stage, record.mode);
  const outputs = await context.store.outputs(record.name, [...required, ...optional].filter((input) => snapshot.saved.has(input)));
  const previous: Partial<Record<StageId, { content: string; metadata: Record<string, unknown>; key_points: string[] }>> = {};
  for (const [input, output] of outputs) previous[input] = { content: output.content, metadata: output.metadata, key_points: keyPoints(output.content) };
  await context.store.markPrepared(record.name, stage);

  const guide = STAGE_GUIDES[stage];
  const emptyCategories = Object.fromEntries(ANALYSIS_CATEGORIES.map((category) => [category, {}])) as Record<(typeof ANALYSIS_CATEGORIES)[number], Record<string, unknown>>;
  return {
    success: true,
    stage_id: stage,
    data_package: {
      template: { content: template.content, format: 'markdown', source_file: template.sourceFile, placeholders: template.placeholders, sections: template.sections },
      previous_outputs: previous,
      analysis_data: { ...emptyCategories, ...analysis.data },
      project_context: {
        name: record.name,
        mode: record.mode,
        current_stage: snapshot.project.current_stage,
        progress_percentage: progressOf(record.mode, snapshot.saved),
        created_at: record.created_at,
      },
      stage_dependencies: { required_inputs: required, optional_inputs: optional, expected_outputs: [...guide.expectedOutputs] },
    },
    instructions: {
      task_description: `${guide.title} for "${record.name}": ${guide.task}`,
      output_format: 'markdown',
      output_location: outputLocation(stage),
      quality_requirements: [
        ...COMMON_QUALITY_REQUIREMENTS,
        ...guide.qualityRequirements,
        ...(missing.length > 0 ? [`Not saved yet: ${missing.join(', ')}. Work from the analysis data instead, and say in the document what is assumed in their place`] : []),
      ],
      success_criteria: [...guide.successCriteria],
    },
  };
}
