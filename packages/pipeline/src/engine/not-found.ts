/**
 * A pipeline (or a version of one) that is not registered, said the same way at every door: the
 * API's 404 and the MCP tools' `isError` result carry the same code, message and details.
 */

/** The error of an unknown pipeline `name` (in `version`, when one was asked for). */
export function pipelineNotFound(name: string, version?: number): { code: 'pipeline_not_found'; message: string; details: { name: string; version?: number } } {
  return {
    code: 'pipeline_not_found',
    message: version ? `No version ${version} of pipeline ${name}` : `No pipeline ${name}`,
    details: { name, ...(version ? { version } : {}) },
  };
}
