/**
 * Prints the orchestrator's OpenAPI document (the one `GET /openapi.json` serves) without
 * starting anything, for generating a client offline: `npx tsx scripts/openapi.ts > openapi.json`.
 */
import { createOpenApiDocument } from '@switchyard/orchestrator';

process.stdout.write(`${JSON.stringify(createOpenApiDocument(), null, 2)}\n`);
