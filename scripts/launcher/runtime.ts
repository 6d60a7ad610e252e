/**
 * How a service's process is run: its TypeScript sources through tsx (development, the default),
 * or the JavaScript `npm run build` compiled into each workspace's `dist/` (production). Compiled,
 * node resolves the workspace packages to their `dist/` through the `switchyard-dist` export
 * condition, and no TypeScript loader is started.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '@switchyard/redis';

export type Runtime = 'tsx' | 'compiled';

/** The export condition under which every workspace package resolves to its compiled `dist/`. */
export const DIST_CONDITION = 'switchyard-dist';

const EXIT_WITH_PARENT = fileURLToPath(new URL('./exit-with-parent.mjs', import.meta.url));

/** `services/x/src/main.ts` → `services/x/dist/main.js`. */
export function compiledEntry(entry: string): string {
  const compiled = entry.replace(/(^|\/)src\//, '$1dist/').replace(/\.ts$/, '.js');
  if (compiled === entry) throw new Error(`${entry} is not a TypeScript source under src/`);
  return compiled;
}

/**
 * Node's arguments for running `entry` (a path from the repository root to a service's main.ts).
 * @param options.exitWithParent preload the watch that stops the child when its launcher is gone (default true)
 */
export function nodeArguments(options: { entry: string; runtime: Runtime; exitWithParent?: boolean }): string[] {
  const preload = options.exitWithParent === false ? [] : ['--import', EXIT_WITH_PARENT];
  return options.runtime === 'compiled'
    ? [`--conditions=${DIST_CONDITION}`, ...preload, path.join(REPO_ROOT, compiledEntry(options.entry))]
    : ['--import', 'tsx', ...preload, path.join(REPO_ROOT, options.entry)];
}

/**
 * `npm run build`: every workspace compiled to its `dist/` (tsc -b, incremental, so a build with
 * nothing changed takes a second or two). Throws with tsc's output when the build fails.
 */
export function buildCompiled(): void {
  const tsc = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc');
  const result = spawnSync(tsc, ['-b', 'tsconfig.build.json'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the build failed (tsc -b tsconfig.build.json):\n${result.stdout}${result.stderr}`);
}
