/**
 * The bounds of a pipeline definition: what registration refuses before it parses, compiles or
 * stores anything (docs/SECURITY.md, "Definitions and input schemas"). They are constants, not
 * settings: every process compiles the definitions the others stored, so all must agree on what
 * a definition may be.
 */

/** A definition's text (YAML or JSON), in UTF-8 bytes: 128 KiB. */
export const MAX_DEFINITION_BYTES = 128 * 1024;
/** A definition as stored (JSON, after YAML's aliases are expanded), in characters: 256 KiB. */
export const MAX_DEFINITION_SIZE = 256 * 1024;
/** Values (objects, arrays, scalars) in a definition: 5,000. */
export const MAX_DEFINITION_NODES = 5_000;
/** Levels of nesting in a definition, the definition itself being level 1: 32. */
export const MAX_DEFINITION_DEPTH = 32;
/**
 * YAML aliases (`*name`), weighted as the `yaml` package counts them (an alias of a collection
 * that holds aliases counts them too): 50.
 */
export const MAX_YAML_ALIASES = 50;

/** A pipeline's steps: 200. */
export const MAX_STEPS = 200;
/** A step's `needs`: 50. */
export const MAX_NEEDS = 50;
/** An expression (`args` strings, `map`, `when`, `repeat.until`, `output`), in characters: 4,000. */
export const MAX_EXPRESSION_CHARS = 4_000;
/** A literal value in `args` or `output` (anything but a string or an object), as JSON: 16 KiB. */
export const MAX_LITERAL_SIZE = 16 * 1024;
/** A key in `args` or `output`: 200 characters. */
export const MAX_ARG_KEY_CHARS = 200;
/** The pipeline's `description`: 5,000 characters; a step's: 2,000. */
export const MAX_DESCRIPTION_CHARS = 5_000;
export const MAX_STEP_DESCRIPTION_CHARS = 2_000;

/** Values in the `input` (or `output_schema`) JSON Schema: 1,000. */
export const MAX_SCHEMA_NODES = 1_000;
/** Levels of nesting in the `input` (or `output_schema`) JSON Schema: 16. */
export const MAX_SCHEMA_DEPTH = 16;
/**
 * The estimated number of subschemas the input schema applies to any one value of an input (its
 * `allOf`/`anyOf`/`oneOf`/`not`/`if`, `$ref`s followed, over the input's nesting): 1,000. A run's
 * input is checked in at most this many steps per value it holds.
 */
export const MAX_SCHEMA_COST = 1_000;
/** A `pattern` or `patternProperties` key, in characters: 1,000. */
export const MAX_PATTERN_CHARS = 1_000;
/** RE2's program size of a pattern (its own measure of cost, about one per character): 5,000. */
export const MAX_PATTERN_PROGRAM = 5_000;

/**
 * The highest version a pipeline may have: 1,000,000,000. Versions are written as decimal
 * digits everywhere (Redis fields, Lua, JSON), which this keeps exact.
 */
export const MAX_VERSION = 1_000_000_000;
/** Versions of one pipeline that exist at once (deleting one makes room): 50. */
export const MAX_LIVE_VERSIONS = 50;
/** Pipelines that exist at once: 200. */
export const MAX_PIPELINES = 200;

/** Tools one agent step offers its model: 32. */
export const MAX_AGENT_TOOLS = 32;
/** Model turns an agent step may set as its `max_turns`: 50 (default 8). */
export const MAX_AGENT_TURNS = 50;
export const DEFAULT_AGENT_TURNS = 8;
/** Tokens (prompt and completion, over the step) an agent step may set as its `max_tokens`: 2,000,000 (default 50,000). */
export const MAX_AGENT_TOKENS = 2_000_000;
export const DEFAULT_AGENT_TOKENS = 50_000;
