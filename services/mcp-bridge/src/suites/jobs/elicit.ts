/**
 * Asking the person behind an MCP client for what a run waits for, while wait_for_run follows it:
 * a client that declared the `elicitation` capability is sent `elicitation/create` with a form
 * made from the wait's schema, and its answer is applied through the same code as the API's
 * (packages/pipeline's engine/answers.ts).
 *
 * MCP forms are flat objects of primitive fields. An approval asks `approve`, `note`, and the
 * tool's arguments that are primitive (filled with the model's values; the others are kept as
 * the model gave them). A signal is asked only when its schema is a flat object of primitive
 * fields; otherwise nobody is asked and wait_for_run just reports that the run waits.
 * accept → approve (or refuse when `approve` is false) / send the signal; decline → refuse the
 * call / send nothing; cancel → nothing.
 */
import { answerApproval, AnswerError, answerSignal, mayAnswer, type AnswerDeps, type Answerer, type WaitRecord } from '@switchyard/pipeline';
import type { ElicitAnswer, ElicitForm, JsonSchema, ToolContext } from '@switchyard/tool-suite';

/** Times one wait is asked in one wait_for_run call: again only after an answer the checks refused. */
export const MAX_ASKS_PER_WAIT = 3;
/** Fields a form carries at most; an approval's arguments past them stay as the model gave them. */
const MAX_FIELDS = 40;
/** Characters of a schema's description (or a reason) put in a form. */
const MAX_TEXT = 500;

const APPROVE = 'approve';
const NOTE = 'note';
const STRING_FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, MAX_TEXT) : undefined);
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** Drops the keys whose value is undefined. */
const defined = (fields: Record<string, unknown>): JsonSchema => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));

/** `schema` as an MCP primitive field (with `current` as its default when it fits), or undefined when it is none. */
export function primitiveField(schema: unknown, current?: unknown): JsonSchema | undefined {
  if (!isObject(schema)) return undefined;
  const common = { title: text(schema.title), description: text(schema.description) };
  if (Array.isArray(schema.enum)) {
    if (schema.enum.length === 0 || schema.enum.length > 100 || !schema.enum.every((v) => typeof v === 'string')) return undefined;
    return defined({ type: 'string', ...common, enum: schema.enum, default: typeof current === 'string' && schema.enum.includes(current) ? current : undefined });
  }
  switch (schema.type) {
    case 'string':
      return defined({ type: 'string', ...common, minLength: num(schema.minLength), maxLength: num(schema.maxLength), format: typeof schema.format === 'string' && STRING_FORMATS.has(schema.format) ? schema.format : undefined, default: typeof current === 'string' ? current : undefined });
    case 'number':
    case 'integer':
      return defined({ type: schema.type, ...common, minimum: num(schema.minimum), maximum: num(schema.maximum), default: num(current) });
    case 'boolean':
      return defined({ type: 'boolean', ...common, default: typeof current === 'boolean' ? current : undefined });
    default:
      return undefined;
  }
}

/** A question for a wait, and how its answer is applied; undefined when no flat form can ask it. */
export interface WaitQuestion {
  form: ElicitForm;
  apply(answer: ElicitAnswer): Promise<string>;
}

function modelArguments(record: WaitRecord): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(record.arguments ?? '{}');
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function approvalQuestion(deps: AnswerDeps, record: WaitRecord, by: Answerer): WaitQuestion {
  const asked = modelArguments(record);
  const properties = isObject(record.parameters?.properties) ? record.parameters.properties : {};
  const required = new Set(Array.isArray(record.parameters?.required) ? record.parameters.required : []);
  // A field named as one of the form's own keeps the model's value.
  const editable = asked ? Object.entries(properties).filter(([name]) => name !== APPROVE && name !== NOTE).slice(0, MAX_FIELDS - 2).flatMap(([name, schema]) => {
    const field = primitiveField(schema, asked[name]);
    return field ? [[name, field] as const] : [];
  }) : [];
  const form: ElicitForm = {
    message: `Run ${record.run_id} (${record.pipeline}, stage ${record.stage}) asks to call ${record.tool ?? 'a tool'} with ${(record.arguments ?? '{}').slice(0, MAX_TEXT)}.${record.reason ? ` The model's reason: ${record.reason.slice(0, MAX_TEXT)}` : ''} Approve it (the fields below are its arguments, editable), or refuse it with a note the model reads.`,
    requestedSchema: {
      type: 'object',
      properties: { [APPROVE]: { type: 'boolean', title: 'Approve the call', default: true }, [NOTE]: { type: 'string', title: 'Note', description: 'Why (the model reads it with a refusal)', maxLength: 2000 }, ...Object.fromEntries(editable) },
      required: [APPROVE, ...editable.map(([name]) => name).filter((name) => required.has(name))],
    },
  };
  const target = { runId: record.run_id, callId: record.key, by };
  return {
    form,
    async apply(answer) {
      if (answer.action === 'cancel') return `the approval of ${record.tool ?? record.key} was left for later`;
      const content = answer.content ?? {};
      const approve = answer.action === 'accept' && content[APPROVE] !== false;
      const note = typeof content[NOTE] === 'string' && content[NOTE] !== '' ? content[NOTE] : answer.action === 'decline' ? 'declined when asked' : undefined;
      const edits = Object.fromEntries(editable.flatMap(([name]) => (content[name] === undefined ? [] : [[name, content[name]]])));
      const edited = approve && asked && editable.some(([name]) => edits[name] !== undefined && edits[name] !== asked[name]) ? { ...asked, ...edits } : undefined;
      await answerApproval(deps, target, () => ({ approve, ...(edited ? { arguments: edited } : {}), ...(note ? { note } : {}) }));
      return approve ? `${record.tool ?? record.key} approved${edited ? ' with edited arguments' : ''}` : `${record.tool ?? record.key} refused`;
    },
  };
}

