/**
 * The Supervisor's domain (seed 002): users, projects with an SOP graph, task groups and the
 * phases an agent works through. Wire names (snake_case, upper-case statuses) are the seed's, so
 * these shapes go to the tools' answers as they are.
 */
import { z } from 'zod';

export const TASK_STATUSES = ['PENDING', 'IN_PROGRESS', 'SUSPENDED', 'COMPLETED', 'CANCELLED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const PHASE_TYPES = ['UNDERSTANDING', 'PLANNING', 'IMPLEMENTING', 'VALIDATION', 'FIXING', 'RETROSPECTIVE'] as const;
export type PhaseType = (typeof PHASE_TYPES)[number];

export const PHASE_STATUSES = ['IN_PROGRESS', 'COMPLETED'] as const;
export type PhaseStatus = (typeof PHASE_STATUSES)[number];

/** The stages of the default SOP, in order. */
export const DEFAULT_STAGES = ['需求分析', '设计语言系统', '系统分析', '技术实现', '测试验证', '部署发布'] as const;

export const STEP_IDENTIFIER_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export const SopStepSchema = z.object({
  identifier: z.string().regex(STEP_IDENTIFIER_PATTERN),
  name: z.string().min(1).max(100),
  stage: z.string().min(1).max(100),
  description: z.string().max(4000),
  rules: z.array(z.string().min(1).max(2000)).max(50),
  output_template: z.string().max(100_000),
  /** Identifiers of the steps whose outputs this step builds on. */
  dependencies: z.array(z.string()).max(50),
});
export type SopStep = z.infer<typeof SopStepSchema>;

export interface SopGraph {
  stages: string[];
  steps: SopStep[];
}

export interface User {
  user_id: string;
  username: string;
  created_at: string;
}

export interface Project {
  project_id: string;
  project_name: string;
  description: string;
  owner_id: string;
  created_at: string;
}

export const TaskGroupSchema = z.object({
  task_id: z.string(),
  project_id: z.string(),
  title: z.string(),
  goal: z.string(),
  sop_step_identifier: z.string(),
  status: z.enum(TASK_STATUSES),
  created_at: z.string(),
  started_at: z.string().optional(),
  suspended_at: z.string().optional(),
  resumed_at: z.string().optional(),
  completed_at: z.string().optional(),
  cancelled_at: z.string().optional(),
  cancellation_reason: z.string().optional(),
  /** The latest phase, which is the one being worked on unless it is COMPLETED. */
  current_phase_id: z.string().optional(),
  phase_count: z.coerce.number().int().nonnegative().default(0),
  /** Outcome of the latest VALIDATION phase: '1' passed, '0' failed, absent before any. */
  validation_passed: z.enum(['0', '1']).optional(),
});
export type TaskGroup = z.infer<typeof TaskGroupSchema>;

export const PhaseSchema = z.object({
  id: z.string(),
  task_id: z.string(),
  type: z.enum(PHASE_TYPES),
  title: z.string(),
  status: z.enum(PHASE_STATUSES),
  order: z.coerce.number().int().positive(),
  created_at: z.string(),
  completed_at: z.string().optional(),
  /** JSON of the reported result data; absent until reported, 'null' when none was due. */
  result: z.string().optional(),
});
export type Phase = z.infer<typeof PhaseSchema>;

/** The seed's error codes, and the one failure it shows without a code (no project chosen). */
export const ERROR_CODES = [
  'AUTH_001',
  'PERMISSION_DENIED',
  'NOT_FOUND',
  'VALIDATION_ERROR',
  'TASK_VALIDATION_ERROR',
  'INVALID_STATUS',
  'CONFLICT_IN_PROGRESS',
  'UPDATE_FAILED',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number] | 'NO_PROJECT_CONTEXT';

/** A refusal the caller should see and act on; tools turn it into their own failure shape. */
export class SupervisorError extends Error {
  override name = 'SupervisorError';
  readonly code: ErrorCode;
  /** The task group concerned, for answers that name it (next's TASK_VALIDATION_ERROR). */
  readonly taskId: string | undefined;
  constructor(code: ErrorCode, message: string, options: { taskId?: string } = {}) {
    super(message);
    this.code = code;
    this.taskId = options.taskId;
  }
}

/** Seconds-precision UTC, as the seed writes times: 2024-01-20T10:30:00Z. */
export const isoSeconds = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
