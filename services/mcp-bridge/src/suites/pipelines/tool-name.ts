/** The MCP tool of a pipeline: the name an agent's model calls it by too (`pipeline_<name>`, hyphens kept). */
import { modelToolName } from '@switchyard/pipeline';

export const pipelineToolName = (pipeline: string) => modelToolName({ pipeline });
