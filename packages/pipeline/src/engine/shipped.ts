/**
 * The pipelines shipped in the repository's `pipelines/` folder (the story and AceFlow stage
 * generation), registered by every process at start-up: the version already holding the same
 * definition is used, and a changed file becomes the next version.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DefinitionError } from '../definition/problems.js';
import { parseDefinitionText } from '../definition/parse-text.js';
import { validateDefinition } from '../definition/validate.js';
import type { PipelineStore } from '../store/pipeline-store.js';

/** Step kinds registered in code (`uses:`); the workers implement each. */
export const STEP_KINDS = ['aceflow.stage'] as const;
export type StepKindName = (typeof STEP_KINDS)[number];

/** The shipped pipelines routes depend on (`POST /v1/stories`, `POST /v1/aceflow/runs`): they cannot be deleted. */
export const SHIPPED_PIPELINE_NAMES: readonly string[] = ['story', 'aceflow'];

export const SHIPPED_PIPELINES_DIR = fileURLToPath(new URL('../../../../pipelines/', import.meta.url));

/**
 * The shipped pipelines' names, each with its step names, read from `dir` at once: what metrics
 * always label by name, however many other pipelines are registered.
 */
export function shippedStepNames(dir = SHIPPED_PIPELINES_DIR): Record<string, string[]> {
  const names: Record<string, string[]> = {};
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.yaml')).sort()) {
    const raw = parseDefinitionText(readFileSync(`${dir}/${file}`, 'utf8')) as { name?: unknown; steps?: unknown } | null;
    if (typeof raw?.name === 'string') names[raw.name] = raw.steps && typeof raw.steps === 'object' ? Object.keys(raw.steps) : [];
  }
  return names;
}

/** Registers every `*.yaml` of `dir`; resolves with name → version in force. */
export async function registerShippedPipelines(store: PipelineStore, dir = SHIPPED_PIPELINES_DIR): Promise<Record<string, number>> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.yaml')).sort();
  const versions: Record<string, number> = {};
  for (const file of files) {
    const raw = parseDefinitionText(await readFile(`${dir}/${file}`, 'utf8')) as { version?: unknown } | null;
    try {
      const stored = await validateDefinition({ raw, version: typeof raw?.version === 'number' ? raw.version : 1, kinds: STEP_KINDS });
      versions[stored.definition.name] = await store.registerShipped(stored);
    } catch (error) {
      if (error instanceof DefinitionError) throw new Error(`pipelines/${file} is not a valid definition: ${error.message}`);
      throw error;
    }
  }
  return versions;
}
