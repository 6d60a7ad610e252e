/**
 * Files into chunks of at most `maxLines` lines, cut where code naturally breaks: before a line
 * that starts at the left margin after a blank line (a new top-level definition, usually), else at
 * a blank line, else hard at the limit.
 */
export interface Chunk {
  /** `{file}#{n}`, n counting from 0. */
  id: string;
  file: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  text: string;
}

export interface ChunkOptions {
  /** Default 40. */
  maxLines?: number;
  /** A cut is not made before this many lines. Default 12. */
  minLines?: number;
}

export function chunkFile(file: string, text: string, options: ChunkOptions = {}): Chunk[] {
  const maxLines = options.maxLines ?? 40;
  const minLines = Math.min(options.minLines ?? 12, maxLines);
  const lines = text.split('\n');
  const blank = (i: number) => !(lines[i] ?? '').trim();
  const chunks: Chunk[] = [];
  let start = 0;
  while (start < lines.length) {
    let end = Math.min(start + maxLines, lines.length);
    if (end < lines.length) {
      let cut = -1;
      for (let i = end; i > start + minLines && cut < 0; i -= 1) if (blank(i - 1) && !blank(i) && !/^\s/.test(lines[i] ?? '')) cut = i;
      for (let i = end; i > start + minLines && cut < 0; i -= 1) if (blank(i - 1)) cut = i;
      if (cut > 0) end = cut;
    }
    const body = lines.slice(start, end).join('\n');
    if (body.trim()) chunks.push({ id: `${file}#${chunks.length}`, file, startLine: start + 1, endLine: end, text: body.replace(/\s+$/, '') });
    start = end;
  }
  return chunks;
}
