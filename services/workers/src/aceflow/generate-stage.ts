/**
 * Writing one stage as a LangGraph loop: write the document, save it, validate it; when
 * validation finds elements missing, send them back to the writer and write again, at most
 * `maxRegenerations` times. The graph's state is the draft, its validation and the feedback.
 */
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import type { AceflowEngine, ProjectRef, ValidateResponse } from '@switchyard/aceflow';
import type { StageDefect, StageDocumentInput } from '@switchyard/contracts';
import type { StageWriter } from './stage-writer.js';

type Validation = ValidateResponse['validation_result'];

export interface GenerateStageOptions {
  engine: AceflowEngine;
  writer: StageWriter;
  project: ProjectRef;
  stage: string;
  signal: AbortSignal;
  maxRegenerations: number;
  /** Defects the draft must address (s4 sent back by s5). */
  defects?: StageDefect[];
  onChunk(chunk: string): void;
  onReset(): void;
  /** A draft failed validation and is being written again. */
  onRegenerate(validation: Validation, draft: number): Promise<void>;
}

export interface GeneratedStage {
  content: string;
  validation: Validation;
  drafts: number;
  saved_to: string;
}

const StageState = Annotation.Root({
  drafts: Annotation<number>(),
  content: Annotation<string>(),
  savedTo: Annotation<string>(),
  validation: Annotation<Validation | null>(),
  feedback: Annotation<NonNullable<StageDocumentInput['feedback']>>(),
});

export async function generateStage(options: GenerateStageOptions): Promise<GeneratedStage> {
  const { engine, project, stage } = options;
  const prepared = await engine.prepareData(project, stage);
  const pkg = prepared.data_package;
  const previous = Object.fromEntries(Object.entries(pkg.previous_outputs).map(([id, out]) => [id, { key_points: out?.key_points ?? [], content: out?.content ?? '' }]));
  const baseInput: Omit<StageDocumentInput, 'feedback'> = {
    stage,
    project_name: project.name,
    template: pkg.template.content,
    placeholders: pkg.template.placeholders,
    sections: pkg.template.sections,
    previous_outputs: previous,
    analysis: pkg.analysis_data as Record<string, unknown>,
    instructions: { task_description: prepared.instructions.task_description, quality_requirements: prepared.instructions.quality_requirements },
  };

  const graph = new StateGraph(StageState)
    .addNode('write', async (state) => {
      if (state.drafts > 0) options.onReset();
      const doc = await options.writer.write({ ...baseInput, feedback: state.feedback }, { signal: options.signal, onChunk: options.onChunk, onReset: options.onReset });
      return { content: doc.content, drafts: state.drafts + 1 };
    })
    .addNode('save', async (state) => {
      const saved = await engine.saveOutput(project, stage, { content: state.content, metadata: { word_count: state.content.split(/\s+/).filter(Boolean).length } });
      return { savedTo: saved.saved_to };
    })
    .addNode('check', async (state) => {
      const validation = (await engine.validate(project, stage)).validation_result;
      if (!validation.is_valid && state.drafts <= options.maxRegenerations) await options.onRegenerate(validation, state.drafts + 1);
      return { validation, feedback: { ...state.feedback, missing_elements: validation.missing_elements, quality_issues: validation.quality_issues } };
    })
    .addEdge(START, 'write')
    .addEdge('write', 'save')
    .addEdge('save', 'check')
    .addConditionalEdges('check', (state) => (state.validation?.is_valid || state.drafts > options.maxRegenerations ? END : 'write'))
    .compile();

  const final = await graph.invoke(
    { drafts: 0, content: '', savedTo: '', validation: null, feedback: { missing_elements: [], quality_issues: [], defects: options.defects ?? [] } },
    { signal: options.signal, recursionLimit: 3 * (options.maxRegenerations + 1) + 2 },
  );
  if (!final.validation) throw new Error(`stage ${stage} was never validated`);
  return { content: final.content, validation: final.validation, drafts: final.drafts, saved_to: final.savedTo };
}
