/** The messages between the sandbox (sandbox.ts) and its processes (evaluator-process.ts). */
import type { BudgetKind, ExpressionBudget } from './budget.js';

export interface EvaluationRequest {
  id: number;
  source: string;
  context: Record<string, unknown>;
  budget: ExpressionBudget;
}

export type EvaluationReply =
  | { id: number; ok: true; /** The value as JSON; absent when the expression gave nothing. */ json?: string }
  | { id: number; ok: false; message: string; budget?: BudgetKind };

/** A process's first message: it has loaded and takes requests. */
export interface ProcessReady {
  ready: true;
}
