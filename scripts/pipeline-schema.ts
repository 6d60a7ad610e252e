/**
 * Writes pipelines/pipeline.schema.json, the definition format as JSON Schema for editors, from
 * the zod schema the service validates with (a unit test fails when the file is stale).
 */
import { writeFileSync } from 'node:fs';
import { pipelineJsonSchema, SHIPPED_PIPELINES_DIR } from '@switchyard/pipeline';

writeFileSync(`${SHIPPED_PIPELINES_DIR}/pipeline.schema.json`, `${JSON.stringify(pipelineJsonSchema(), null, 2)}\n`);
