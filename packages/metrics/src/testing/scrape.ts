import assert from 'node:assert/strict';
import { parseExposition, type MetricFamily } from './exposition.js';

/** GETs `{url}/metrics`, checks its status and content type, and reads it strictly. */
export async function scrape(url: string): Promise<Map<string, MetricFamily>> {
  const res = await fetch(`${url.replace(/\/+$/, '')}/metrics`);
  const text = await res.text();
  assert.equal(res.status, 200, `GET ${url}/metrics answered ${res.status}: ${text.slice(0, 300)}`);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseExposition(text);
}
