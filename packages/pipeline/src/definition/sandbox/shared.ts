/**
 * The process's one expression sandbox. A service configures it once at start-up from its env
 * (EXPRESSION_* variables); until then, and in tests, it has the default budget.
 */
import { ExpressionSandbox, type ExpressionSandboxOptions } from './sandbox.js';

let options: ExpressionSandboxOptions = {};
let sandbox: ExpressionSandbox | undefined;

export function sharedSandbox(): ExpressionSandbox {
  sandbox ??= new ExpressionSandbox(options);
  return sandbox;
}

/** Sets the budget and process count of the sandbox; one already running is closed first. */
export async function configureExpressionSandbox(next: ExpressionSandboxOptions): Promise<void> {
  options = next;
  const running = sandbox;
  sandbox = undefined;
  await running?.close();
}

/** Ends the sandbox's processes (at shutdown); the next evaluation starts it again. */
export async function closeExpressionSandbox(): Promise<void> {
  const running = sandbox;
  sandbox = undefined;
  await running?.close();
}
