/**
 * Every answer of every tool, as the seed writes it: success, info and failure shapes, each a
 * strict object so that a field the seed does not have is a mismatch. The suite publishes them
 * as output schemas; the tests check every answer against them.
 */
import { z } from 'zod';
import { ERROR_CODES, PHASE_STATUSES, PHASE_TYPES } from './domain.js';
import type { SupervisorTool } from './args.js';
import { NO_PROJECT_CONTEXT_MESSAGE } from './replies.js';

const code = z.enum(ERROR_CODES);
const text = z.string();
const count = z.number().int().nonnegative();

const statusError = z.strictObject({ status: z.literal('error'), error_code: code, message: text });
const noProject = z.strictObject({ status: z.literal('error'), message: z.literal(NO_PROJECT_CONTEXT_MESSAGE) });
const successFailure = z.strictObject({ success: z.literal(false), error_code: code, message: text });
const info = z.strictObject({ status: z.literal('info'), message: text });
const updateFailure = z.strictObject({ status: z.literal('error'), message: text, code });

/** Failures every project tool shares: not logged in, no permission, not found, no project. */
const projectFailures = [statusError, noProject] as const;

function transition<const From extends string, const To extends string, const Stamp extends string>(from: From, to: To, stamp: Stamp) {
  return z.strictObject({
    status: z.literal('success'),
    data: z.strictObject({ task_id: text, title: text, previous_status: z.literal(from), new_status: z.literal(to), ...({ [stamp]: text } as Record<Stamp, z.ZodString>) }),
    message: text,
  });
}

export const TOOL_OUTPUTS = {
  // Every tool may refuse its arguments (VALIDATION_ERROR), these two included.
  ping: z.union([z.strictObject({ status: z.literal('ok'), message: text, timestamp: z.number(), server_name: text }), statusError]),
  login: z.union([z.strictObject({ success: z.literal(true), user_id: text, username: text }), successFailure]),
  login_with_project: z.union([
    z.strictObject({ success: z.literal(true), user_id: text, username: text, project: z.strictObject({ project_id: text, project_name: text, templates_downloaded: count }) }),
    successFailure,
  ]),
  logout: z.union([z.strictObject({ success: z.literal(true), message: text }), successFailure]),
  health: z.union([
    z.strictObject({
      status: z.enum(['healthy', 'degraded']),
      message: text,
      checks: z.strictObject({ api_connection: z.boolean(), authentication: z.boolean(), project_context: z.boolean(), api_url: text }),
    }),
    statusError,
  ]),
  create_project: z.union([
    z.strictObject({ status: z.literal('success'), project_id: text, project_name: text, sop_steps_count: count, initial_tasks: count, message: text }),
    z.strictObject({ status: z.literal('error'), error_code: code, error: text }),
    statusError,
  ]),
  setup_workspace: z.union([
    z.strictObject({ success: z.literal(true), message: text, project: z.strictObject({ project_id: text, project_name: text }), templates_downloaded: count }),
    successFailure,
  ]),
  next: z.union([
    z.strictObject({
      status: z.literal('success'),
      task_phase: z.strictObject({ id: text, title: text, type: z.enum(PHASE_TYPES), status: z.enum(PHASE_STATUSES), task_id: text, order: z.number().int().positive(), description: text }),
    }),
    z.strictObject({ status: z.literal('no_available_tasks'), message: text }),
    z.strictObject({ status: z.literal('error'), error_code: z.literal('TASK_VALIDATION_ERROR'), error: text, task_id: text }),
    ...projectFailures,
  ]),
  report: z.union([
    z.strictObject({ status: z.literal('success'), data: z.strictObject({ id: text, title: text, status: z.literal('COMPLETED'), result: z.strictObject({ passed: z.boolean() }).nullable() }) }),
    z.strictObject({ error: text, error_code: code }),
    ...projectFailures,
  ]),
  pre_analyze: z.union([
    z.strictObject({
      status: z.literal('success'),
      analysis: z.strictObject({
        user_requirement: text,
        recommended_steps: z.array(z.strictObject({ step_identifier: text, step_name: text, relevance_score: z.number().min(0).max(1), reason: text })),
        suggested_task_title: text,
        suggested_task_goal: text,
      }),
    }),
    ...projectFailures,
  ]),
  add_task: z.union([
    z.strictObject({ status: z.literal('success'), data: z.strictObject({ task_id: text, title: text, goal: text, sop_step_identifier: text, status: z.literal('PENDING'), created_at: text }) }),
    ...projectFailures,
  ]),
  cancel_task: z.union([
    z.strictObject({
      status: z.literal('success'),
      message: text,
      cancelled_task: z.strictObject({ id: text, title: text, status: z.literal('CANCELLED'), cancelled_at: text, cancellation_reason: text.nullable() }),
      auto_switched_to: z.strictObject({ id: text, title: text, status: z.literal('IN_PROGRESS') }).optional(),
    }),
    info,
    ...projectFailures,
  ]),
  finish_task: z.union([
    z.strictObject({
      status: z.literal('success'),
      message: text,
      data: z.strictObject({ task_id: text, title: text, previous_status: z.literal('IN_PROGRESS'), new_status: z.literal('COMPLETED'), completed_at: text }),
    }),
    z.strictObject({ status: z.literal('info'), message: text, data: z.strictObject({ task_id: text, title: text, status: z.literal('COMPLETED') }) }),
    ...projectFailures,
  ]),
  start: z.union([transition('PENDING', 'IN_PROGRESS', 'started_at'), ...projectFailures]),
  suspend: z.union([transition('IN_PROGRESS', 'SUSPENDED', 'suspended_at'), info, ...projectFailures]),
  continue_suspended: z.union([transition('SUSPENDED', 'IN_PROGRESS', 'resumed_at'), ...projectFailures]),
  update_step_rules: z.union([z.strictObject({ status: z.literal('success'), message: text }), updateFailure, ...projectFailures]),
  update_output_template: z.union([z.strictObject({ status: z.literal('success'), message: text }), updateFailure, ...projectFailures]),
} as const satisfies Record<SupervisorTool, z.ZodType>;
