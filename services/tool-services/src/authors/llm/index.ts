export { createLlmAuthor } from './llm-author.js';
export type { LlmAuthorOptions } from './llm-author.js';
