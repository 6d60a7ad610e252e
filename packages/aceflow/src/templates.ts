/**
 * Stage templates, `{dir}/{stage}.md`, kept in memory. Each read checks the file's mtime and size
 * (one stat) and reloads it when either changed, so an edited template is seen at once without
 * reading every template on every call.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AceflowError, LIMITS, MIB } from './errors.js';
import { outline, placeholders, type MarkdownOutline } from './markdown.js';
import { isStageId, type StageId } from './stages.js';

/** The templates shipped with this package. */
export const DEFAULT_TEMPLATES_DIR = fileURLToPath(new URL('../templates/', import.meta.url));

export interface StageTemplate {
  stage: StageId;
  content: string;
  /** Where it came from, relative to the templates directory's parent: `templates/s1_user_story.md`. */
  sourceFile: string;
  placeholders: string[];
  /** Titles of the `## ` sections, in order. */
  sections: string[];
  outline: MarkdownOutline;
}

export interface TemplateStoreOptions {
  /** Directory holding `{stage}.md`. Default: the package's `templates/`. */
  dir?: string;
  /** Largest template accepted, in bytes. Default: 1 MiB (seed 000). */
  maxBytes?: number;
}

interface Cached {
  mtimeMs: number;
  size: number;
  template: StageTemplate;
}

export class TemplateStore {
  readonly dir: string;
  readonly #maxBytes: number;
  readonly #cache = new Map<StageId, Cached>();
  #loads = 0;

  constructor(options: TemplateStoreOptions = {}) {
    this.dir = path.resolve(options.dir ?? DEFAULT_TEMPLATES_DIR);
    this.#maxBytes = options.maxBytes ?? LIMITS.templateBytes;
  }

  /** How many times a file was actually read, so that what the cache saves is observable. */
  get loads(): number {
    return this.#loads;
  }

  async get(stage: StageId): Promise<StageTemplate> {
    // The id becomes a file name: only the known ids ever do.
    if (!isStageId(stage)) throw new AceflowError('MISSING_STAGE', `Unknown stage '${String(stage)}'`, { stage });
    const file = path.join(this.dir, `${stage}.md`);
    const sourceFile = `${path.basename(this.dir)}/${stage}.md`;
    const notFound = (reason: string, extra: Record<string, unknown> = {}) =>
      new AceflowError('TEMPLATE_NOT_FOUND', `No usable template for ${stage}: ${reason}`, { stage, source_file: sourceFile, ...extra }, [
        `Provide ${sourceFile} (Markdown with "## " sections and {{placeholder}} markers, at most ${this.#maxBytes / MIB} MB)`,
      ]);

    const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
      throw error;
    });
    if (!info?.isFile()) throw notFound(info ? 'it is not a file' : 'the file does not exist', { reason: 'missing' });
    if (info.size > this.#maxBytes) throw notFound(`it is ${info.size} bytes, over the ${this.#maxBytes / MIB} MB limit`, { reason: 'too_large', size_bytes: info.size, limit_bytes: this.#maxBytes });

    const cached = this.#cache.get(stage);
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached.template;

    const content = await readFile(file, 'utf8');
    this.#loads += 1;
    const size = Buffer.byteLength(content);
    // The file may have grown between the stat and the read.
    if (size > this.#maxBytes) throw notFound(`it is ${size} bytes, over the ${this.#maxBytes / MIB} MB limit`, { reason: 'too_large', size_bytes: size, limit_bytes: this.#maxBytes });
    const parsed = outline(content);
    const template: StageTemplate = {
      stage,
      content,
      sourceFile,
      placeholders: placeholders(content),
      sections: parsed.sections.map((section) => section.title),
      outline: parsed,
    };
    this.#cache.set(stage, { mtimeMs: info.mtimeMs, size: info.size, template });
    return template;
  }
}
