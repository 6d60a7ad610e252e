/** A pipeline's tool name: MCP names take letters, digits, `_`, `-` and `.`. */
export const pipelineToolName = (pipeline: string) => `pipeline_${pipeline.replace(/-/g, '_')}`;
