/**
 * The SOP every new project starts with: ten steps over the six default stages. Descriptions
 * carry the English terms agents tend to write (API, database, deploy…) next to the Chinese, so
 * pre_analyze finds a step from a requirement written in either language.
 */
import { DEFAULT_STAGES, type SopGraph, type SopStep } from './domain.js';

const template = (title: string, sections: string[]) => `# ${title}\n\n${sections.map((s) => `## ${s}\n\n`).join('')}`;

const STEPS: SopStep[] = [
  {
    identifier: 'requirementAnalysis',
    name: '需求分析',
    stage: '需求分析',
    description: '澄清用户需求与业务目标，梳理用户角色、使用场景、功能需求与非功能需求，明确验收标准。Requirements analysis: user stories, use cases, acceptance criteria.',
    rules: ['每条功能需求都要有可验证的验收标准', '区分必须实现与可延后的需求', '记录尚未澄清的问题及其负责人'],
    output_template: template('需求分析报告', ['背景与目标', '用户角色', '使用场景', '功能需求', '非功能需求', '验收标准', '待澄清问题']),
    dependencies: [],
  },
  {
    identifier: 'mvpDefinition',
    name: 'MVP范围定义',
    stage: '需求分析',
    description: '从需求中划定最小可行产品的范围与优先级，确定首个版本交付的功能清单与里程碑。MVP scope, priorities, milestones, roadmap.',
    rules: ['MVP 只保留验证核心价值所需的功能', '每个功能标注优先级（P0/P1/P2）'],
    output_template: template('MVP 范围定义', ['核心价值假设', '功能清单与优先级', '不在范围内的内容', '里程碑']),
    dependencies: ['requirementAnalysis'],
  },
  {
    identifier: 'designLanguage',
    name: '设计语言系统',
    stage: '设计语言系统',
    description: '建立界面设计语言：色彩、字体、间距、图标与组件规范，保证界面风格一致。Design system, UI style guide, colors, typography, components.',
    rules: ['颜色与字号使用设计令牌（design tokens），不写死数值', '组件规范包含各状态（默认、悬停、禁用、错误）'],
    output_template: template('设计语言系统', ['设计原则', '色彩', '字体与字号', '间距与栅格', '组件规范']),
    dependencies: ['mvpDefinition'],
  },
  {
    identifier: 'systemArchitecture',
    name: '系统架构设计',
    stage: '系统分析',
    description: '设计系统的整体架构：模块划分、服务边界、技术选型、部署拓扑与关键的非功能设计。System architecture, modules, services, technology stack.',
    rules: ['每个技术选型说明理由与备选方案', '画出模块之间的调用关系'],
    output_template: template('系统架构设计', ['架构概览', '模块划分', '技术选型', '部署拓扑', '风险与权衡']),
    dependencies: ['mvpDefinition'],
  },
  {
    identifier: 'dataModel',
    name: '数据模型设计',
    stage: '系统分析',
    description: '设计数据模型与数据库表结构：实体、字段、关系、索引与数据迁移方案。Data model, database schema, tables, entities, migrations.',
    rules: ['每张表说明主键、索引与约束', '数据库结构变更必须有迁移脚本'],
    output_template: template('数据模型设计', ['实体关系', '表结构', '索引', '迁移方案']),
    dependencies: ['systemArchitecture'],
  },
  {
    identifier: 'apiDesign',
    name: '接口设计',
    stage: '系统分析',
    description: '设计对外与模块间的接口：REST API 路径、请求与响应格式、错误码、鉴权方式与版本策略。API design, endpoints, request, response, error codes.',
    rules: ['每个接口列出请求、响应与错误码示例', '接口变更保持向后兼容或升级版本号'],
    output_template: template('接口设计', ['接口列表', '请求与响应', '错误码', '鉴权', '版本策略']),
    dependencies: ['dataModel'],
  },
  {
    identifier: 'backendImplementation',
    name: '后端实现',
    stage: '技术实现',
    description: '按照接口与数据模型实现后端服务：业务逻辑、数据访问、接口实现与单元测试。Backend implementation, server, business logic, services.',
    rules: ['每个接口实现都要有单元测试', '不在代码中写入密钥与环境相关的配置'],
    output_template: template('后端实现说明', ['实现范围', '关键设计', '配置项', '测试情况']),
    dependencies: ['apiDesign'],
  },
  {
    identifier: 'frontendImplementation',
    name: '前端实现',
    stage: '技术实现',
    description: '按照设计语言系统与接口实现前端页面与交互：页面、组件、状态管理与接口对接。Frontend implementation, UI pages, components, web client.',
    rules: ['页面只使用设计语言系统中的组件与令牌', '接口错误要有用户可理解的提示'],
    output_template: template('前端实现说明', ['页面清单', '组件', '状态管理', '接口对接', '测试情况']),
    dependencies: ['apiDesign', 'designLanguage'],
  },
  {
    identifier: 'testing',
    name: '测试验证',
    stage: '测试验证',
    description: '编写并执行测试：功能测试、集成测试、回归测试与性能测试，记录缺陷并确认修复。Testing, test cases, integration tests, QA, bugs.',
    rules: ['每条验收标准至少对应一个测试用例', '发现的缺陷记录复现步骤'],
    output_template: template('测试报告', ['测试范围', '测试用例', '执行结果', '缺陷列表', '结论']),
    dependencies: ['backendImplementation', 'frontendImplementation'],
  },
  {
    identifier: 'deployment',
    name: '部署发布',
    stage: '部署发布',
    description: '将系统部署到生产环境并发布：构建、配置、上线步骤、监控告警与回滚方案。Deployment, release, production, CI/CD, monitoring, rollback.',
    rules: ['上线前准备好回滚方案', '发布后确认监控与告警正常'],
    output_template: template('部署发布记录', ['发布内容', '环境与配置', '上线步骤', '监控与告警', '回滚方案']),
    dependencies: ['testing'],
  },
];

/** A fresh copy of the default SOP, safe to change. */
export function defaultSop(): SopGraph {
  return { stages: [...DEFAULT_STAGES], steps: STEPS.map((step) => ({ ...step, rules: [...step.rules], dependencies: [...step.dependencies] })) };
}
