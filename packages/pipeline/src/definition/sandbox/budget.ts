/**
 * What one evaluation of a user's JSONata expression may spend. A definition is code sent by any
 * key holder, so an expression that loops, recurses or allocates without end must end as a
 * step's error, never as a blocked or crashed process.
 */

export interface ExpressionBudget {
  /** Wall-clock time one evaluation may take, in ms. Default 1000. */
  timeoutMs: number;
  /** Nesting of JSONata's evaluation (recursion through user functions counts). Default 500. */
  maxDepth: number;
  /** Items a sequence or range may hold. Default 1,000,000. */
  maxSequence: number;
  /** Heap of the thread that evaluates, in MB: past it the thread is replaced. Default 256. */
  memoryMb: number;
  /** Bytes of the value as JSON. Default 8 MiB. */
  maxResultBytes: number;
}

export const DEFAULT_EXPRESSION_BUDGET: Readonly<ExpressionBudget> = Object.freeze({
  timeoutMs: 1000,
  maxDepth: 500,
  maxSequence: 1_000_000,
  memoryMb: 256,
  maxResultBytes: 8 * 1024 * 1024,
});

/** How an evaluation ended past its budget: said in the step's error. */
export type BudgetKind = 'time' | 'depth' | 'sequence' | 'memory' | 'result_size';

/** JSONata's own guardrail codes, by the budget each enforces. */
export const JSONATA_BUDGET_CODES: Readonly<Record<string, BudgetKind>> = {
  D1011: 'depth',
  D1012: 'time',
  D2014: 'sequence',
  D2015: 'sequence',
};

export function budgetMessage(kind: BudgetKind, budget: ExpressionBudget): string {
  switch (kind) {
    case 'time':
      return `ran past its time budget of ${budget.timeoutMs} ms`;
    case 'depth':
      return `nested deeper than its budget of ${budget.maxDepth} levels`;
    case 'sequence':
      return `made a sequence longer than its budget of ${budget.maxSequence} items`;
    case 'memory':
      return `used more memory than its budget of ${budget.memoryMb} MB`;
    case 'result_size':
      return `gave a value larger than its budget of ${budget.maxResultBytes} bytes`;
  }
}
