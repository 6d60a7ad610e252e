/**
 * `on_error` fallbacks at registration. A step named by another's `on_error` runs only as that
 * step's fallback: it is no part of the run's graph (no root, no dependent, no stage until it is
 * taken), it reads what the failed step could read (its `needs` are among the failed step's), and
 * no step needs it (later steps read the failed step's name, whose output the fallback's stands for).
 */
import type { DefinitionProblem } from './problems.js';
import type { StepDefinition } from './schema.js';

type Steps = Record<string, Pick<StepDefinition, 'needs' | 'on_error' | 'map'>>;

/** The steps that run only as a fallback (those some other step names in `on_error`), each with the step it stands in for. */
export function fallbackSteps(steps: Steps): Map<string, string> {
  const named = new Map<string, string>();
  for (const [name, step] of Object.entries(steps)) if (step.on_error && step.on_error !== name && step.on_error in steps && !named.has(step.on_error)) named.set(step.on_error, name);
  return named;
}

/** The chain of `on_error` from `start` when it comes back to a step it passed, else undefined. */
function cycleFrom(steps: Steps, start: string): string[] | undefined {
  const trail: string[] = [];
  for (let at: string | undefined = start; at !== undefined && at in steps; at = steps[at]?.on_error) {
    const seen = trail.indexOf(at);
    if (seen >= 0) return [...trail.slice(seen), at];
    trail.push(at);
  }
  return undefined;
}

/** Every problem of the definition's fallbacks, each at its place. */
export function fallbackProblems(steps: Steps): DefinitionProblem[] {
  const problems: DefinitionProblem[] = [];
  const fallbacks = fallbackSteps(steps);
  const takenBy = new Map<string, string>();
  const cycles = new Set<string>();
  for (const [name, step] of Object.entries(steps)) {
    const target = step.on_error;
    if (target === undefined) continue;
    const place = `steps.${name}.on_error`;
    if (!(target in steps)) {
      problems.push({ path: place, message: `names ${JSON.stringify(target)}, which is not a step of this pipeline` });
      continue;
    }
    if (target === name) {
      problems.push({ path: place, message: 'a step cannot be its own fallback' });
      continue;
    }
    const cycle = cycleFrom(steps, name);
    if (cycle) {
      const key = [...cycle.slice(0, -1)].sort().join(',');
      if (!cycles.has(key)) problems.push({ path: place, message: `fallback cycle: ${cycle.join(' → ')}` });
      cycles.add(key);
      continue;
    }
    if (fallbacks.has(name)) problems.push({ path: place, message: `${name} is the fallback of another step, and a fallback takes no on_error of its own` });
    if (step.map) problems.push({ path: place, message: 'a map step takes no on_error: its branches fail one by one' });
    const other = takenBy.get(target);
    if (other) problems.push({ path: place, message: `${target} is already the fallback of ${other}: a step is the fallback of one step at most` });
    takenBy.set(target, name);
    const fallback = steps[target];
    if (fallback?.map) problems.push({ path: `steps.${target}.map`, message: `${target} is a fallback (of ${name}): it runs once, not per item` });
    fallback?.needs.forEach((need, i) => {
      if (!step.needs.includes(need)) problems.push({ path: `steps.${target}.needs.${i}`, message: `${target} is the fallback of ${name}, and may need only what ${name} needs (${step.needs.join(', ') || 'nothing'})` });
    });
  }
  for (const [name, step] of Object.entries(steps)) {
    step.needs.forEach((need, i) => {
      if (fallbacks.has(need)) problems.push({ path: `steps.${name}.needs.${i}`, message: `${need} runs only as a fallback: read the step it stands for instead` });
    });
  }
  return problems;
}
