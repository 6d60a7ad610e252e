/**
 * The bridge's prompts, registered with the SDK's McpServer (which lists them, checks their
 * arguments and completes them through their completable arguments).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CompletionSources } from '../completions/sources.js';
import { aceflowStagesPrompt } from './aceflow-stages.js';
import type { PromptDefinition, PromptShape } from './kit.js';
import { supervisorPhasesPrompt } from './supervisor-phases.js';
import { writeStoryPrompt } from './write-story.js';

export interface PromptDeps {
  sources: CompletionSources;
  /** Every Supervisor project, id and name. */
  supervisorProjects(): Promise<{ id: string; name: string }[]>;
}

export function registerPrompts(mcp: McpServer, deps: PromptDeps): void {
  // One call per prompt: the SDK types each callback by its own argument shape.
  const story = writeStoryPrompt;
  mcp.registerPrompt(story.name, config(story), (input) => story.render(input));
  const aceflow = aceflowStagesPrompt(deps.sources);
  mcp.registerPrompt(aceflow.name, config(aceflow), (input) => aceflow.render(input));
  const supervisor = supervisorPhasesPrompt({ sources: deps.sources, projects: deps.supervisorProjects });
  mcp.registerPrompt(supervisor.name, config(supervisor), (input) => supervisor.render(input));
}

const config = <A extends PromptShape>(prompt: PromptDefinition<A>) => ({ title: prompt.title, description: prompt.description, argsSchema: prompt.args });