function signalQuestion(deps: AnswerDeps, record: WaitRecord, by: Answerer): WaitQuestion | undefined {
  const schema = record.schema;
  if (!schema || schema.type !== 'object' || !isObject(schema.properties)) return undefined;
  const entries = Object.entries(schema.properties);
  if (entries.length === 0 || entries.length > MAX_FIELDS) return undefined;
  const fields = entries.map(([name, field]) => [name, primitiveField(field)] as const);
  if (fields.some(([, field]) => field === undefined)) return undefined;
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  return {
    form: { message: `Run ${record.run_id} (${record.pipeline}, stage ${record.stage}) waits for signal ${record.key}. Send it with these values, or decline to send nothing.`, requestedSchema: { type: 'object', properties: Object.fromEntries(fields) as Record<string, JsonSchema>, required } },
    async apply(answer) {
      if (answer.action !== 'accept') return `signal ${record.key} not sent`;
      const outcome = await answerSignal(deps, { runId: record.run_id, name: record.key, by }, answer.content ?? {});
      return `signal ${record.key} ${outcome.status === 'recorded' ? 'sent' : 'had been sent already'}`;
    },
  };
}

/** The question for a wait, asked of a key that may answer it (`by`; nobody else is asked). */
export function waitQuestion(deps: AnswerDeps, record: WaitRecord, by: Answerer): WaitQuestion | undefined {
  if (!mayAnswer(by)) return undefined;
  return record.kind === 'approval' ? approvalQuestion(deps, record, by) : signalQuestion(deps, record, by);
}

/**
 * What wait_for_run calls when the run waits: asks for each of its pending waits not asked yet
 * (again, with the refusal, when the checks refused the answer, up to MAX_ASKS_PER_WAIT), and
 * answers a line for the progress report.
 */
export function waitAsker(deps: AnswerDeps, options: { runId: string; by: Answerer; elicit: NonNullable<ToolContext['elicit']>; signal: AbortSignal; deadline: number }) {
  const asks = new Map<string, number>();
  return async function askPending(report: (line: string) => Promise<void>): Promise<void> {
    for (const record of await deps.waits.ofRun(options.runId)) {
      const key = `${record.kind}/${record.key}`;
      const question = waitQuestion(deps, record, options.by);
      if (!question || (asks.get(key) ?? 0) > 0) continue;
      let refusal = '';
      while ((asks.get(key) ?? 0) < MAX_ASKS_PER_WAIT && !options.signal.aborted) {
        asks.set(key, (asks.get(key) ?? 0) + 1);
        const timeoutMs = options.deadline - Date.now();
        if (timeoutMs <= 0) return;
        const form = refusal ? { ...question.form, message: `${refusal} ${question.form.message}` } : question.form;
        let answer: ElicitAnswer;
        try {
          answer = await options.elicit(form, { signal: options.signal, timeoutMs });
        } catch {
          // No answer in time, or the client could not show the form: the run goes on waiting.
          return;
        }
        try {
          await report(await question.apply(answer));
          break;
        } catch (error) {
          if (!(error instanceof AnswerError)) throw error;
          // Decided meanwhile (elsewhere) or the run ended: nothing more to ask.
          if (error.refusal !== 'invalid') break;
          refusal = `That answer was refused: ${error.message.slice(0, MAX_TEXT)}.`;
        }
      }
    }
  };
}
