/** Changing the SOP of the session's project: a step's rules and its output template. */
import { writeFile } from 'node:fs/promises';
import { SupervisorError } from '../domain.js';
import { ok } from '../replies.js';
import { requireProject } from '../session.js';
import { Workspace } from '../workspace.js';
import type { Ops } from './context.js';

type SopTool = 'update_step_rules' | 'update_output_template';

const noSuchStep = (identifier: string) => new SupervisorError('UPDATE_FAILED', `项目的 SOP 中没有步骤 '${identifier}'`);

export const sopOps: Ops<SopTool> = {
  update_step_rules: async (ctx, args) => {
    const session = await requireProject(ctx.session, ctx.store);
    if (!(await ctx.store.updateRules(session.project_id, args.step_identifier, args.rules))) throw noSuchStep(args.step_identifier);
    return ok({ status: 'success', message: 'Rules updated successfully' });
  },

  update_output_template: async (ctx, args) => {
    const session = await requireProject(ctx.session, ctx.store);
    if (!(await ctx.store.updateTemplate(session.project_id, args.step_identifier, args.template))) throw noSuchStep(args.step_identifier);
    // The session's downloaded copy would otherwise go stale until the next login.
    await writeFile(new Workspace(session.workspace).templatePath(args.step_identifier), args.template).catch(() => undefined);
    return ok({ status: 'success', message: 'Template updated successfully' });
  },
};
