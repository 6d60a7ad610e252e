/**
 * What the LLM author is told to write an AceFlow stage document: the template to fill, the
 * sections validation will look for, the task, the project's analysis, the earlier stages' key
 * points and excerpts, and what a previous draft lacked. Long material is cut to fit a prompt.
 */
import type { StageDocumentInput } from '@switchyard/contracts';

/** Characters of the analysis JSON, and of each earlier stage's text, put into the prompt. */
const ANALYSIS_CHARS = 8000;
const EARLIER_TEXT_CHARS = 2000;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}\n[… cut]` : text);

function earlierStages(input: StageDocumentInput): string[] {
  return Object.entries(input.previous_outputs).map(([stage, output]) => {
    const points = output.key_points.map((point) => `  - ${point}`).join('\n');
    const text = output.content ? `\n  Excerpt:\n${cut(output.content, EARLIER_TEXT_CHARS)}` : '';
    return `- ${stage}${points ? `, key points:\n${points}` : ''}${text}`;
  });
}

function feedbackLines(feedback: StageDocumentInput['feedback']): string[] {
  if (!feedback) return [];
  const lines: string[] = [];
  if (feedback.missing_elements.length > 0) lines.push(`A previous draft lacked: ${feedback.missing_elements.join('; ')}. Include them.`);
  if (feedback.quality_issues.length > 0) lines.push(`Quality issues to fix: ${feedback.quality_issues.join('; ')}.`);
  if (feedback.defects.length > 0) {
    lines.push('Defects reported by testing, each to be fixed and listed as a line `- Fixed: <description>`:');
    lines.push(...feedback.defects.map((d) => `- [${d.severity}] ${d.description}`));
  }
  return lines;
}

export function stageDocumentPrompt(input: StageDocumentInput): string {
  const { instructions } = input;
  const lines = [
    `Write the ${input.stage} document of the AceFlow pipeline for the project "${input.project_name}".`,
    'Fill in the template below: keep every heading and table, and replace each {{placeholder}} with content about this project.',
  ];
  if (input.sections.length > 0) lines.push(`The document must have these sections: ${input.sections.join('; ')}.`);
  if (instructions.task_description) lines.push(`Task: ${instructions.task_description}`);
  if (instructions.quality_requirements?.length) lines.push(`Quality requirements: ${instructions.quality_requirements.join('; ')}.`);
  if (Object.keys(input.analysis).length > 0) lines.push(`Project analysis (JSON):\n${cut(JSON.stringify(input.analysis, null, 1), ANALYSIS_CHARS)}`);
  const earlier = earlierStages(input);
  if (earlier.length > 0) lines.push(`Earlier stages:\n${earlier.join('\n')}`);
  lines.push(...feedbackLines(input.feedback));
  lines.push(
    'Where the template asks for defects, list each as a line `- [severity] description` (low, medium, high or critical).',
    `Template:\n"""\n${input.template}\n"""`,
    'Output only the finished Markdown document: no notes before or after it, no code fences around it.',
  );
  return lines.join('\n');
}
