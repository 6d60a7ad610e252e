/**
 * A JSON Schema as a graph of its subschemas, for estimating what validating costs (see
 * schema-bounds.ts). Each subschema knows what it applies at the same place of the input (`allOf`,
 * `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`, and its `$ref` or
 * `$dynamicRef` resolved), what it applies to any member one level down (`items`,
 * `additionalProperties`, `patternProperties`, `contains`, `propertyNames`, `unevaluated*`), and
 * what it applies to a named member (`properties`, `prefixItems`). `$ref`s are resolved as ajv
 * does for a schema standing alone: JSON pointers, `$anchor`s and `$id`s of this schema only.
 */

export interface SchemaNode {
  id: number;
  schema: Record<string, unknown> | boolean;
  /** Keys from the schema's root to here. */
  path: readonly string[];
  same: SchemaNode[];
  anyChild: SchemaNode[];
  keyedChildren: Map<string, SchemaNode[]>;
}

export interface SchemaGraph {
  root: SchemaNode | undefined;
  nodes: SchemaNode[];
  /** `$ref`s that point nowhere in the schema, each with its place. */
  unresolved: { path: string[]; message: string }[];
}

/** The base a schema without `$id` resolves its `$ref`s against. */
const ROOT_BASE = 'https://schema.switchyard.invalid/root';

