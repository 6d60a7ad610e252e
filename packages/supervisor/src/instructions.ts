/**
 * The instructions file `next` writes for a phase: what the phase asks, the task group and its
 * SOP step (rules, dependencies, output template), and how to report it.
 */
import type { Phase, PhaseType, SopStep, TaskGroup } from './domain.js';
import { reportedPassed } from './phases.js';

const GUIDANCE: Record<PhaseType, string[]> = {
  UNDERSTANDING: ['阅读任务目标与 SOP 步骤说明，确认要交付什么。', '列出不清楚的地方和做出的假设。', '查看依赖步骤的产出，理解已有的上下文。'],
  PLANNING: ['把任务拆成可以逐一完成和检查的小步骤。', '说明每一步的产出，以及如何验证它。', '识别风险，并准备应对办法。'],
  IMPLEMENTING: ['按照计划完成工作，遵守本步骤的全部规则。', '产出按输出模板组织。', '记录与计划不同的地方及原因。'],
  VALIDATION: ['逐条对照任务目标、步骤规则与输出模板检查产出。', '运行所有相关的测试与检查。', '全部满足时报告通过；任何一条不满足都报告不通过，并记下问题。'],
  FIXING: ['针对上一次验证发现的问题逐一修复。', '每个修复都说明原因和改动。', '修复完成后会再进行一次验证。'],
  RETROSPECTIVE: ['回顾本任务组：哪些做得好，哪些可以改进。', '如有值得固化的经验，考虑用 update_step_rules 更新步骤规则。', '复盘完成后调用 finish_task 结束任务组。'],
};

function reportHow(phase: Phase): string {
  if (phase.type === 'VALIDATION') {
    return `完成后调用 \`report\`：\`{"task_phase_id": "${phase.id}", "result_data": {"passed": true}}\`（验证不通过时 \`"passed": false\`，随后进入修复阶段）。`;
  }
  return `完成后调用 \`report\`：\`{"task_phase_id": "${phase.id}"}\`（此阶段不需要 result_data）。`;
}

const list = (items: readonly string[]) => (items.length === 0 ? '（无）' : items.map((item) => `- ${item}`).join('\n'));

export function renderInstructions(input: { phase: Phase; task: TaskGroup; step: SopStep | undefined; history: readonly Phase[] }): string {
  const { phase, task, step, history } = input;
  const lines = [
    `# ${phase.title}`,
    '',
    `- 阶段：${phase.type}（第 ${phase.order} 个阶段）`,
    `- 阶段 ID：${phase.id}`,
    `- 任务组：${task.title}（${task.task_id}）`,
    '',
    '## 任务目标',
    '',
    task.goal,
    '',
    '## 本阶段要做的事',
    '',
    list(GUIDANCE[phase.type]),
    '',
  ];
  if (phase.type === 'FIXING') {
    const failed = history.filter((p) => p.type === 'VALIDATION' && reportedPassed(p) === false).at(-1);
    if (failed) lines.push('## 需要修复的验证', '', `第 ${failed.order} 个阶段（${failed.title}）报告验证不通过。`, '');
  }
  if (step) {
    lines.push(
      `## SOP 步骤：${step.name}（${step.identifier}）`,
      '',
      `- 阶段：${step.stage}`,
      `- 依赖步骤：${step.dependencies.length > 0 ? step.dependencies.join('、') : '（无）'}`,
      '',
      step.description,
      '',
      '### 规则',
      '',
      list(step.rules),
      '',
      '### 输出模板',
      '',
      step.output_template.trim() ? ['````markdown', step.output_template.trimEnd(), '````'].join('\n') : '（无）',
      '',
    );
  }
  lines.push('## 完成后', '', reportHow(phase), '');
  return lines.join('\n');
}
