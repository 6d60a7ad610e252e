/**
 * Checks on an SOP graph before a project is created with it: every step is well formed, named
 * once, in a known stage, and depends only on steps that exist, without cycles.
 */
import { SopStepSchema, type SopGraph, type SopStep } from './domain.js';

export class SopGraphError extends Error {
  override name = 'SopGraphError';
}

/** The steps in an order where every step comes after its dependencies; throws SopGraphError. */
export function validateSop(graph: SopGraph): SopStep[] {
  if (graph.steps.length === 0) throw new SopGraphError('An SOP needs at least one step');
  const byId = new Map<string, SopStep>();
  for (const [index, step] of graph.steps.entries()) {
    const parsed = SopStepSchema.safeParse(step);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SopGraphError(`steps[${index}].${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
    }
    if (byId.has(step.identifier)) throw new SopGraphError(`Step '${step.identifier}' is defined twice`);
    if (!graph.stages.includes(step.stage)) throw new SopGraphError(`Step '${step.identifier}' is in unknown stage '${step.stage}'`);
    byId.set(step.identifier, step);
  }
  for (const step of graph.steps) {
    for (const dependency of step.dependencies) {
      if (!byId.has(dependency)) throw new SopGraphError(`Step '${step.identifier}' depends on unknown step '${dependency}'`);
    }
  }
  return topologicalOrder(graph.steps, byId);
}

function topologicalOrder(steps: SopStep[], byId: Map<string, SopStep>): SopStep[] {
  const ordered: SopStep[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (step: SopStep, path: string[]) => {
    const seen = state.get(step.identifier);
    if (seen === 'done') return;
    if (seen === 'visiting') throw new SopGraphError(`The SOP has a dependency cycle: ${[...path, step.identifier].join(' → ')}`);
    state.set(step.identifier, 'visiting');
    for (const dependency of step.dependencies) visit(byId.get(dependency) as SopStep, [...path, step.identifier]);
    state.set(step.identifier, 'done');
    ordered.push(step);
  };
  for (const step of steps) visit(step, []);
  return ordered;
}
