/**
 * The offline stage writer: fills an AceFlow template's placeholders from the project's analysis,
 * the key points of earlier stages and any feedback, so the document is about this project and
 * a regeneration visibly answers what validation found missing. Deterministic.
 */
import { countWords, type StageDefect, type StageDocumentInput, type StageDocumentOutput } from '@switchyard/contracts';

type Material = {
  project: string;
  /** Defects earlier stages report fixed (`- Fixed: …` lines). */
  fixed: string[];
  stage: string;
  points: string[];
  facts: string[];
  feedback: NonNullable<StageDocumentInput['feedback']>;
  knownDefects: StageDefect[];
};

const words = (name: string) => name.replace(/_/g, ' ');

function flatten(value: unknown, path: string, out: string[]): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object')) out.push(`${words(path)}: ${value.join(', ')}`);
    return;
  }
  if (typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) flatten(inner, key, out);
    return;
  }
  out.push(`${words(path)}: ${String(value)}`);
}

function knownDefects(analysis: Record<string, unknown>): StageDefect[] {
  const raw = (analysis.test_metrics as { known_defects?: unknown } | undefined)?.known_defects;
  return Array.isArray(raw) ? raw.filter((d): d is StageDefect => typeof d === 'object' && d !== null && typeof (d as StageDefect).description === 'string') : [];
}

/** Defects still open: known to the analysis and not reported fixed by the implementation stage. */
function openDefects(material: Material): StageDefect[] {
  return material.knownDefects.filter((d) => !material.fixed.includes(d.description));
}

function fill(name: string, material: Material, index: number): string {
  const { project, points, facts } = material;
  const point = points.length > 0 ? points[index % points.length] : undefined;
  const fact = facts.length > 0 ? facts[index % facts.length] : undefined;
  if (name === 'project_name') return project;
  if (name === 'defects') {
    const open = openDefects(material);
    return open.length === 0 ? '- None found.' : open.map((d) => `- [${d.severity}] ${d.description}`).join('\n');
  }
  if (name === 'verdict') return openDefects(material).some((d) => d.severity === 'high' || d.severity === 'critical') ? 'Not ready: high-severity defects are open.' : 'Ready.';
  if (name === 'fixes' || (material.stage.startsWith('s4') && name === 'changes' && material.feedback.defects.length > 0)) {
    return material.feedback.defects.map((d) => `- Fixed: ${d.description}`).join('\n') || '- No defects were reported.';
  }
  if (/_rows$/.test(name)) return `| ${project} | ${fact ?? 'see analysis'} | — | — | — | — |`;
  if (/percent/.test(name)) return fact?.match(/\d+(\.\d+)?/)?.[0] ?? '0';
  const basis = [point, fact].filter(Boolean).join('; ');
  return `For ${project}, the ${words(name)} follows from ${basis || 'the project analysis'}.`;
}

export function writeStageDocument(input: StageDocumentInput): StageDocumentOutput {
  const facts: string[] = [];
  flatten(input.analysis, 'analysis', facts);
  const points = Object.values(input.previous_outputs).flatMap((o) => o.key_points);
  const feedback = input.feedback ?? { missing_elements: [], quality_issues: [], defects: [] };
  const fixed = Object.values(input.previous_outputs).flatMap((o) => [...(o.content ?? '').matchAll(/^- Fixed: (.+)$/gm)].map((m) => (m[1] ?? '').trim()));
  const material: Material = { project: input.project_name, fixed, stage: input.stage, points, facts, feedback, knownDefects: knownDefects(input.analysis) };
  let index = 0;
  let content = input.template.replace(/<!--[\s\S]*?-->\n?/g, '').replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (_m, name: string) => fill(name, material, index++));
  // An implementation that was sent back for defects says what it fixed, in a section of its own.
  if (input.stage.startsWith('s4') && feedback.defects.length > 0 && !/^- Fixed: /m.test(content)) {
    content += `\n## Fixes\n${feedback.defects.map((d) => `- Fixed: ${d.description}`).join('\n')}\n`;
  }
  for (const missing of feedback.missing_elements) {
    const heading = missing.replace(/^(section|placeholder)[:\s]+/i, '').replace(/^#+\s*/, '');
    if (/^section/i.test(missing) && !content.includes(`## ${heading}`)) content += `\n## ${heading}\nFor ${input.project_name}: ${points[0] ?? facts[0] ?? 'see the analysis'}.\n`;
  }
  return { content, word_count: countWords(content) };
}

/** The document in paragraph-sized chunks that join back to exactly the content. */
export function stageDocumentChunks(content: string): string[] {
  return content.split(/(?<=\n\n)/);
}
