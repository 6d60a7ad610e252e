// A form made from a JSON Schema, for answering what runs wait for: string, number, integer,
// boolean and enum fields, nested objects as fieldsets, and a raw JSON textarea for anything else
// (arrays, unions, a schema with no properties). The schema comes from a tool service or a
// pipeline: its names and descriptions are shown as text only, and its depth is bounded.
// The browser's own validation is off (the forms are `novalidate`): the API checks the answer and
// its 400 message is what the person reads.
import { h } from './dom.js';

/** Deeper objects than this become one raw JSON field. */
const MAX_DEPTH = 4;
/** More properties than this in one object: one raw JSON field for the whole object. */
const MAX_FIELDS = 50;

let counter = 0;
const fieldId = () => `sf-${++counter}`;

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const typeOf = (schema) => (Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type]).filter(Boolean);

/** What kind of field a schema gets: `object`, `enum`, `string`, `number`, `integer`, `boolean`, or `json`. */
function kindOf(schema, depth) {
  if (!isObject(schema)) return 'json';
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.length <= 100) return 'enum';
  const types = typeOf(schema);
  if (types.length !== 1) return 'json';
  const [type] = types;
  if (type === 'object') return isObject(schema.properties) && Object.keys(schema.properties).length <= MAX_FIELDS && depth < MAX_DEPTH ? 'object' : 'json';
  return ['string', 'number', 'integer', 'boolean'].includes(type) ? type : 'json';
}

/**
 * Builds the form's fields for `schema` with `initial` values. Answers `{ root, value }`: `value()`
 * gives the answer, or throws an Error naming the field whose raw JSON does not parse.
 */
export function schemaFields(schema, initial, path = '') {
  return field(schema, initial, { path, label: '', required: true, depth: 0 });
}

function field(schema, initial, place) {
  const kind = kindOf(schema, place.depth);
  if (kind === 'object') return objectField(schema, initial, place);
  const id = fieldId();
  const description = isObject(schema) && typeof schema.description === 'string' ? h('span', { class: 'muted small' }, schema.description) : '';
  const label = (control, inline = false) => h('label', { for: id, class: inline ? 'check' : undefined, dataset: { field: place.path || '(value)' } }, inline ? control : '', h('span', {}, place.label || 'value', place.required ? '' : ' (optional)'), inline ? '' : control, description);
  if (kind === 'boolean') {
    const input = h('input', { id, type: 'checkbox', name: place.path, checked: initial === true });
    return { root: label(input, true), value: () => input.checked, omit: () => false };
  }
  if (kind === 'enum') {
    const select = h('select', { id, name: place.path }, place.required ? '' : h('option', { value: '' }, '—'), schema.enum.map((option, i) => h('option', { value: String(i), selected: JSON.stringify(option) === JSON.stringify(initial) }, typeof option === 'string' ? option : JSON.stringify(option))));
    return { root: label(select), value: () => schema.enum[Number(select.value)], omit: () => select.value === '' };
  }
  if (kind === 'string' || kind === 'number' || kind === 'integer') {
    const numeric = kind !== 'string';
    const long = kind === 'string' && typeof initial === 'string' && initial.length > 80;
    const value = initial === undefined || initial === null ? '' : String(initial);
    const input = long ? h('textarea', { id, name: place.path, rows: 3 }, value) : h('input', { id, name: place.path, type: numeric ? 'number' : 'text', step: kind === 'integer' ? '1' : numeric ? 'any' : undefined, value });
    // A number field that does not parse goes as the text it holds: the API names the field.
    const read = () => (numeric ? (Number.isFinite(Number(input.value)) && input.value.trim() !== '' ? Number(input.value) : input.value) : input.value);
    return { root: label(input), value: read, omit: () => input.value === '' && !place.required };
  }
  const text = h('textarea', { id, name: place.path, rows: 4, class: 'mono', dataset: { raw: 'json' } }, initial === undefined ? '' : JSON.stringify(initial, null, 2));
  const read = () => {
    try {
      return JSON.parse(text.value);
    } catch {
      throw new Error(`${place.path || 'The value'} is not valid JSON`);
    }
  };
  return { root: label(text), value: read, omit: () => text.value.trim() === '' && !place.required };
}

function objectField(schema, initial, place) {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const values = isObject(initial) ? initial : {};
  const children = Object.entries(schema.properties).map(([name, child]) => ({
    name,
    ...field(child, values[name], { path: place.path ? `${place.path}.${name}` : name, label: name, required: required.has(name), depth: place.depth + 1 }),
  }));
  const value = () => Object.fromEntries(children.filter((c) => !c.omit()).map((c) => [c.name, c.value()]));
  const body = children.map((c) => c.root);
  const root = place.depth === 0 ? h('div', { class: 'schema-form' }, body) : h('fieldset', { dataset: { field: place.path } }, h('legend', {}, place.label, place.required ? '' : ' (optional)'), body);
  return { root, value, omit: () => !place.required && children.every((c) => c.omit()) };
}
