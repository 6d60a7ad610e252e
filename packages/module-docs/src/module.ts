/**
 * The Module of seed 003 and its hierarchical names: `parent.name`, each part letters, digits and
 * underscore not starting with a digit, at most 50 characters and at most five levels.
 */
export const MODULE_TYPES = ['class', 'function', 'variable', 'file', 'functionGroup'] as const;
export type ModuleType = (typeof MODULE_TYPES)[number];

export interface Module {
  name: string;
  hierarchical_name: string;
  type: ModuleType;
  description: string;
  parent?: string;
  file?: string;
}

export interface SearchResult {
  module: Module;
  score: number;
}

export const NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
export const MAX_NAME_LENGTH = 50;
export const MAX_DEPTH = 5;

export class ModuleNameError extends Error {
  override name = 'ModuleNameError';
}

/** `parent.name`, or `name` at the top; throws ModuleNameError when a rule is broken. */
export function generateHierarchicalName(parent: string | undefined, name: string): string {
  if (!new RegExp(NAME_PATTERN).test(name)) {
    throw new ModuleNameError(`Module name '${name}' may hold only letters, digits and underscores, and may not start with a digit`);
  }
  if (name.length > MAX_NAME_LENGTH) throw new ModuleNameError(`Module name '${name}' is longer than ${MAX_NAME_LENGTH} characters`);
  const hierarchical = parent ? `${parent}.${name}` : name;
  const depth = hierarchical.split('.').length;
  if (depth > MAX_DEPTH) throw new ModuleNameError(`'${hierarchical}' is ${depth} levels deep; at most ${MAX_DEPTH} are allowed`);
  return hierarchical;
}

/** The ancestors of a hierarchical name, nearest first: a.b.c → [a.b, a]. */
export function ancestorsOf(hierarchicalName: string): string[] {
  const parts = hierarchicalName.split('.');
  return parts.slice(1).map((_, i) => parts.slice(0, parts.length - 1 - i).join('.'));
}
