/**
 * zod-openapi renders every hand-registered component twice, as request input and as response
 * output, and names the output form `{name}Output` when the two differ (an object's output form
 * refuses unknown fields). For a schema only ever answered, the input form is then unused and the
 * name a client generator sees is the suffixed one. This drops the schemas nothing reaches from
 * the paths, and gives an output form its plain name back when that name is free.
 */
import type { oas31 } from 'zod-openapi';

const PREFIX = '#/components/schemas/';

function refsIn(value: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(PREFIX)) found.add(child.slice(PREFIX.length));
      else refsIn(child, found);
    }
  }
  return found;
}

/** Returns the document with only the schemas the paths reach, output forms under plain names. */
export function pruneSchemas(doc: oas31.OpenAPIObject, outputSuffix = 'Output'): oas31.OpenAPIObject {
  const schemas = doc.components?.schemas ?? {};
  const reached = new Set<string>();
  let frontier = [...refsIn({ ...doc, components: { ...doc.components, schemas: {} } }, new Set())];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const name of frontier) {
      if (reached.has(name)) continue;
      reached.add(name);
      next.push(...refsIn(schemas[name], new Set()));
    }
    frontier = next;
  }
  const renames = new Map<string, string>();
  for (const name of reached) {
    const plain = name.endsWith(outputSuffix) ? name.slice(0, -outputSuffix.length) : undefined;
    if (plain && !reached.has(plain)) renames.set(name, plain);
  }
  const kept = Object.fromEntries(Object.keys(schemas).filter((name) => reached.has(name)).map((name) => [renames.get(name) ?? name, schemas[name]]));
  let text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: kept } });
  for (const [from, to] of renames) text = text.replaceAll(`"${PREFIX}${from}"`, `"${PREFIX}${to}"`);
  return JSON.parse(text) as oas31.OpenAPIObject;
}
