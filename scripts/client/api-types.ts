/**
 * The client's types, generated from the orchestrator's OpenAPI document with openapi-typescript.
 * The document is made by `createOpenApiDocument`, as `GET /openapi.json` serves it, so no server
 * is started; a live document can be read instead (a URL), to build a client of another deployment.
 */
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { createOpenApiDocument } from '@switchyard/orchestrator';
import { REPO_ROOT } from '@switchyard/redis';

/** The checked-in file the client imports its types from. */
export const API_TYPES_FILE = path.join(REPO_ROOT, 'packages', 'client', 'src', 'generated', 'openapi.ts');

const HEADER = `/**
 * The Switchyard API's types, generated from its OpenAPI document by openapi-typescript.
 * Do not edit: \`npm run client:generate\` writes this file again, and a test fails when it differs
 * from what the current document gives.
 */
`;

/** The text of the types file for `document` (default: the document this checkout serves). */
export async function generateApiTypes(document: unknown = createOpenApiDocument()): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], { silent: true });
  return `${HEADER}${astToString(ast)}`;
}
