/**
 * What an agent step needs of a model: one turn of a chat with tools, streamed, as
 * @switchyard/models' client gives it. Tests and benchmarks may give any object that does the same.
 */
import type { ModelClient } from '@switchyard/models';

export type AgentModels = Pick<ModelClient, 'turn'>;
