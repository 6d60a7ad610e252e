/**
 * The TypeStructure of each module type (seed 003, VAR003): the shape a module of that type has,
 * and the fields it carries.
 */
import type { ModuleType } from './module.js';

export interface FieldDefinition {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

export interface TypeStructure {
  type_name: ModuleType;
  structure: Record<string, string>;
  description: string;
  fields: FieldDefinition[];
}

const COMMON: FieldDefinition[] = [
  { name: 'name', type: 'string', required: true, description: 'Name of the module within its parent (not unique on its own)' },
  { name: 'hierarchical_name', type: 'string', required: true, description: 'Unique dotted path: parent.hierarchical_name + "." + name' },
  { name: 'type', type: 'string', required: true, description: 'One of class, function, variable, file, functionGroup' },
  { name: 'description', type: 'string', required: true, description: 'What the module is for' },
  { name: 'parent', type: 'string', required: false, description: 'hierarchical_name of the parent module' },
  { name: 'file', type: 'string', required: false, description: 'Path of the file the module lives in' },
];

function structureOf(fields: FieldDefinition[]): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f.name, `${f.type}${f.required ? '' : '?'}`]));
}

function define(type_name: ModuleType, description: string, typical: string): TypeStructure {
  const fields = COMMON.map((f) => (f.name === 'type' ? { ...f, description: `Always "${type_name}"` } : f));
  return { type_name, description: `${description} ${typical}`, structure: structureOf(fields), fields };
}

export const TYPE_STRUCTURES: Readonly<Record<ModuleType, TypeStructure>> = {
  class: define('class', 'A class: state and the methods that act on it.', 'Its methods are function modules whose parent is the class.'),
  function: define('function', 'A function or method: one unit of behaviour.', 'Its parent is a file, a class or a functionGroup.'),
  variable: define('variable', 'A variable, constant or field.', 'Its parent is the file, class or function that holds it.'),
  file: define('file', 'A source file.', 'Usually a top-level module; `file` gives its path.'),
  functionGroup: define('functionGroup', 'A named group of related functions that is not a class.', 'Its children are function modules.'),
};
