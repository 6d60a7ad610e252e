/**
 * So that one answer lists every problem of a definition, a definition whose format is broken in
 * places is still checked everywhere else: a step's broken field is left out (and the step is
 * checked without it), a step that still does not hold is replaced by a stand-in that needs
 * nothing, and a broken top-level field by its default. What is wrong at those places is the
 * format's to say: problems found there afterwards are the salvage's, not the user's.
 */
import type { z } from 'zod';
import { PipelineDefinition, STEP_NAME, StepDefinition } from './schema.js';

export interface Salvaged {
  definition: PipelineDefinition;
  /** Places left out or stood in for (`steps.<name>`, `steps.<name>.<field>`). */
  replaced: ReadonlySet<string>;
}

const isObject = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

/**
 * The step without the broken parts of its object fields (an agent's `max_turns` past its bound
 * leaves the agent, its tools and the step's `needs` to be checked), else without its broken
 * fields, or undefined when even that does not hold. `fields` are the places left out, under the step.
 */
function trimmedStep(step: unknown): { step: Record<string, unknown>; fields: string[] } | undefined {
  if (!isObject(step)) return undefined;
  const parsed = StepDefinition.safeParse(step);
  if (parsed.success) return { step, fields: [] };
  const inner = withoutBrokenParts(step, parsed.error.issues);
  if (inner && StepDefinition.safeParse(inner.step).success) return inner;
  const fields = [...new Set(parsed.error.issues.map((issue) => issue.path[0]).filter((field): field is string => typeof field === 'string'))];
  const trimmed = Object.fromEntries(Object.entries(step).filter(([field]) => !fields.includes(field)));
  return fields.length > 0 && StepDefinition.safeParse(trimmed).success ? { step: trimmed, fields } : undefined;
}

/** The step with each broken part of an object field (`agent.max_turns`) left out, and each other broken field. */
function withoutBrokenParts(step: Record<string, unknown>, issues: readonly z.core.$ZodIssue[]): { step: Record<string, unknown>; fields: string[] } | undefined {
  const copy: Record<string, unknown> = { ...step };
  const fields = new Set<string>();
  for (const issue of issues) {
    const [field, part] = issue.path;
    if (typeof field !== 'string') return undefined;
    const value = copy[field];
    if (typeof part === 'string' && isObject(value) && part in value) {
      copy[field] = Object.fromEntries(Object.entries(value).filter(([key]) => key !== part));
      fields.add(`${field}.${part}`);
    } else {
      delete copy[field];
      fields.add(field);
    }
  }
  return fields.size > 0 ? { step: copy, fields: [...fields] } : undefined;
}

/** The definition with its broken parts replaced, or undefined when too little of it holds (no steps object). */
export function salvageDefinition(options: { raw: unknown; issues: readonly z.core.$ZodIssue[] }): Salvaged | undefined {
  const { raw } = options;
  if (!isObject(raw) || !isObject(raw.steps)) return undefined;
  const replaced = new Set<string>();
  const steps: Record<string, unknown> = {};
  for (const [name, step] of Object.entries(raw.steps)) {
    // A step with a name no step may have is left out: a need of it is then not a step, rightly.
    if (!STEP_NAME.test(name)) continue;
    const kept = trimmedStep(step);
    if (kept) {
      steps[name] = kept.step;
      for (const field of kept.fields) replaced.add(`steps.${name}.${field}`);
    } else {
      replaced.add(`steps.${name}`);
      // Whatever is said of the stand-in (its kind is none) is at its own place, and left out.
      steps[name] = { uses: 'stand-in', needs: [] };
    }
  }
  const salvaged: Record<string, unknown> = { ...raw, steps };
  for (const issue of options.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && field !== 'steps') delete salvaged[field];
  }
  if (salvaged.name === undefined) salvaged.name = 'unnamed';
  const parsed = PipelineDefinition.safeParse(salvaged);
  if (parsed.success) return { definition: parsed.data, replaced };
  // Past the bound of steps (the format says so): each step is checked all the same, parsed on its
  // own, so that its unknown references are named too. The definition's size bounds this work.
  const head = PipelineDefinition.safeParse({ ...salvaged, steps: { stand_in: { uses: 'stand-in' } } });
  if (!head.success || Object.keys(steps).length === 0) return undefined;
  const parsedSteps = Object.fromEntries(Object.entries(steps).map(([name, step]) => [name, StepDefinition.parse(step)]));
  return { definition: { ...head.data, steps: parsedSteps }, replaced };
}

/** Whether `path` is at or under a place the salvage replaced. */
export const atReplaced = (path: string, replaced: ReadonlySet<string>) => [...replaced].some((place) => path === place || path.startsWith(`${place}.`));
