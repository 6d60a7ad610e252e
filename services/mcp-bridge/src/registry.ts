/**
 * Every suite's tools under one namespace, each with its published JSON Schema compiled once, so
 * that a call is checked before any handler runs (a handler may then trust its arguments). The
 * check uses the SDK's own validator, the one its Client applies to output schemas.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { refusedArguments, type ArgumentsRefusal, type JsonSchema, type SuiteTool, type ToolOutcome, type ToolSuite } from '@switchyard/tool-suite';

export interface RegisteredTool {
  suite: string;
  tool: SuiteTool;
  /** The tool as `tools/list` shows it. */
  descriptor: Tool;
  /** What is wrong with `args` against the input schema, one line each; empty when they pass. */
  check(args: Record<string, unknown>): string[];
  /** The suite's answer to refused arguments, in the tool's own failure shape. */
  refuse(refusal: ArgumentsRefusal): ToolOutcome;
}

export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #validator = new AjvJsonSchemaValidator();
  readonly #listeners = new Set<(added: string[]) => void>();

  /** Throws when two tools share a name or a schema does not compile: both are wiring mistakes. */
  constructor(suites: readonly ToolSuite[]) {
    for (const suite of suites) {
      for (const tool of suite.tools) {
        const existing = this.#tools.get(tool.name);
        if (existing) throw new Error(`Tool ${tool.name} of suite ${suite.name} clashes with suite ${existing.suite}`);
        this.#tools.set(tool.name, this.#register(suite, tool));
      }
      suite.onToolsAdded?.((tools) => this.#addLate(suite, tools));
      suite.onToolsRemoved?.((names) => this.#remove(suite, names));
    }
  }

  /** Tools a suite no longer has; another suite's tool of the same name stays. */
  #remove(suite: ToolSuite, names: readonly string[]): void {
    const removed = names.filter((name) => this.#tools.get(name)?.suite === suite.name && this.#tools.delete(name));
    if (removed.length > 0) for (const listener of this.#listeners) listener(removed);
  }

  /** Calls `listener` with the names of tools added (or removed) after start-up; answers a function that stops it. */
  onToolsAdded(listener: (added: string[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** The tools as `tools/list` shows them; with `include`, only those it keeps. */
  list(include: (entry: RegisteredTool) => boolean = () => true): Tool[] {
    return [...this.#tools.values()].filter(include).map((entry) => entry.descriptor);
  }

  /** Every registered tool. */
  entries(): RegisteredTool[] {
    return [...this.#tools.values()];
  }

  get size(): number {
    return this.#tools.size;
  }

  /**
   * Tools a suite found after start-up. Unlike at start-up, a clash or a schema that does not
   * compile is an outside service's doing, not a wiring mistake: that tool is left out.
   */
  #addLate(suite: ToolSuite, tools: readonly SuiteTool[]): void {
    const added: string[] = [];
    for (const tool of tools) {
      // A suite may publish a tool again (a pipeline's new version): the new one replaces it.
      const existing = this.#tools.get(tool.name);
      if (existing && existing.suite !== suite.name) continue;
      try {
        this.#tools.set(tool.name, this.#register(suite, tool));
        added.push(tool.name);
      } catch {
        continue;
      }
    }
    if (added.length > 0) for (const listener of this.#listeners) listener(added);
  }

  #register(suite: ToolSuite, tool: SuiteTool): RegisteredTool {
    const validate = tool.checkArguments ? undefined : this.#compile(tool.inputSchema);
    const known = knownProperties(tool.inputSchema);
    const { title, ...hints } = tool.annotations ?? {};
    const descriptor: Tool = {
      name: tool.name,
      ...(title ? { title } : {}),
      description: tool.description,
      inputSchema: { ...tool.inputSchema, type: 'object' },
      ...(tool.outputSchema ? { outputSchema: { ...tool.outputSchema, type: 'object' } } : {}),
      ...(tool.annotations ? { annotations: { ...(title ? { title } : {}), ...hints } } : {}),
      ...(tool.longRunning ? { execution: { taskSupport: 'optional' as const } } : {}),
    };
    return {
      suite: suite.name,
      tool,
      descriptor,
      refuse: (refusal) => (suite.refuseArguments ? suite.refuseArguments(tool.name, refusal) : refusedArguments(refusal)),
      check: (args) => {
        if (!validate) return tool.checkArguments?.(args) ?? [];
        const result = validate(args);
        if (result.valid) return [];
        // ajv's own line for an unknown property does not name it; an agent needs the name.
        const unknown = known ? Object.keys(args).filter((key) => !known.has(key)).map((key) => `unknown argument '${key}'`) : [];
        const lines = result.errorMessage
          .split(', ')
          .filter((line) => !(unknown.length > 0 && line.endsWith('must NOT have additional properties')))
          .map((line) => line.replace(/^data(?=[/ ])/, 'arguments'));
        return [...unknown, ...lines];
      },
    };
  }

  #compile(schema: JsonSchema): JsonSchemaValidator<unknown> {
    // A published $id or dialect could clash with another tool's in the shared ajv; the schema is its own root.
    const { $id: _id, $schema: _dialect, ...rest } = schema;
    return this.#validator.getValidator(rest as JsonSchemaType);
  }
}

/** The top-level properties of a closed object schema (`additionalProperties: false`). */
function knownProperties(schema: JsonSchema): Set<string> | undefined {
  if (schema.additionalProperties !== false || !schema.properties || typeof schema.properties !== 'object') return undefined;
  return new Set(Object.keys(schema.properties));
}
