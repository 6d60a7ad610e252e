/**
 * A session's workspace on disk: the directory an agent works in, confined under one configured
 * root. The Supervisor writes into its `supervisor_workspace/`: the output templates, the current
 * task group's phase instructions, and the instructions of suspended task groups, set aside.
 */
import { mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SupervisorError, type SopStep } from './domain.js';

export const SUPERVISOR_DIR = 'supervisor_workspace';
/** Which task group the files in current_task belong to. */
const MARKER = '.task_id';

const isInside = (root: string, target: string) => {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};

async function exists(target: string): Promise<boolean> {
  return stat(target).then(
    () => true,
    () => false,
  );
}

/**
 * The absolute workspace for `requested` (relative to `root`, or absolute inside it), created if
 * missing. A path that leaves the root, directly or through a symlink, is a VALIDATION_ERROR and
 * nothing is created.
 */
export async function resolveWorkspace(root: string, requested: string): Promise<string> {
  const refuse = () => new SupervisorError('VALIDATION_ERROR', `workspace_path: '${requested}' is outside the workspace root`);
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  const target = path.resolve(realRoot, requested);
  // The nearest existing ancestor, symlinks resolved, decides where mkdir would really write; the
  // rest of the path holds no `..` once resolved.
  let existing = target;
  while (!(await exists(existing))) existing = path.dirname(existing);
  const realExisting = await realpath(existing);
  if (!isInside(realRoot, realExisting)) throw refuse();
  const resolved = path.join(realExisting, path.relative(existing, target));
  await mkdir(resolved, { recursive: true });
  if (!(await stat(resolved)).isDirectory()) throw new SupervisorError('VALIDATION_ERROR', `workspace_path: '${requested}' is not a directory`);
  return resolved;
}

export class Workspace {
  readonly dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }

  get currentTaskDir(): string {
    return path.join(this.dir, SUPERVISOR_DIR, 'current_task');
  }

  suspendedDir(taskId: string): string {
    return path.join(this.dir, SUPERVISOR_DIR, 'suspended_tasks', taskId);
  }

  templatePath(identifier: string): string {
    return path.join(this.dir, SUPERVISOR_DIR, 'templates', `${identifier}.md`);
  }

  /** Writes each step's output template; answers how many were written. */
  async writeTemplates(steps: readonly Pick<SopStep, 'identifier' | 'output_template'>[]): Promise<number> {
    const withTemplate = steps.filter((step) => step.output_template.trim() !== '');
    await mkdir(path.join(this.dir, SUPERVISOR_DIR, 'templates'), { recursive: true });
    await Promise.all(withTemplate.map((step) => writeFile(this.templatePath(step.identifier), step.output_template)));
    return withTemplate.length;
  }

  /** Writes a phase's instructions into current_task, first clearing files left there by another task group. */
  async writeInstructions(taskId: string, fileName: string, content: string): Promise<string> {
    if ((await this.#currentOwner()) !== taskId) {
      await rm(this.currentTaskDir, { recursive: true, force: true });
      await mkdir(this.currentTaskDir, { recursive: true });
      await writeFile(path.join(this.currentTaskDir, MARKER), taskId);
    }
    const file = path.join(this.currentTaskDir, fileName);
    await writeFile(file, content);
    return file;
  }

  /** Moves the task group's instructions out of current_task; false when they are not here. */
  async setAside(taskId: string): Promise<boolean> {
    if ((await this.#currentOwner()) !== taskId) return false;
    await rm(this.suspendedDir(taskId), { recursive: true, force: true });
    await mkdir(path.dirname(this.suspendedDir(taskId)), { recursive: true });
    await rename(this.currentTaskDir, this.suspendedDir(taskId));
    return true;
  }

  /** Brings a suspended task group's instructions back into current_task; false when none were set aside here. */
  async bringBack(taskId: string): Promise<boolean> {
    if (!(await exists(this.suspendedDir(taskId)))) return false;
    // The resumed task group is the project's only one in progress, so what is there is stale.
    await rm(this.currentTaskDir, { recursive: true, force: true });
    await rename(this.suspendedDir(taskId), this.currentTaskDir);
    return true;
  }

  /** Removes a task group's instructions once it has ended. */
  async discard(taskId: string): Promise<void> {
    if ((await this.#currentOwner()) === taskId) await rm(this.currentTaskDir, { recursive: true, force: true });
    await rm(this.suspendedDir(taskId), { recursive: true, force: true });
  }

  async #currentOwner(): Promise<string | undefined> {
    return readFile(path.join(this.currentTaskDir, MARKER), 'utf8').then(
      (owner) => owner.trim(),
      () => undefined,
    );
  }
}
