/**
 * What each tool answers when it refuses. The seed gives most tools their own failure shape
 * (login's `success: false`, report's bare `error`, the update tools' `code`), and a few general
 * ones (not logged in, no project, no permission, not found) that every other tool shares.
 */
import type { SupervisorTool } from './args.js';
import type { SupervisorError } from './domain.js';

/** What a tool answers: the seed's result object, and whether it is a failure. */
export interface SupervisorReply {
  content: Record<string, unknown>;
  isError?: boolean;
}

export const ok = (content: Record<string, unknown>): SupervisorReply => ({ content });

export const NO_PROJECT_CONTEXT_MESSAGE = 'No project context found. Please run setup_workspace or create_project first.';

/** The tools whose answers carry `success`: their failures do too, whatever the cause. */
const SUCCESS_SHAPED: ReadonlySet<SupervisorTool> = new Set(['login', 'login_with_project', 'logout', 'setup_workspace']);
const GENERAL_CODES = new Set(['AUTH_001', 'PERMISSION_DENIED', 'NOT_FOUND']);

export function failureOf(tool: SupervisorTool, error: SupervisorError): SupervisorReply {
  const { code, message } = error;
  const fail = (content: Record<string, unknown>): SupervisorReply => ({ content, isError: true });
  if (SUCCESS_SHAPED.has(tool)) return fail({ success: false, error_code: code === 'NO_PROJECT_CONTEXT' ? 'NOT_FOUND' : code, message });
  if (code === 'NO_PROJECT_CONTEXT') return fail({ status: 'error', message: NO_PROJECT_CONTEXT_MESSAGE });
  if (GENERAL_CODES.has(code)) return fail({ status: 'error', error_code: code, message });
  switch (tool) {
    case 'create_project':
      return fail({ status: 'error', error_code: code, error: message });
    case 'report':
      return fail({ error: message, error_code: code });
    case 'update_step_rules':
      return fail({ status: 'error', message: `更新规则失败: ${message}`, code });
    case 'update_output_template':
      return fail({ status: 'error', message: `更新模板失败: ${message}`, code });
    case 'next':
      if (code === 'TASK_VALIDATION_ERROR') return fail({ status: 'error', error_code: code, error: message, task_id: error.taskId });
      return fail({ status: 'error', error_code: code, message });
    default:
      return fail({ status: 'error', error_code: code, message });
  }
}