type Role = 'same' | 'any' | 'none' | { key: string };
const SAME_ONE = ['not', 'if', 'then', 'else'];
const SAME_LIST = ['allOf', 'anyOf', 'oneOf'];
const ANY_ONE = ['additionalProperties', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems', 'contains'];
const DEFINITIONS = ['$defs', 'definitions'];

interface Pending {
  value: unknown;
  path: string[];
  base: string;
  attach: (node: SchemaNode) => void;
}

const isObject = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

/** The subschemas of `schema`, each with the role it plays for its parent. */
function subschemas(schema: Record<string, unknown>): { value: unknown; key: string[]; role: Role }[] {
  const found: { value: unknown; key: string[]; role: Role }[] = [];
  for (const keyword of SAME_ONE) if (keyword in schema) found.push({ value: schema[keyword], key: [keyword], role: 'same' });
  for (const keyword of ANY_ONE) if (keyword in schema) found.push({ value: schema[keyword], key: [keyword], role: 'any' });
  for (const keyword of SAME_LIST) {
    const list = schema[keyword];
    if (Array.isArray(list)) list.forEach((value: unknown, i) => found.push({ value, key: [keyword, String(i)], role: 'same' }));
  }
  const { items, prefixItems, properties, patternProperties, dependentSchemas, dependencies } = schema;
  if (Array.isArray(items)) items.forEach((value: unknown, i) => found.push({ value, key: ['items', String(i)], role: { key: `#${i}` } }));
  else if (items !== undefined) found.push({ value: items, key: ['items'], role: 'any' });
  if (Array.isArray(prefixItems)) prefixItems.forEach((value: unknown, i) => found.push({ value, key: ['prefixItems', String(i)], role: { key: `#${i}` } }));
  if (isObject(properties)) for (const [name, value] of Object.entries(properties)) found.push({ value, key: ['properties', name], role: { key: name } });
  if (isObject(patternProperties)) for (const [name, value] of Object.entries(patternProperties)) found.push({ value, key: ['patternProperties', name], role: 'any' });
  for (const map of [dependentSchemas, dependencies]) {
    if (isObject(map)) for (const [name, value] of Object.entries(map)) if (!Array.isArray(value)) found.push({ value, key: [map === dependentSchemas ? 'dependentSchemas' : 'dependencies', name], role: 'same' });
  }
  for (const keyword of DEFINITIONS) {
    const defs = schema[keyword];
    if (isObject(defs)) for (const [name, value] of Object.entries(defs)) found.push({ value, key: [keyword, name], role: 'none' });
  }
  return found;
}

function attachTo(parent: SchemaNode, role: Role): (node: SchemaNode) => void {
  if (role === 'same') return (node) => parent.same.push(node);
  if (role === 'any') return (node) => parent.anyChild.push(node);
  if (role === 'none') return () => undefined;
  return (node) => {
    const list = parent.keyedChildren.get(role.key) ?? [];
    list.push(node);
    parent.keyedChildren.set(role.key, list);
  };
}

const unescapePointer = (token: string) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');

/** Collects every subschema of `schema` and resolves its references. */
export function collectSchemaGraph(schema: unknown): SchemaGraph {
  const graph: SchemaGraph = { root: undefined, nodes: [], unresolved: [] };
  const byObject = new Map<object, SchemaNode>();
  const resources = new Map<string, { value: unknown; path: string[] }>([[ROOT_BASE, { value: schema, path: [] }]]);
  const anchors = new Map<string, SchemaNode>();
  const dynamicAnchors = new Map<string, SchemaNode[]>();
  const refs: { node: SchemaNode; keyword: string; ref: string; base: string }[] = [];
  const pending: Pending[] = [{ value: schema, path: [], base: ROOT_BASE, attach: (node) => (graph.root = node) }];

  const create = (item: Pending): void => {
    const known = isObject(item.value) ? byObject.get(item.value) : undefined;
    if (known) return item.attach(known);
    if (!isObject(item.value) && typeof item.value !== 'boolean') return;
    const node: SchemaNode = { id: graph.nodes.length, schema: item.value, path: item.path, same: [], anyChild: [], keyedChildren: new Map() };
    graph.nodes.push(node);
    item.attach(node);
    if (!isObject(item.value)) return;
    const value = item.value;
    byObject.set(value, node);
    let base = item.base;
    if (typeof value.$id === 'string') {
      try {
        const url = new URL(value.$id, base);
        url.hash = '';
        base = url.href;
        resources.set(base, { value, path: item.path });
      } catch {
        graph.unresolved.push({ path: [...item.path, '$id'], message: `${JSON.stringify(value.$id)} is not a URI` });
      }
    }
    for (const keyword of ['$anchor', '$dynamicAnchor']) if (typeof value[keyword] === 'string') anchors.set(`${base}#${value[keyword] as string}`, node);
    if (typeof value.$dynamicAnchor === 'string') dynamicAnchors.set(value.$dynamicAnchor, [...(dynamicAnchors.get(value.$dynamicAnchor) ?? []), node]);
    for (const keyword of ['$ref', '$dynamicRef']) if (typeof value[keyword] === 'string') refs.push({ node, keyword, ref: value[keyword] as string, base });
    for (const sub of subschemas(value)) pending.push({ value: sub.value, path: [...item.path, ...sub.key], base, attach: attachTo(node, sub.role) });
  };
  const drain = () => {
    for (let item = pending.pop(); item; item = pending.pop()) create(item);
  };

  /** The value a reference points at, with its place and base; undefined when it is not in this schema. */
  const resolve = (ref: string, base: string): Pending | SchemaNode | undefined => {
    let url: URL;
    try {
      url = new URL(ref, base);
    } catch {
      return undefined;
    }
    const fragment = url.hash.slice(1);
    url.hash = '';
    const resource = resources.get(url.href);
    if (!resource) return undefined;
    if (!fragment.startsWith('/') && fragment !== '') return anchors.get(`${url.href}#${decodeURIComponent(fragment)}`);
    let value = resource.value;
    const path = [...resource.path];
    for (const token of fragment === '' ? [] : fragment.slice(1).split('/').map(unescapePointer)) {
      if (!value || typeof value !== 'object' || !Object.hasOwn(value, token)) return undefined;
      value = (value as Record<string, unknown>)[token];
      path.push(token);
    }
    return { value, path, base: url.href, attach: () => undefined };
  };

  drain();
  for (let i = 0; i < refs.length; i += 1) {
    const { node, keyword, ref, base } = refs[i] as (typeof refs)[number];
    const target = resolve(ref, base);
    if (!target) {
      graph.unresolved.push({ path: [...node.path, keyword], message: `${JSON.stringify(ref)} points at nothing in this schema (a schema refers only into itself: #/… pointers, #anchors, or the $id of one of its parts)` });
      continue;
    }
    if ('same' in target) node.same.push(target);
    else {
      pending.push({ ...target, attach: (found) => node.same.push(found) });
      drain();
    }
    // A $dynamicRef may land on any $dynamicAnchor of its name: counted as applying them all.
    const name = keyword === '$dynamicRef' ? ref.split('#')[1] : undefined;
    if (name) node.same.push(...(dynamicAnchors.get(name) ?? []).filter((anchor) => !node.same.includes(anchor)));
  }
  return graph;
}

/**
 * The subschemas in an order where each comes before those it applies at the same place, or the
 * first one found on a circle of such (a `$ref` to itself or to a schema that comes back to it).
 */
export function sameLocationOrder(nodes: readonly SchemaNode[]): { order: SchemaNode[] } | { cycle: { path: string[] } } {
  const state = new Map<SchemaNode, 'open' | 'done'>();
  const finished: SchemaNode[] = [];
  for (const start of nodes) {
    if (state.has(start)) continue;
    const stack: [SchemaNode, number][] = [[start, 0]];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as [SchemaNode, number];
      const [node, index] = top;
      const next = node.same[index];
      if (!next) {
        stack.pop();
        state.set(node, 'done');
        finished.push(node);
        continue;
      }
      top[1] = index + 1;
      if (state.get(next) === 'open') {
        const at = typeof node.schema === 'object' && ('$ref' in node.schema || '$dynamicRef' in node.schema) ? [...node.path, '$ref' in node.schema ? '$ref' : '$dynamicRef'] : [...node.path];
        return { cycle: { path: at } };
      }
      if (!state.has(next)) {
        state.set(next, 'open');
        stack.push([next, 0]);
      }
    }
  }
  return { order: finished.reverse() };
}
