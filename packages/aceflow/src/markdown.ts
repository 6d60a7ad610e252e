/**
 * The little Markdown reading the engine needs: `## ` sections with their bodies, `{{placeholder}}`
 * markers, key points and a word count. Comments and fenced code are not prose: a template's
 * guidance lives in `<!-- -->` comments, and a code sample in an output may legitimately contain
 * `{{…}}` or `## ` lines.
 */

export interface MarkdownSection {
  /** The heading as written, without `## `. */
  title: string;
  /** The heading as compared: lower case, without numbering or a trailing colon. */
  key: string;
  /** The prose between this heading and the next `## ` heading. */
  body: string;
}

export interface MarkdownOutline {
  /** Prose before the first `## ` heading (the title, usually). */
  preamble: string;
  sections: MarkdownSection[];
}

const COMMENT = /<!--[\s\S]*?-->/g;
const FENCE = /^\s*(```|~~~)/;
const HEADING = /^##(?!#)\s+(.*?)\s*#*\s*$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
const ANY_MARKER = /\{\{([^{}\n]{0,100})\}\}/g;

/** The text without HTML comments and fenced code blocks (their lines kept, blank). */
export function prose(markdown: string): string {
  let inFence = false;
  return markdown
    .replace(COMMENT, (comment) => comment.replace(/[^\n]/g, ''))
    .split('\n')
    .map((line) => {
      if (FENCE.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line;
    })
    .join('\n');
}

export function sectionKey(title: string): string {
  return title
    .toLowerCase()
    .replace(/^\d+(\.\d+)*\.?\s+/, '')
    .replace(/[:：]\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function outline(markdown: string): MarkdownOutline {
  const result: MarkdownOutline = { preamble: '', sections: [] };
  const preamble: string[] = [];
  let body: string[] = preamble;
  for (const line of prose(markdown).split('\n')) {
    const heading = HEADING.exec(line);
    if (heading?.[1]) {
      body = [];
      result.sections.push({ title: heading[1], key: sectionKey(heading[1]), body: '' });
      continue;
    }
    body.push(line);
    const current = result.sections.at(-1);
    if (current) current.body = body.join('\n');
  }
  result.preamble = preamble.join('\n');
  return result;
}

/** Distinct placeholder names in order of first appearance, e.g. `["project_name", "goals"]`. */
export function placeholders(markdown: string): string[] {
  return [...new Set([...prose(markdown).matchAll(PLACEHOLDER)].map((match) => match[1] as string))];
}

/** Every `{{…}}` left in the prose, as written inside the braces (trimmed), distinct. */
export function markersLeft(markdown: string): string[] {
  return [...new Set([...prose(markdown).matchAll(ANY_MARKER)].map((match) => (match[1] as string).trim()))];
}

/** Words, counting each CJK character as one, since such text has no spaces between words. */
export function wordCount(text: string): number {
  return text.replace(COMMENT, ' ').match(/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\s\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+/g)?.length ?? 0;
}

/** Meaningful lines: not blank, not a table rule, not only Markdown punctuation. */
export function contentLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^[|:\-\s]+$/.test(line) && /[\p{L}\p{N}]/u.test(line));
}

const plain = (line: string) =>
  line
    .trim()
    .replace(/^(#+|[-*+]|\d+[.)]|>)\s+/, '')
    .replace(/\*\*|__|`/g, '')
    .replace(/^\|\s*|\s*\|$/g, '')
    .replace(/\s*\|\s*/g, ' | ')
    .trim();

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The text without table header rows: a header names columns, the rows below say something. */
function withoutTableHeaders(text: string): string {
  const lines = text.split('\n');
  return lines.filter((_, index) => !/^\s*\|?[\s:-]+\|[\s|:-]*$/.test(lines[index + 1] ?? '')).join('\n');
}

/**
 * A short digest of an output for the stages after it: each section's heading with its first
 * meaningful line; an output without sections gives its first lines.
 */
export function keyPoints(markdown: string, max = 10): string[] {
  const { preamble, sections } = outline(markdown);
  if (sections.length === 0) return contentLines(preamble).slice(0, max).map((line) => clip(plain(line), 200));
  return sections.slice(0, max).map((section) => {
    const first = contentLines(withoutTableHeaders(section.body))[0];
    const title = section.title.replace(/[:：]\s*$/, '');
    return clip(first ? `${title}: ${plain(first)}` : title, 200);
  });
}
