/**
 * Working through a task group: next (the phase to work on, with its instructions written to
 * the workspace), report (that phase done) and pre_analyze (which SOP steps fit a requirement).
 */
import { SupervisorError, type Phase, type TaskGroup } from '../domain.js';
import { renderInstructions } from '../instructions.js';
import { instructionsFileName, nextPhaseType, phaseTitle, reportedPassed } from '../phases.js';
import { rankSteps, type StepMatch } from '../relevance.js';
import { ok } from '../replies.js';
import { requireProject, type ProjectSession } from '../session.js';
import { SUPERVISOR_DIR, Workspace } from '../workspace.js';
import type { Ops, OpsContext } from './context.js';
import { projectTask } from './tasks.js';

type PhaseTool = 'next' | 'report' | 'pre_analyze';

/** Two sessions calling next at once race to open the same phase; the loser reads the winner's. */
const NEXT_ATTEMPTS = 5;
const DEFAULT_RECOMMENDATIONS = 5;

async function writeInstructions(ctx: OpsContext, session: ProjectSession, task: TaskGroup, phase: Phase): Promise<string> {
  const [step, history] = await Promise.all([ctx.store.step(session.project_id, task.sop_step_identifier), ctx.store.tasks.phases(task.task_id)]);
  const fileName = instructionsFileName(phase.order, phase.type);
  await new Workspace(session.workspace).writeInstructions(task.task_id, fileName, renderInstructions({ phase, task, step, history }));
  return `${SUPERVISOR_DIR}/current_task/${fileName}`;
}

/** The phase to work on now: the current one until it is reported, then a new one. */
async function currentOrNextPhase(ctx: OpsContext, session: ProjectSession): Promise<{ task: TaskGroup; phase: Phase } | undefined> {
  for (let attempt = 0; attempt < NEXT_ATTEMPTS; attempt += 1) {
    const task = await ctx.store.tasks.inProgress(session.project_id);
    if (!task) return undefined;
    const latest = task.current_phase_id ? await ctx.store.tasks.phase(task.current_phase_id) : undefined;
    if (latest?.status === 'IN_PROGRESS') return { task, phase: latest };
    const type = nextPhaseType(latest && { type: latest.type, passed: reportedPassed(latest) });
    if (type === 'done') {
      throw new SupervisorError('TASK_VALIDATION_ERROR', '任务组的所有阶段都已完成（复盘已报告），请调用 finish_task 完成任务组', { taskId: task.task_id });
    }
    const opened = await ctx.store.tasks.advance(task, latest?.id, type, phaseTitle(type, task.title), ctx.now());
    if (opened.outcome === 'ok') return { task, phase: opened.phase };
  }
  throw new Error(`next: the task group kept changing over ${NEXT_ATTEMPTS} attempts`);
}

function summarize(requirement: string): string {
  const clause = requirement.trim().split(/[。！？!?；;\n]/u)[0]?.trim() ?? '';
  const chars = [...clause];
  return chars.length > 40 ? `${chars.slice(0, 40).join('')}…` : clause;
}

function reasonFor(match: StepMatch): string {
  const terms = match.matchedTerms.slice(0, 5).map((term) => `「${term}」`).join('');
  const dependencies = match.step.dependencies.length > 0 ? `，依赖 ${match.step.dependencies.join('、')}` : '';
  return `需求与该步骤共有关键词 ${terms}（${match.step.stage} 阶段${dependencies}）`;
}

export const phaseOps: Ops<PhaseTool> = {
  next: async (ctx) => {
    const session = await requireProject(ctx.session, ctx.store);
    const found = await currentOrNextPhase(ctx, session);
    if (!found) return ok({ status: 'no_available_tasks', message: '当前没有可执行的任务' });
    const { task, phase } = found;
    const file = await writeInstructions(ctx, session, task, phase);
    return ok({
      status: 'success',
      task_phase: {
        id: phase.id,
        title: phase.title,
        type: phase.type,
        status: phase.status,
        task_id: task.task_id,
        order: phase.order,
        description: `任务阶段详情已保存到本地文件：\n文件路径：${file}\n请查看该文件获取完整的任务阶段说明和要求。`,
      },
    });
  },

  report: async (ctx, args) => {
    const session = await requireProject(ctx.session, ctx.store);
    const phase = await ctx.store.tasks.phase(args.task_phase_id);
    if (!phase) throw new SupervisorError('NOT_FOUND', `资源不存在：任务阶段 ${args.task_phase_id}`);
    await projectTask(ctx, session, phase.task_id);
    if (phase.type === 'VALIDATION' && !args.result_data) throw new SupervisorError('VALIDATION_ERROR', 'result_data: a VALIDATION phase is reported with {"passed": true} or {"passed": false}');
    if (phase.type !== 'VALIDATION' && args.result_data) throw new SupervisorError('VALIDATION_ERROR', `result_data: a ${phase.type} phase is reported without result data`);
    const result = await ctx.store.tasks.report(phase, ctx.now(), args.result_data ?? null, args.result_data?.passed);
    if (result.outcome === 'task_status') throw new SupervisorError('INVALID_STATUS', `任务组不在进行中（当前状态：${result.status}），不能报告`);
    if (result.outcome === 'not_current' || result.outcome === 'phase_status') throw new SupervisorError('INVALID_STATUS', '该任务阶段已经完成，请调用 next 获取当前阶段');
    return ok({ status: 'success', data: { id: phase.id, title: phase.title, status: 'COMPLETED', result: args.result_data ?? null } });
  },

  pre_analyze: async (ctx, args) => {
    const session = await requireProject(ctx.session, ctx.store);
    const matches = rankSteps(await ctx.store.steps(session.project_id), args.user_requirement).slice(0, args.limit ?? DEFAULT_RECOMMENDATIONS);
    const top = matches[0];
    return ok({
      status: 'success',
      analysis: {
        user_requirement: args.user_requirement,
        recommended_steps: matches.map((match) => ({ step_identifier: match.step.identifier, step_name: match.step.name, relevance_score: match.score, reason: reasonFor(match) })),
        suggested_task_title: summarize(args.user_requirement),
        suggested_task_goal: top ? `按照「${top.step.name}」（${top.step.identifier}）步骤完成：${args.user_requirement.trim()}` : `完成：${args.user_requirement.trim()}`,
      },
    });
  },
};
