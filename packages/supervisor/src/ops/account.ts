/**
 * Logging in and out, choosing a project and its workspace, creating projects, and the two
 * checks (ping, health). A session is bound to one project at a time; choosing another replaces it.
 */
import { defaultSop } from '../default-sop.js';
import { SupervisorError } from '../domain.js';
import { ok } from '../replies.js';
import { clearSession, ownedProject, readSession, requireLogin, writeSession } from '../session.js';
import { resolveWorkspace, Workspace } from '../workspace.js';
import type { Ops, OpsContext } from './context.js';

type AccountTool = 'ping' | 'login' | 'login_with_project' | 'logout' | 'health' | 'create_project' | 'setup_workspace';

async function authenticate(ctx: OpsContext, username: string, token: string) {
  const user = await ctx.store.authenticate(username, token);
  if (!user) throw new SupervisorError('AUTH_001', '认证失败：用户名或 API 令牌无效');
  return user;
}

/** Binds the session to the project and workspace, writing the project's templates there. */
async function bindProject(ctx: OpsContext, user: { user_id: string; username: string }, projectId: string, workspacePath: string) {
  const project = await ownedProject(ctx.store, user.user_id, projectId);
  const workspace = await resolveWorkspace(ctx.workspaceRoot, workspacePath);
  const templates = await new Workspace(workspace).writeTemplates(await ctx.store.steps(project.project_id));
  await writeSession(ctx.session, { user_id: user.user_id, username: user.username, project_id: project.project_id, workspace });
  return { project, templates };
}

/** Redis answers a PING in time. A command that fails later must not surface as an unhandled rejection. */
async function reachable(ctx: OpsContext): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ctx.healthTimeoutMs)));
  const ping = ctx.store.redis.ping().then(
    (reply) => reply === 'PONG',
    () => false,
  );
  return Promise.race([ping, timeout]).finally(() => clearTimeout(timer));
}

export const accountOps: Ops<AccountTool> = {
  ping: async (ctx) => ok({ status: 'ok', message: 'MCP server is running', timestamp: ctx.clock().getTime() / 1000, server_name: ctx.serverName }),

  login: async (ctx, args) => {
    const user = await authenticate(ctx, args.username, args.api_token);
    await writeSession(ctx.session, { user_id: user.user_id, username: user.username });
    return ok({ success: true, user_id: user.user_id, username: user.username });
  },

  login_with_project: async (ctx, args) => {
    const user = await authenticate(ctx, args.username, args.api_token);
    const { project, templates } = await bindProject(ctx, user, args.project_id, args.workspace_path);
    return ok({ success: true, user_id: user.user_id, username: user.username, project: { project_id: project.project_id, project_name: project.project_name, templates_downloaded: templates } });
  },

  logout: async (ctx) => {
    if (!(await readSession(ctx.session))) throw new SupervisorError('AUTH_001', '当前未登录');
    await clearSession(ctx.session);
    return ok({ success: true, message: '成功登出' });
  },

  health: async (ctx) => {
    const api_connection = await reachable(ctx);
    const session = await readSession(ctx.session);
    let authentication = false;
    let project_context = false;
    if (api_connection && session) {
      try {
        authentication = (await ctx.store.getUser(session.user_id)) !== undefined;
        const project = authentication && session.project_id ? await ctx.store.getProject(session.project_id) : undefined;
        project_context = project?.owner_id === session.user_id && session.workspace !== undefined;
      } catch {
        // Redis went away between the ping and these reads: the checks stay false.
      }
    }
    const healthy = api_connection && authentication && project_context;
    return ok({
      status: healthy ? 'healthy' : 'degraded',
      message: healthy ? 'All systems operational' : 'Some systems are not functioning properly',
      checks: { api_connection, authentication, project_context, api_url: ctx.apiUrl },
    });
  },

  create_project: async (ctx, args) => {
    const session = await requireLogin(ctx.session);
    const known = new Set(defaultSop().steps.map((step) => step.identifier));
    const unknown = (args.initial_tasks ?? []).findIndex((task) => !known.has(task.sop_step_identifier));
    if (unknown >= 0) throw new SupervisorError('VALIDATION_ERROR', `initial_tasks[${unknown}].sop_step_identifier: the default SOP has no such step`);
    const requested = args.workspace_path ?? session.workspace;
    if (requested === undefined) throw new SupervisorError('VALIDATION_ERROR', 'workspace_path: required, as this session has no workspace yet');
    const workspace = await resolveWorkspace(ctx.workspaceRoot, requested);
    const created = await ctx.store.createProject(
      { owner_id: session.user_id, project_name: args.project_name, description: args.description ?? '', initial_tasks: args.initial_tasks ?? [] },
      ctx.now(),
    );
    await new Workspace(workspace).writeTemplates(created.steps);
    await writeSession(ctx.session, { user_id: session.user_id, username: session.username, project_id: created.project.project_id, workspace });
    return ok({
      status: 'success',
      project_id: created.project.project_id,
      project_name: created.project.project_name,
      sop_steps_count: created.steps.length,
      initial_tasks: created.tasks.length,
      message: '项目创建成功',
    });
  },

  setup_workspace: async (ctx, args) => {
    const session = await requireLogin(ctx.session);
    const { project, templates } = await bindProject(ctx, session, args.project_id, args.workspace_path);
    return ok({ success: true, message: '工作区初始化成功', project: { project_id: project.project_id, project_name: project.project_name }, templates_downloaded: templates });
  },
};
