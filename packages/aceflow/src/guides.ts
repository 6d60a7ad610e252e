/**
 * What each stage asks of the agent: the task, the deliverables, and how its output is judged.
 * prepare_data hands these over as the stage's instructions; they match the templates in
 * `templates/`, so an agent that follows them produces an output `validate` accepts.
 */
import type { StageId } from './stages.js';

export interface StageGuide {
  title: string;
  task: string;
  expectedOutputs: readonly string[];
  qualityRequirements: readonly string[];
  successCriteria: readonly string[];
  /** A rough duration for an agent with the inputs at hand, for the status's remaining time. */
  estimatedMinutes: number;
}

/** Requirements every stage shares; the stage's own follow. */
export const COMMON_QUALITY_REQUIREMENTS: readonly string[] = [
  'Keep every "## " section of the template, in the template\'s order',
  'Replace every {{placeholder}} with project-specific content; none may remain',
  'Base statements on the analysis data and the previous outputs; mark anything assumed as an assumption',
];

export const STAGE_GUIDES: Readonly<Record<StageId, StageGuide>> = {
  s1_user_story: {
    title: 'User stories',
    task: 'Write the user stories for the project from its analysis: who the users are, what they need, and how each need is accepted.',
    expectedOutputs: ['Product overview with goals and non-goals', 'Personas', 'Numbered user stories with priority and size', 'Acceptance criteria per story', 'Non-functional requirements'],
    qualityRequirements: ['Each story follows "As a …, I want …, so that …"', 'Each story has at least one Given/When/Then acceptance criterion', 'Non-functional requirements carry a number or a check'],
    successCriteria: ['Every story is numbered (US-n) and prioritised', 'A tester could check every acceptance criterion without asking', 'validate reports completeness_score 1'],
    estimatedMinutes: 30,
  },
  s2_tasks_group: {
    title: 'Task groups',
    task: 'Break the user stories into groups of tasks that can each be built and reviewed on their own, with estimates and an order.',
    expectedOutputs: ['Task groups with tasks, estimates and dependencies', 'Story-to-group coverage table', 'Milestones', 'Risks', 'Definition of done'],
    qualityRequirements: ['Every story of s1 appears in the coverage table', 'Every task has an estimate and a "done when"', 'Dependencies between tasks form no cycle'],
    successCriteria: ['No story is left without a task group', 'The milestones give an order in which to build the groups', 'validate reports completeness_score 1'],
    estimatedMinutes: 25,
  },
  s3_testcases: {
    title: 'Test cases',
    task: 'Design the test cases before implementation: a strategy, the environment, and cases traced to every acceptance criterion.',
    expectedOutputs: ['Test strategy per level', 'Test environment and data', 'Test case table', 'Edge and negative cases', 'Traceability from acceptance criteria to test cases', 'Exit criteria'],
    qualityRequirements: ['Every acceptance criterion of s1 maps to at least one test case', 'Each case has preconditions, steps and one expected result', 'Negative and boundary cases are included'],
    successCriteria: ['The traceability table has no empty row', 'Exit criteria are measurable', 'validate reports completeness_score 1'],
    estimatedMinutes: 35,
  },
  s4_implementation: {
    title: 'Implementation record',
    task: 'Implement the task groups and record what was built: decisions, changes per group, interfaces, configuration and tests added.',
    expectedOutputs: ['Implementation summary', 'Design decisions with reasons', 'Changes per task group with files', 'Interfaces and data model', 'Tests added', 'Known limitations'],
    qualityRequirements: ['Every task group of s2 appears in the changes table', 'Each design decision names the alternative it rejected', 'Automated tests are linked to test cases of s3'],
    successCriteria: ['The code builds and the tests it lists pass', 'Limitations are stated, not hidden', 'validate reports completeness_score 1'],
    estimatedMinutes: 90,
  },
  s5_test_report: {
    title: 'Test report',
    task: 'Run the tests against the implementation and report the results, coverage and defects with a clear verdict.',
    expectedOutputs: ['Verdict and summary', 'Results per suite', 'Coverage compared with the baseline', 'Defects', 'Tests not run', 'Recommendations'],
    qualityRequirements: ['Numbers come from an actual run, with its date and environment', 'Coverage is compared with test_coverage_percent from the analysis', 'Every failure has a severity and an owner'],
    successCriteria: ['The verdict follows from the results', 'No failing test is left unexplained', 'validate reports completeness_score 1'],
    estimatedMinutes: 30,
  },
  s6_codereview: {
    title: 'Code review',
    task: 'Review the implementation with the test report in hand: correctness, security, performance, maintainability and the tests themselves.',
    expectedOutputs: ['Review scope', 'Decision and assessment', 'Findings table with severities', 'Notes per review area', 'Required follow-ups'],
    qualityRequirements: ['Every finding names a file or area and a concrete change', 'Severities are blocker, major, minor or nit', 'Security findings consider input validation and secrets'],
    successCriteria: ['The decision is consistent with the findings (no approval with open blockers)', 'Follow-ups have owners', 'validate reports completeness_score 1'],
    estimatedMinutes: 40,
  },
  s7_demo_script: {
    title: 'Demo script',
    task: 'Write a demo script for the implemented features that someone else could run: setup, walkthrough, messages and a fallback.',
    expectedOutputs: ['Audience, goal and duration', 'Setup checklist', 'Numbered walkthrough', 'Key messages', 'Fallback plan', 'Expected questions with answers'],
    qualityRequirements: ['Each walkthrough step says what to do, what to say and what appears', 'The setup checklist starts from a clean machine or a named environment', 'The fallback covers the riskiest step'],
    successCriteria: ['The demo fits its stated duration', 'Every key message is shown by a step', 'validate reports completeness_score 1'],
    estimatedMinutes: 20,
  },
  s8_summary_report: {
    title: 'Summary report',
    task: 'Summarise the flow: what was delivered, its measured quality from the test report and the review, deviations, risks and next steps.',
    expectedOutputs: ['Executive summary', 'Delivered scope', 'Quality metrics table', 'Deviations from plan', 'Risks and open issues', 'Lessons learned', 'Next steps'],
    qualityRequirements: ['Metrics are taken from the test report and the review, not estimated', 'Deviations are explained with their cause', 'Next steps are concrete and ordered'],
    successCriteria: ['A reader who saw none of the earlier stages understands the outcome', 'Open issues match the review\'s open findings', 'validate reports completeness_score 1'],
    estimatedMinutes: 20,
  },
};
