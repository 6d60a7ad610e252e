import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { TemplateStore, type StageTemplate } from './templates.js';
import { fillTemplate } from './test-support.js';
import { measureOutput, type ValidationInput } from './validation.js';

let template: StageTemplate;
before(async () => {
  template = await new TemplateStore().get('s2_tasks_group');
});

const measure = (content: string | null, overrides: Partial<ValidationInput> = {}) =>
  measureOutput({
    stage: 's2_tasks_group',
    template,
    output: content === null ? null : { content, metadata: {} },
    requiredInputs: ['s1_user_story'],
    missingInputs: [],
    analysisAvailable: true,
    ...overrides,
  });

/** The template with the placeholders of its preamble and first `sections` sections filled. */
function partlyFilled(sections: number): string {
  const chunks = template.content.split(/\n(?=## )/);
  return chunks.map((chunk, index) => (index <= sections ? fillTemplate(chunk) : chunk)).join('\n');
}

test('no output scores 0 and names the output as missing', () => {
  const result = measure(null);
  assert.deepEqual([result.completeness_score, result.is_valid], [0, false]);
  assert.deepEqual(result.missing_elements, ['output of s2_tasks_group']);
  assert.match(result.suggestions[0] ?? '', /prepare_data/);
});

test('an output with nothing of the template scores low', () => {
  const result = measure('TODO');
  assert.ok(result.completeness_score < 0.2, String(result.completeness_score));
  assert.equal(result.is_valid, false);
  for (const section of template.sections) assert.ok(result.missing_elements.includes(`section "## ${section}"`), section);
});

test('the template saved unchanged scores low: its sections are empty and its placeholders unfilled', () => {
  const result = measure(template.content);
  assert.ok(result.completeness_score < 0.3, String(result.completeness_score));
  for (const section of template.sections) assert.ok(result.missing_elements.includes(`content under "## ${section}"`), section);
  for (const name of template.placeholders) assert.ok(result.missing_elements.includes(`placeholder {{${name}}}`), name);
});

test('a completely filled output scores exactly 1 and is valid', () => {
  const result = measure(fillTemplate(template.content));
  assert.deepEqual(result, { ...result, completeness_score: 1, is_valid: true, missing_elements: [] });
  assert.match(result.suggestions.at(-1) ?? '', /next/);
});

test('the score rises with every section filled and stays below 1 until all are', () => {
  const scores = template.sections.map((_, index) => measure(partlyFilled(index)).completeness_score);
  scores.push(measure(partlyFilled(template.sections.length)).completeness_score);
  assert.ok(scores[0] !== undefined && scores[0] > measure(template.content).completeness_score, 'filling the title alone counts');
  for (let i = 1; i < scores.length; i += 1) assert.ok((scores[i] ?? 0) > (scores[i - 1] ?? 0), `scores rise: ${scores.join(', ')}`);
  assert.equal(scores.at(-1), 1);
  assert.ok((scores.at(-2) ?? 1) < 1);
  const half = measure(partlyFilled(Math.floor(template.sections.length / 2)));
  assert.ok(half.completeness_score > 0.3 && half.completeness_score < 0.9, String(half.completeness_score));
});

test('a {{marker}} left anywhere keeps the output from being valid, even one the template lacks', () => {
  const stray = measure(`${fillTemplate(template.content)}\nStill to do: {{owner_names}}\n`);
  assert.equal(stray.is_valid, false);
  assert.ok(stray.completeness_score < 1);
  assert.deepEqual(stray.missing_elements, ['placeholder {{owner_names}}']);
  const kept = measure(fillTemplate(template.content).replace('The milestones of this project', '{{milestones}} of this project'));
  assert.deepEqual(kept.missing_elements, ['placeholder {{milestones}}']);
});

test('a marker inside fenced code is an example, not a placeholder', () => {
  const result = measure(`${fillTemplate(template.content)}\n\`\`\`handlebars\n{{user.name}}\n\`\`\`\n`);
  assert.equal(result.completeness_score, 1);
});

test('missing required inputs and missing analysis lower a complete output and are listed', () => {
  const noInputs = measure(fillTemplate(template.content), { missingInputs: ['s1_user_story'] });
  const noAnalysis = measure(fillTemplate(template.content), { analysisAvailable: false });
  assert.equal(noInputs.completeness_score, 0.95);
  assert.equal(noAnalysis.completeness_score, 0.95);
  assert.deepEqual(noInputs.missing_elements, ['output of s1_user_story (a required input)']);
  assert.deepEqual(noAnalysis.missing_elements, ['analysis data']);
  assert.match(noAnalysis.suggestions.join('\n'), /set_analysis/);
});

test('quality issues are reported without lowering the score', () => {
  const chunks = fillTemplate(template.content).split(/\n(?=## )/);
  const swapped = [chunks[0], chunks[2], chunks[1], ...chunks.slice(3)].join('\n');
  const result = measureOutput({
    stage: 's2_tasks_group',
    template,
    output: { content: swapped, metadata: { ai_confidence: 0.2, word_count: 5, sections_count: 2 } },
    requiredInputs: [],
    missingInputs: [],
    analysisAvailable: true,
  });
  assert.equal(result.completeness_score, 1);
  assert.ok(result.quality_issues.includes("sections are not in the template's order"));
  assert.ok(result.quality_issues.some((issue) => issue.includes('ai_confidence 0.2')));
  assert.ok(result.quality_issues.some((issue) => issue.startsWith('metadata.word_count is 5')));
  assert.ok(result.quality_issues.some((issue) => issue.startsWith('metadata.sections_count is 2')));
});

test('a section holding only a couple of words is reported as thin', () => {
  const result = measure(fillTemplate(template.content).replace(/The plan summary of this project[^\n]*/, 'Two words'));
  assert.ok(result.quality_issues.some((issue) => issue.includes('"## Plan Summary" is thin')), result.quality_issues.join('; '));
});
