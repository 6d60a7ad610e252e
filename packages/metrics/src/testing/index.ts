export { parseExposition, sampleSum, labelValues } from './exposition.js';
export type { MetricFamily, Sample } from './exposition.js';
export { scrape } from './scrape.js';
