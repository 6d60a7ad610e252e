/**
 * What an agent step needs of a model: one turn of a chat with tools, streamed, as
 * @switchyard/models' client gives it, and a model's prices (for `max_cost`; without them nothing
 * is costed). Tests and benchmarks may give any object that does the same.
 */
import type { ModelClient } from '@switchyard/models';

export type AgentModels = Pick<ModelClient, 'turn'> & Partial<Pick<ModelClient, 'pricesOf'>>;
