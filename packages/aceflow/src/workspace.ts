/**
 * Project workspaces on disk, all under one root. Outputs go to
 * `{root}/{workspace}/aceflow_result/{stage}.md`, and nothing a caller sends can put a file
 * anywhere else: the workspace is relative and made of safe segments (no `..`, no `/` at the
 * start, no `%`, no `\`), the stage is one of the known ids, and the directories are walked one at
 * a time from the root's real path, so a symbolic link planted in a workspace that leads out of
 * the root is refused before anything is created or written through it.
 */
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { invalidData } from './errors.js';
import { isStageId, type StageId } from './stages.js';

/** `<repo>/.data/aceflow`, next to the rest of the repository's local state. */
export const DEFAULT_WORKSPACE_ROOT = fileURLToPath(new URL('../../../.data/aceflow', import.meta.url));

/** The folder of a workspace that holds the stage outputs (seed 000's output_location). */
export const RESULT_DIR = 'aceflow_result';

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const MAX_DEPTH = 8;

/** Where a stage's output lives, relative to its workspace: `aceflow_result/s1_user_story.md`. */
export const outputLocation = (stage: StageId) => `${RESULT_DIR}/${stage}.md`;

/**
 * The workspace of a project, relative to the root: `workspace` when given, else the project's
 * name. Throws INVALID_DATA for anything that is not a plain relative path of safe segments.
 */
export function workspacePath(projectName: string, workspace?: string): string {
  return workspace === undefined ? safeRelative(projectName, 'project.name') : safeRelative(workspace, 'project.workspace');
}

function safeRelative(relative: string, field: string): string {
  const segments = relative.split('/');
  const bad = segments.find((segment) => !SEGMENT.test(segment));
  if (bad !== undefined || segments.length > MAX_DEPTH) {
    throw invalidData(field, `must be a relative directory under the AceFlow workspace root: up to ${MAX_DEPTH} segments separated by "/", each of letters, digits, ".", "_" or "-" and starting with a letter or digit${bad === undefined ? '' : ` ("${bad}" is not)`}`, { value: relative });
  }
  return segments.join('/');
}

const isInside = (root: string, candidate: string) => {
  const relative = path.relative(root, candidate);
  return relative === '' || (relative.split(path.sep)[0] !== '..' && !path.isAbsolute(relative));
};

export class Workspaces {
  readonly root: string;

  /** @param options.root directory every workspace lives under (created when missing) */
  constructor(options: { root: string }) {
    this.root = path.resolve(options.root);
  }

  /**
   * Writes a stage output to `{workspace}/aceflow_result/{stage}.md` and returns the file's path.
   * The file is written beside its target and renamed over it, so a reader never sees half of it
   * and a symbolic link at the target is replaced, never written through.
   */
  async writeOutput(workspace: string, stage: StageId, content: string): Promise<string> {
    if (!isStageId(stage)) throw invalidData('stage', 'is not a known stage id', { value: stage });
    // Checked again here: this is the last line of defence, whatever the caller checked before.
    const relative = safeRelative(workspace, 'project.workspace');
    await mkdir(this.root, { recursive: true });
    const rootReal = await realpath(this.root);
    let dir = rootReal;
    for (const segment of [...relative.split('/'), RESULT_DIR]) dir = await this.#step(rootReal, dir, segment, relative);

    const file = path.join(dir, `${stage}.md`);
    const existing = await lstat(file).catch(() => null);
    if (existing?.isSymbolicLink() || (existing && !existing.isFile())) {
      throw invalidData('project.workspace', `${outputLocation(stage)} in workspace "${relative}" is not a regular file; refusing to replace it`, { value: relative });
    }
    const temporary = path.join(dir, `.${stage}.md.${randomUUID()}.tmp`);
    try {
      await writeFile(temporary, content, { flag: 'wx' });
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return file;
  }

  /** One directory further down, created when missing; a link is followed only within the root. */
  async #step(rootReal: string, dir: string, segment: string, relative: string): Promise<string> {
    const next = path.join(dir, segment);
    const escape = () => invalidData('project.workspace', `workspace "${relative}" leads outside the AceFlow workspace root`, { value: relative });
    let info = await lstat(next).catch(() => null);
    if (!info) {
      await mkdir(next).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      info = await lstat(next);
    }
    if (info.isSymbolicLink()) {
      const target = await realpath(next).catch(() => null);
      if (!target || !isInside(rootReal, target)) throw escape();
      if (!(await lstat(target)).isDirectory()) throw escape();
      return target;
    }
    if (!info.isDirectory()) throw invalidData('project.workspace', `"${segment}" in workspace "${relative}" is not a directory`, { value: relative });
    return next;
  }
}
