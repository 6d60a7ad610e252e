/** What is wrong with a definition or a run's input, each problem with the place it was found. */
export interface DefinitionProblem {
  /** Where, as a dotted path into the definition (e.g. `steps.write.args.topic`) or the input. */
  path: string;
  message: string;
}

export class DefinitionError extends Error {
  override name = 'DefinitionError';
  readonly problems: readonly DefinitionProblem[];
  constructor(problems: readonly DefinitionProblem[]) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join('; ') || 'invalid pipeline definition');
    this.problems = problems;
  }
}

/** Problems listed for a caller: one line naming each (the first 50), and the list with its full count. */
export function problemsRefusal(what: string, problems: readonly DefinitionProblem[]): { message: string; details: { problems: DefinitionProblem[]; issue_count: number } } {
  const shown = problems.slice(0, 50);
  return { message: `${what}: ${shown.map((p) => `${p.path}: ${p.message}`).join('; ')}`, details: { problems: shown, issue_count: problems.length } };
}
