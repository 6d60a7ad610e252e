/**
 * A sandbox process: evaluates JSONata expressions one at a time under JSONata's own guardrails
 * (time, depth, sequence length), in a heap the sandbox bounds with --max-old-space-size. What
 * loops past these, or allocates past the heap, ends this process, never the one that asked.
 */
import jsonata from 'jsonata';
import { describeJsonataError, jsonataCode } from '../jsonata-errors.js';
import { JSONATA_BUDGET_CODES } from './budget.js';
import { isJsonataFunction, jsonFitsIn } from './json-size.js';
import { LinearRegExp } from '../linear-regex.js';
import type { EvaluationReply, EvaluationRequest } from './protocol.js';

const send = process.send?.bind(process);
if (!send) throw new Error('evaluator-process.ts runs as a child process of the expression sandbox');

type Compiled = ReturnType<typeof jsonata>;
/** Compiled expressions by source and budget: a definition's expressions are evaluated again and again. */
const compiled = new Map<string, Compiled>();
const MAX_COMPILED = 500;

function compile(request: EvaluationRequest): Compiled {
  const { source, budget } = request;
  const key = `${budget.timeoutMs}/${budget.maxDepth}/${budget.maxSequence}\n${source}`;
  let expression = compiled.get(key);
  if (!expression) {
    expression = jsonata(source, { timeout: budget.timeoutMs, stack: budget.maxDepth, sequence: budget.maxSequence, RegexEngine: LinearRegExp } as never);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, expression);
  }
  return expression;
}

/** JSONata's functions are objects that hold their whole environment: JSON leaves them out. */
function leaveOutFunctions(_key: string, value: unknown): unknown {
  return isJsonataFunction(value) ? undefined : value;
}

async function evaluate(request: EvaluationRequest): Promise<EvaluationReply> {
  const { id, budget } = request;
  try {
    const value = (await compile(request).evaluate(request.context)) as unknown;
    // JSON is what a run stores: sequences' markers and functions are left out here.
    // Measured before JSON.stringify, which would itself allocate the whole of a huge value.
    if (!jsonFitsIn(value, budget.maxResultBytes)) return { id, ok: false, message: 'result too large', budget: 'result_size' };
    const json = value === undefined ? undefined : JSON.stringify(value, leaveOutFunctions);
    return json === undefined ? { id, ok: true } : { id, ok: true, json };
  } catch (error) {
    const code = jsonataCode(error);
    const kind = code ? JSONATA_BUDGET_CODES[code] : undefined;
    if (kind) return { id, ok: false, message: describeJsonataError(error), budget: kind };
    // V8's own limits reached within one step (a string past its maximum length, a stack overflow).
    if (error instanceof RangeError) return { id, ok: false, message: error.message, budget: /stack/i.test(error.message) ? 'depth' : 'memory' };
    return { id, ok: false, message: describeJsonataError(error) };
  }
}

process.on('message', (request: EvaluationRequest) => {
  void evaluate(request).then((reply) => send(reply));
});
// The sandbox that started this process is its only reason to live.
process.on('disconnect', () => process.exit(0));
send({ ready: true });
