/** The offline story author and the text helpers its output is measured with. */
export { createOfflineAuthor } from './offline-author.js';
export { countWords, readingTime, splitIntoChunks } from './text.js';
