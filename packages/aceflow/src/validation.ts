/**
 * How complete a saved output is, measured against its template (seed 000's validate). The score
 * is a weighted sum of four fractions, each 0–1:
 *
 *   sections      45  template `## ` sections present with content of their own (present but
 *                     holding only the template's own lines counts a quarter)
 *   placeholders  45  template placeholders filled: the marker gone and its section written; a
 *                     `{{…}}` left that the template does not have counts as one more unfilled
 *   inputs         5  the stage's required inputs saved
 *   analysis       5  analysis data present
 *
 * No output at all scores 0. The score is 1 exactly when nothing is missing, which is `is_valid`.
 * Quality issues are advice (short sections, order, the agent's metadata) and do not lower it.
 */
import { contentLines, markersLeft, outline, placeholders, wordCount } from './markdown.js';
import type { StageTemplate } from './templates.js';
import type { StageId } from './stages.js';

export const VALIDATION_WEIGHTS = { sections: 45, placeholders: 45, inputs: 5, analysis: 5 } as const;

/** A section with fewer words of its own than this is reported as thin. */
const THIN_SECTION_WORDS = 8;

export interface ValidationInput {
  stage: StageId;
  template: StageTemplate;
  output: { content: string; metadata: Record<string, unknown> } | null;
  missingInputs: readonly StageId[];
  requiredInputs: readonly StageId[];
  analysisAvailable: boolean;
}

export interface ValidationResult {
  is_valid: boolean;
  completeness_score: number;
  missing_elements: string[];
  quality_issues: string[];
  suggestions: string[];
}

const fraction = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

export function measureOutput(input: ValidationInput): ValidationResult {
  const missing: string[] = [];
  const issues: string[] = [];
  const suggestions: string[] = [];

  for (const dependency of input.missingInputs) {
    missing.push(`output of ${dependency} (a required input)`);
    suggestions.push(`Save the output of ${dependency} first: aceflow_stage(action="save_output", stage="${dependency}", data={content})`);
  }
  if (!input.analysisAvailable) {
    missing.push('analysis data');
    suggestions.push('Store the project analysis: aceflow_stage(action="set_analysis", data={project_info, code_metrics, test_metrics, build_info})');
  }
  if (!input.output) {
    missing.unshift(`output of ${input.stage}`);
    suggestions.unshift(`Fetch the data package with aceflow_stage(action="prepare_data", stage="${input.stage}"), write the document, then save it with save_output`);
    return { is_valid: false, completeness_score: 0, missing_elements: missing, quality_issues: issues, suggestions };
  }

  const { template } = input;
  const written = outline(input.output.content);
  const byKey = new Map<string, string>();
  const seen = new Set<string>();
  for (const section of written.sections) {
    if (seen.has(section.key) && template.outline.sections.some((t) => t.key === section.key)) issues.push(`section "## ${section.title}" appears more than once`);
    seen.add(section.key);
    if (!byKey.has(section.key)) byKey.set(section.key, section.body);
  }
  // Lines copied from the template are scaffolding, not content.
  const templateLines = new Set(contentLines(template.content));
  const ownLines = (text: string) => contentLines(text).filter((line) => !templateLines.has(line));

  let sectionPoints = 0;
  const writtenSections = new Set<string>();
  for (const section of template.outline.sections) {
    const body = byKey.get(section.key);
    if (body === undefined) {
      missing.push(`section "## ${section.title}"`);
      suggestions.push(`Add the section "## ${section.title}" from the template`);
      continue;
    }
    const own = ownLines(body);
    if (own.length === 0) {
      sectionPoints += 0.25;
      missing.push(`content under "## ${section.title}"`);
      suggestions.push(`Write the content of "## ${section.title}"`);
      continue;
    }
    sectionPoints += 1;
    writtenSections.add(section.key);
    if (wordCount(own.join(' ')) < THIN_SECTION_WORDS) issues.push(`section "## ${section.title}" is thin (under ${THIN_SECTION_WORDS} words of its own)`);
  }

  const left = new Set(markersLeft(input.output.content));
  const hasOwnContent = ownLines(input.output.content).length > 0;
  const owner = new Map<string, string | null>();
  for (const name of placeholders(template.outline.preamble)) owner.set(name, null);
  for (const section of template.outline.sections) for (const name of placeholders(section.body)) if (!owner.has(name)) owner.set(name, section.key);
  const unfilled: string[] = [];
  let filled = 0;
  for (const [name, sectionKey] of owner) {
    const written = sectionKey === null ? hasOwnContent : writtenSections.has(sectionKey);
    if (!left.has(name) && written) filled += 1;
    // A placeholder of a section that is missing altogether is reported with the section.
    else if (left.has(name) || sectionKey === null || byKey.has(sectionKey)) unfilled.push(name);
  }
  const strays = [...left].filter((marker) => !owner.has(marker));
  for (const name of [...unfilled, ...strays]) missing.push(`placeholder {{${name}}}`);
  if (unfilled.length + strays.length > 0) suggestions.push(`Replace ${[...unfilled, ...strays].map((name) => `{{${name}}}`).join(', ')} with project-specific content`);

  const order = written.sections.map((section) => template.outline.sections.findIndex((t) => t.key === section.key)).filter((index) => index >= 0);
  if (order.some((index, i) => i > 0 && index < (order[i - 1] ?? 0))) issues.push("sections are not in the template's order");
  issues.push(...metadataIssues(input.output.metadata, input.output.content, written.sections.length));
  if (issues.length > 0) suggestions.push('Revise the output for the quality issues listed, then save it again');

  const weights = VALIDATION_WEIGHTS;
  const points =
    weights.sections * fraction(sectionPoints, template.outline.sections.length) +
    weights.placeholders * fraction(filled, owner.size + strays.length) +
    weights.inputs * fraction(input.requiredInputs.length - input.missingInputs.length, input.requiredInputs.length) +
    weights.analysis * (input.analysisAvailable ? 1 : 0);
  // Rounded down, so that anything missing never shows as 1.
  const score = Math.min(1, Math.max(0, Math.floor(points * 10) / 1000));
  if (missing.length === 0) suggestions.push('The output is complete: move on with aceflow_stage(action="next")');
  return { is_valid: missing.length === 0, completeness_score: score, missing_elements: missing, quality_issues: issues, suggestions };
}

function metadataIssues(metadata: Record<string, unknown>, content: string, sectionCount: number): string[] {
  const issues: string[] = [];
  const confidence = metadata.ai_confidence;
  if (typeof confidence === 'number' && confidence < 0.5) issues.push(`the author's confidence is low (ai_confidence ${confidence})`);
  const words = wordCount(content);
  const claimed = metadata.word_count;
  if (typeof claimed === 'number' && Math.abs(claimed - words) > Math.max(20, words * 0.25)) issues.push(`metadata.word_count is ${claimed} but the output has ${words} words`);
  const claimedSections = metadata.sections_count;
  if (typeof claimedSections === 'number' && claimedSections !== sectionCount) issues.push(`metadata.sections_count is ${claimedSections} but the output has ${sectionCount} "## " sections`);
  return issues;
}
