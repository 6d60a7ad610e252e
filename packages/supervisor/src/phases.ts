/**
 * The phases of a task group: UNDERSTANDING → PLANNING → IMPLEMENTING → VALIDATION, then
 * RETROSPECTIVE when validation passed, or FIXING → VALIDATION again when it failed.
 */
import { z } from 'zod';
import type { Phase, PhaseType } from './domain.js';

export interface FinishedPhase {
  type: PhaseType;
  /** For a VALIDATION phase: whether it passed. */
  passed?: boolean | undefined;
}

/**
 * The phase that follows `last` once it is completed; `undefined` for a task group that has no
 * phase yet; 'done' after the retrospective, when only finish_task is left.
 */
export function nextPhaseType(last: FinishedPhase | undefined): PhaseType | 'done' {
  if (!last) return 'UNDERSTANDING';
  switch (last.type) {
    case 'UNDERSTANDING':
      return 'PLANNING';
    case 'PLANNING':
      return 'IMPLEMENTING';
    case 'IMPLEMENTING':
    case 'FIXING':
      return 'VALIDATION';
    case 'VALIDATION':
      return last.passed ? 'RETROSPECTIVE' : 'FIXING';
    case 'RETROSPECTIVE':
      return 'done';
  }
}

export const PHASE_LABELS: Record<PhaseType, string> = {
  UNDERSTANDING: '理解任务',
  PLANNING: '制定计划',
  IMPLEMENTING: '实施',
  VALIDATION: '验证',
  FIXING: '修复',
  RETROSPECTIVE: '复盘',
};

export const phaseTitle = (type: PhaseType, taskTitle: string): string => `${PHASE_LABELS[type]}：${taskTitle}`;

/** The instructions file of a phase, relative to the workspace: supervisor_workspace/current_task/01_understanding_instructions.md */
export const instructionsFileName = (order: number, type: PhaseType): string => `${String(order).padStart(2, '0')}_${type.toLowerCase()}_instructions.md`;

const Passed = z.object({ passed: z.boolean() });

/** What a reported VALIDATION phase said; undefined for any other phase or one not reported. */
export function reportedPassed(phase: Pick<Phase, 'result'>): boolean | undefined {
  if (!phase.result) return undefined;
  const parsed = Passed.safeParse(JSON.parse(phase.result));
  return parsed.success ? parsed.data.passed : undefined;
}
