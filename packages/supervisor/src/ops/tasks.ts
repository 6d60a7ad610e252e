/**
 * Task groups of the session's project: adding, starting, suspending, resuming, finishing and
 * cancelling. The status change itself is one script (TaskStore.transition); here its outcome
 * becomes the seed's answer, and the instruction files follow the task group.
 */
import { SupervisorError, type TaskGroup, type TaskStatus } from '../domain.js';
import { ok } from '../replies.js';
import { requireProject, type ProjectSession } from '../session.js';
import type { TransitionResult } from '../task-store.js';
import { Workspace } from '../workspace.js';
import type { Ops, OpsContext } from './context.js';

type TaskTool = 'add_task' | 'cancel_task' | 'finish_task' | 'start' | 'suspend' | 'continue_suspended';

const STATUS_NAMES: Record<TaskStatus, string> = { PENDING: '待开始', IN_PROGRESS: '进行中', SUSPENDED: '已暂存', COMPLETED: '已完成', CANCELLED: '已取消' };

/** A task group of the session's project: NOT_FOUND when there is none, PERMISSION_DENIED when it is another project's. */
export async function projectTask(ctx: OpsContext, session: ProjectSession, taskId: string): Promise<TaskGroup> {
  const task = await ctx.store.tasks.get(taskId);
  if (!task) throw new SupervisorError('NOT_FOUND', `资源不存在：任务组 ${taskId}`);
  if (task.project_id !== session.project_id) throw new SupervisorError('PERMISSION_DENIED', '无权限执行此操作：该任务组不属于当前项目');
  return task;
}

async function conflict(ctx: OpsContext, result: { inProgressId: string }): Promise<SupervisorError> {
  const other = await ctx.store.tasks.get(result.inProgressId);
  return new SupervisorError('CONFLICT_IN_PROGRESS', `项目中已有进行中的任务：${other?.title ?? result.inProgressId}`);
}

/** The refusals every transition shares; answers only for 'ok'. */
async function settled(ctx: OpsContext, result: TransitionResult, refuse: (status: TaskStatus) => string): Promise<Extract<TransitionResult, { outcome: 'ok' }>> {
  switch (result.outcome) {
    case 'ok':
      return result;
    case 'missing':
      throw new SupervisorError('NOT_FOUND', '资源不存在：任务组');
    case 'conflict':
      throw await conflict(ctx, result);
    default:
      throw new SupervisorError('INVALID_STATUS', refuse(result.status));
  }
}

export const taskOps: Ops<TaskTool> = {
  add_task: async (ctx, args) => {
    const session = await requireProject(ctx.session, ctx.store);
    if (!(await ctx.store.step(session.project_id, args.sop_step_identifier))) {
      throw new SupervisorError('VALIDATION_ERROR', `sop_step_identifier: the project's SOP has no step '${args.sop_step_identifier}'`);
    }
    const task = await ctx.store.tasks.add(session.project_id, args, ctx.now());
    const { task_id, title, goal, sop_step_identifier, status, created_at } = task;
    return ok({ status: 'success', data: { task_id, title, goal, sop_step_identifier, status, created_at } });
  },

  start: async (ctx, args) => {
    const session = await requireProject(ctx.session, ctx.store);
    const task = await projectTask(ctx, session, args.task_id);
    const now = ctx.now();
    const result = await settled(ctx, await ctx.store.tasks.transition(task, 'start', now), (status) =>
      status === 'SUSPENDED' ? '任务组已暂存，请使用 continue_suspended 恢复' : `只有待开始的任务组可以启动（当前状态：${STATUS_NAMES[status]}）`,
    );
    return ok({
      status: 'success',
      data: { task_id: task.task_id, title: task.title, previous_status: result.previous, new_status: 'IN_PROGRESS', started_at: now },
      message: '任务已成功启动',
    });
  },

  suspend: async (ctx) => {
    const session = await requireProject(ctx.session, ctx.store);
    const task = await ctx.store.tasks.inProgress(session.project_id);
    const now = ctx.now();
    // Another session may suspend or finish it first: then there is nothing left to suspend here.
    const result = task ? await ctx.store.tasks.transition(task, 'suspend', now) : undefined;
    if (!task || result?.outcome !== 'ok') return ok({ status: 'info', message: '当前没有正在进行的任务可以暂存' });
    await new Workspace(session.workspace).setAside(task.task_id);
    return ok({
      status: 'success',
      data: { task_id: task.task_id, title: task.title, previous_status: 'IN_PROGRESS', new_status: 'SUSPENDED', suspended_at: now },
      message: '任务已成功暂存',
    });
  },

  continue_suspended: async (ctx, args) => {
    const session = await requireProject(ctx.session, ctx.store);
    const task = await projectTask(ctx, session, args.task_id);
    const now = ctx.now();
    await settled(ctx, await ctx.store.tasks.transition(task, 'continue', now), (status) => `只有已暂存的任务组可以恢复（当前状态：${STATUS_NAMES[status]}）`);
    await new Workspace(session.workspace).bringBack(task.task_id);
    return ok({
      status: 'success',
      data: { task_id: task.task_id, title: task.title, previous_status: 'SUSPENDED', new_status: 'IN_PROGRESS', resumed_at: now },
      message: '任务已成功恢复',
    });
  },

  finish_task: async (ctx, args) => {
    const session = await requireProject(ctx.session, ctx.store);
    const task = await projectTask(ctx, session, args.task_id);
    const now = ctx.now();
    const result = await ctx.store.tasks.transition(task, 'finish', now);
    if (result.outcome === 'already') return ok({ status: 'info', message: '任务已经处于完成状态', data: { task_id: task.task_id, title: task.title, status: 'COMPLETED' } });
    if (result.outcome === 'not_ready') throw new SupervisorError('INVALID_STATUS', '任务状态不满足完成条件：验证尚未通过');
    await settled(ctx, result, (status) => `任务状态不满足完成条件：只有进行中的任务组可以完成（当前状态：${STATUS_NAMES[status]}）`);
    await new Workspace(session.workspace).discard(task.task_id);
    return ok({
      status: 'success',
      message: '任务已成功标记为完成',
      data: { task_id: task.task_id, title: task.title, previous_status: 'IN_PROGRESS', new_status: 'COMPLETED', completed_at: now },
    });
  },

  cancel_task: async (ctx, args) => {
    const session = await requireProject(ctx.session, ctx.store);
    const task = await projectTask(ctx, session, args.task_id);
    const now = ctx.now();
    const result = await ctx.store.tasks.transition(task, 'cancel', now, args.cancellation_reason ?? '');
    if (result.outcome === 'already') return ok({ status: 'info', message: '该任务已经是取消状态' });
    const { switchedTo } = await settled(ctx, result, () => '已完成的任务组不能取消');
    await new Workspace(session.workspace).discard(task.task_id);
    const switched = switchedTo ? await ctx.store.tasks.get(switchedTo) : undefined;
    return ok({
      status: 'success',
      message: `任务组已成功取消: ${task.title}`,
      cancelled_task: { id: task.task_id, title: task.title, status: 'CANCELLED', cancelled_at: now, cancellation_reason: args.cancellation_reason ?? null },
      ...(switched ? { auto_switched_to: { id: switched.task_id, title: switched.title, status: 'IN_PROGRESS' } } : {}),
    });
  },
};
