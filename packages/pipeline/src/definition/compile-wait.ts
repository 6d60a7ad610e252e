/** A wait step made ready to run: its signal, its payload's schema as a validator, its timeout. */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { compileInputSchema, inputProblems } from './input-schema.js';
import type { DefinitionProblem } from './problems.js';
import { DEFAULT_WAIT_MS, type WaitDefinition } from './wait-schema.js';

export interface CompiledWait {
  definition: WaitDefinition;
  signal: string;
  timeoutMs: number;
  /** What is wrong with a payload, by field (none: it fits, or there is no schema). */
  payloadProblems(payload: unknown): DefinitionProblem[];
}

export function compileWait(options: { name: string; wait: WaitDefinition; problems: DefinitionProblem[] }): CompiledWait | undefined {
  const { wait } = options;
  let validate: ValidateFunction | undefined;
  if (wait.schema) {
    const compiled = compileInputSchema(wait.schema, `steps.${options.name}.wait.schema`);
    if ('problems' in compiled) {
      options.problems.push(...compiled.problems);
      return undefined;
    }
    validate = compiled.validate;
  }
  return { definition: wait, signal: wait.signal, timeoutMs: wait.timeout ?? DEFAULT_WAIT_MS, payloadProblems: (payload) => (validate ? inputProblems(validate, payload, '(payload)') : []) };
}
