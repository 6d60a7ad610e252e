/**
 * `npm run client:generate`: writes packages/client/src/generated/openapi.ts from the document
 * this checkout serves (no server started). `npm run client:generate -- URL` reads a live
 * `/openapi.json` instead.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { API_TYPES_FILE, generateApiTypes } from './api-types.js';

const source = process.argv[2];
let document: unknown;
if (source) {
  const res = await fetch(source, { signal: AbortSignal.timeout(30_000) });
  if (!res.ok) {
    process.stderr.write(`client:generate: ${source} answered HTTP ${res.status}\n`);
    process.exit(1);
  }
  document = await res.json();
}
const text = await generateApiTypes(document);
mkdirSync(path.dirname(API_TYPES_FILE), { recursive: true });
writeFileSync(API_TYPES_FILE, text);
process.stdout.write(`${path.relative(process.cwd(), API_TYPES_FILE)}: ${text.split('\n').length} lines from ${source ?? 'createOpenApiDocument()'}\n`);
