import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SearchOutput, type SearchInput } from '@switchyard/contracts';
import { research } from './research.js';

const input = (topic: string, depth = 3, type = 'reference'): SearchInput => ({ topic, depth, type });

test('research returns depth results whose relevance strictly descends within [0, 1]', () => {
  for (let depth = 1; depth <= 10; depth += 1) {
    const out = research(input('a lighthouse keeper who collects lost letters', depth));
    assert.equal(out.results.length, depth);
    out.results.forEach((r, i) => {
      assert.ok(r.relevance >= 0 && r.relevance <= 1, `relevance ${r.relevance}`);
      const previous = out.results[i - 1];
      if (previous) assert.ok(r.relevance < previous.relevance, `${r.relevance} after ${previous.relevance}`);
    });
  }
});

test('the topic\'s words appear in every title and snippet', () => {
  const out = research(input('clockmakers of the drowned city', 6));
  for (const r of out.results) {
    assert.match(r.title, /clockmakers of the drowned city/);
    assert.match(r.snippet, /clockmakers|drowned|city/);
  }
});

test('each result looks at a different facet of the topic', () => {
  const out = research(input('beekeeping on rooftops', 10));
  assert.equal(new Set(out.results.map((r) => r.title.split(':')[0])).size, 10);
});

test('metadata reports a larger plausible total and the number returned', () => {
  const out = research(input('night trains', 4));
  assert.ok(out.metadata.total_results >= out.results.length);
  assert.ok(out.metadata.total_results > 4);
  assert.equal(out.metadata.filtered_results, 4);
});

test('the same search twice gives the same results, and another topic gives others', () => {
  assert.deepEqual(research(input('night trains')), research(input('night trains')));
  assert.notDeepEqual(research(input('night trains')), research(input('day trains')));
});

test('the material type flavours the wording', () => {
  const historical = research(input('night trains', 3, 'historical'));
  const news = research(input('night trains', 3, 'news'));
  assert.notDeepEqual(historical.results.map((r) => r.snippet), news.results.map((r) => r.snippet));
  assert.match(research(input('night trains', 1, 'folk_songs')).results[0]?.snippet ?? '', /folk songs/);
});

test('research output satisfies the contract schema', () => {
  assert.doesNotThrow(() => SearchOutput.parse(research(input('the the', 10, 'x'))));
  assert.doesNotThrow(() => SearchOutput.parse(research(input('灯塔看守人', 2))));
});
