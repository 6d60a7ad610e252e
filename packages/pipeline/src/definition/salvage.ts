/**
 * So that one answer lists every problem of a definition, a definition whose format is broken in
 * places is still checked everywhere else: a broken step is replaced by a stand-in that needs
 * nothing (what is wrong with it is the format's to say), a broken top-level field by its
 * default. Problems found at a stand-in's own place are the stand-in's, not the user's.
 */
import type { z } from 'zod';
import { PipelineDefinition, STEP_NAME, StepDefinition } from './schema.js';

export interface Salvaged {
  definition: PipelineDefinition;
  /** Steps replaced by stand-ins. */
  standIns: ReadonlySet<string>;
}

const isObject = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

/** The definition with its broken parts replaced, or undefined when too little of it holds (no steps object). */
export function salvageDefinition(options: { raw: unknown; issues: readonly z.core.$ZodIssue[]; kinds: readonly string[] }): Salvaged | undefined {
  const { raw } = options;
  if (!isObject(raw) || !isObject(raw.steps)) return undefined;
  const standIns = new Set<string>();
  const steps: Record<string, unknown> = {};
  for (const [name, step] of Object.entries(raw.steps)) {
    // A step with a name no step may have is left out: a need of it is then not a step, rightly.
    if (!STEP_NAME.test(name)) continue;
    if (StepDefinition.safeParse(step).success) steps[name] = step;
    else {
      standIns.add(name);
      steps[name] = { uses: options.kinds[0] ?? 'stand-in', needs: [] };
    }
  }
  const salvaged: Record<string, unknown> = { ...raw, steps };
  for (const issue of options.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && field !== 'steps') delete salvaged[field];
  }
  if (salvaged.name === undefined) salvaged.name = 'unnamed';
  const parsed = PipelineDefinition.safeParse(salvaged);
  return parsed.success ? { definition: parsed.data, standIns } : undefined;
}

/** Whether `path` is a stand-in's own place (`steps.<name>` or below). */
export const atStandIn = (path: string, standIns: ReadonlySet<string>) => [...standIns].some((name) => path === `steps.${name}` || path.startsWith(`steps.${name}.`));
