/**
 * The eight AceFlow stages, what each one needs before it, and the modes that pick a subset of
 * them. A stage id is only ever one of STAGE_IDS: every input naming a stage is checked against
 * this list before it reaches a Redis key or a file name.
 */

export const STAGE_IDS = [
  's1_user_story',
  's2_tasks_group',
  's3_testcases',
  's4_implementation',
  's5_test_report',
  's6_codereview',
  's7_demo_script',
  's8_summary_report',
] as const;

export type StageId = (typeof STAGE_IDS)[number];

export function isStageId(value: unknown): value is StageId {
  return typeof value === 'string' && (STAGE_IDS as readonly string[]).includes(value);
}

/** The stages whose outputs a stage needs, in the complete flow (seed 000's order). */
export const STAGE_DEPENDENCIES: Readonly<Record<StageId, readonly StageId[]>> = {
  s1_user_story: [],
  s2_tasks_group: ['s1_user_story'],
  s3_testcases: ['s1_user_story', 's2_tasks_group'],
  s4_implementation: ['s2_tasks_group', 's3_testcases'],
  s5_test_report: ['s4_implementation'],
  s6_codereview: ['s4_implementation', 's5_test_report'],
  s7_demo_script: ['s4_implementation'],
  s8_summary_report: ['s5_test_report', 's6_codereview'],
};

export const MODES = ['complete', 'standard', 'minimal'] as const;
export type AceflowMode = (typeof MODES)[number];

export function isMode(value: unknown): value is AceflowMode {
  return typeof value === 'string' && (MODES as readonly string[]).includes(value);
}

/**
 * The stages of each mode, in flow order.
 * - `complete`: all eight.
 * - `standard`: the everyday flow — stories, tasks, implementation, test report, code review,
 *   summary. Test cases are written with the tasks, and no demo script is prepared.
 * - `minimal`: stories, tasks, implementation, test report — the least that still leaves a
 *   tested change behind.
 * The subsets are chosen so that every stage but the first still depends on an earlier stage of
 * its own mode once dependencies are restricted to the mode.
 */
const MODE_STAGES: Readonly<Record<AceflowMode, readonly StageId[]>> = {
  complete: STAGE_IDS,
  standard: ['s1_user_story', 's2_tasks_group', 's4_implementation', 's5_test_report', 's6_codereview', 's8_summary_report'],
  minimal: ['s1_user_story', 's2_tasks_group', 's4_implementation', 's5_test_report'],
};

export function stagesForMode(mode: AceflowMode): readonly StageId[] {
  return MODE_STAGES[mode];
}

/** The stages `stage` needs in `mode`: its dependencies restricted to the mode's stages. */
export function requiredInputs(stage: StageId, mode: AceflowMode): StageId[] {
  const included = MODE_STAGES[mode];
  return STAGE_DEPENDENCIES[stage].filter((dependency) => included.includes(dependency));
}

/**
 * Earlier stages of the mode that `stage` builds on only indirectly (ancestors through its
 * dependencies, in every mode's full graph): handed over when present, never waited for.
 */
export function optionalInputs(stage: StageId, mode: AceflowMode): StageId[] {
  const required = new Set(requiredInputs(stage, mode));
  const ancestors = new Set<StageId>();
  const visit = (current: StageId) => {
    for (const dependency of STAGE_DEPENDENCIES[current]) {
      if (ancestors.has(dependency)) continue;
      ancestors.add(dependency);
      visit(dependency);
    }
  };
  visit(stage);
  return MODE_STAGES[mode].filter((candidate) => ancestors.has(candidate) && !required.has(candidate));
}

/** The stage after `stage` in the mode's order, or null at the end (or outside the mode). */
export function stageAfter(stage: StageId, mode: AceflowMode): StageId | null {
  const stages = MODE_STAGES[mode];
  const index = stages.indexOf(stage);
  return index === -1 ? null : (stages[index + 1] ?? null);
}
