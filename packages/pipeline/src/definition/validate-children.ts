/**
 * Registration's checks of child pipeline steps (`pipeline:`): the pipeline is registered (in the
 * version named, when one is), and an args object's literal values fit its input schema, as a
 * tool step's fit its tool's. A pipeline may name itself (its latest version): how deep a run of
 * it goes is bounded when its children start (MAX_CHILD_DEPTH), not here.
 */
import type { DefinitionProblem } from './problems.js';
import type { PipelineDefinition, StepDefinition } from './schema.js';
import type { AgentDirectory } from './validate-agents.js';

/** Checks an args object's literals against a schema (validate.ts's argumentProblems). */
export type ArgumentCheck = (name: string, step: StepDefinition, schema: Record<string, unknown>, what: string) => DefinitionProblem[];

export async function childPipelineProblems(definition: PipelineDefinition, directory: AgentDirectory | undefined, checkArguments: ArgumentCheck): Promise<DefinitionProblem[]> {
  const problems: DefinitionProblem[] = [];
  for (const [name, step] of Object.entries(definition.steps)) {
    const child = step.pipeline;
    if (!child || !directory) continue;
    const what = `pipeline ${child}${step.version ? ` version ${step.version}` : ''}`;
    const itself = child === definition.name && step.version === undefined;
    const input = itself ? definition.input : await directory.pipelineInput(child, step.version);
    if (!input) {
      problems.push({ path: `steps.${name}.pipeline`, message: `no ${what} is registered` });
      continue;
    }
    problems.push(...checkArguments(name, step, input, what));
  }
  return problems;
}
