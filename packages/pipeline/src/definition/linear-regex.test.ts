import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LinearRegExp } from './linear-regex.js';

/** What a match array holds, comparable between RegExp and LinearRegExp. */
const shape = (match: RegExpExecArray | null) => (match ? { all: [...match], index: match.index, input: match.input, groups: match.groups ? { ...match.groups } : undefined } : null);

/** Every match of a global exec loop, advancing past an empty match as callers of RegExp do. */
function execLoop(re: { exec(s: string): RegExpExecArray | null; lastIndex: number }, text: string) {
  const found: { match: ReturnType<typeof shape>; lastIndex: number }[] = [];
  for (let match = re.exec(text); match; match = re.exec(text)) {
    found.push({ match: shape(match), lastIndex: re.lastIndex });
    if (match[0] === '') re.lastIndex += 1;
  }
  return { found, lastIndexAfter: re.lastIndex };
}

test('exec answers what RegExp answers: index, input, capture groups (an unmatched one undefined) and named groups', () => {
  const cases: [string, string, string][] = [
    ['(a)(b)?c', '', 'xxacyabc'],
    ['(?<word>[a-z]+)-(?<num>\\d+)', '', 'id: abc-42 and x-7'],
    ['^b', 'm', 'a\nb'],
    ['a.c', 's', 'a\nc'],
    ['HELLO', 'i', 'say hello'],
    ['é+', 'u', 'café'],
    ['nothing', '', 'here'],
  ];
  for (const [source, flags, text] of cases) {
    assert.deepEqual(shape(new LinearRegExp(source, flags).exec(text)), shape(new RegExp(source, flags).exec(text)), `/${source}/${flags} on ${JSON.stringify(text)}`);
    assert.equal(new LinearRegExp(source, flags).test(text), new RegExp(source, flags).test(text));
  }
});

test('source, flags and the flag properties are those of the RegExp it was made from', () => {
  const re = new LinearRegExp(/a+b/gi);
  assert.deepEqual([re.source, re.flags, re.global, re.ignoreCase, re.multiline, re.sticky, String(re)], ['a+b', 'gi', true, true, false, false, '/a+b/gi']);
  assert.equal(new LinearRegExp('x', 'y').sticky, true);
});

test('a global exec loop finds every match with lastIndex moving on as RegExp does, and lastIndex is 0 after no match', () => {
  for (const [source, text] of [['\\d+', 'a1 b22 c333'], ['(\\w)(\\d)?', 'a1b c2'], ['x*', 'axxbx'], ['', 'abc'], ['😀|b', 'a😀b😀']] as const) {
    assert.deepEqual(execLoop(new LinearRegExp(source, 'g'), text), execLoop(new RegExp(source, 'g'), text), `/${source}/g on ${text}`);
  }
  const re = new LinearRegExp('b', 'g');
  re.lastIndex = 2;
  assert.equal(re.exec('abc'), null);
  assert.equal(re.lastIndex, 0, 'no match resets lastIndex');
  re.lastIndex = 10;
  assert.equal(re.exec('abc'), null, 'a lastIndex past the end matches nothing');
  assert.equal(re.lastIndex, 0);
});

test('JSONata\'s use as its RegexEngine: built from a RegExp, lastIndex set, then exec repeated with g', () => {
  // As jsonata's evaluateRegex does: a closure per match, `next` resuming from lastIndex.
  const matchesOf = (Engine: new (re: RegExp) => { lastIndex: number; exec(s: string): RegExpExecArray | null }, regex: RegExp, text: string) => {
    const re = new Engine(regex);
    const found: [string, number, string[]][] = [];
    let from = 0;
    for (;;) {
      re.lastIndex = from;
      const match = re.exec(text);
      if (!match) break;
      found.push([match[0], match.index, match.slice(1) as string[]]);
      if (re.lastIndex >= text.length || match[0] === '') break;
      from = re.lastIndex;
    }
    return found;
  };
  const regex = /(\w+)@(\w+)\.com/g;
  const text = 'mail ann@example.com, bob@test.com or cy@site.com.';
  assert.deepEqual(matchesOf(LinearRegExp, regex, text), matchesOf(RegExp, regex, text));
  assert.equal(matchesOf(LinearRegExp, regex, text).length, 3);
});

test('a sticky expression matches only at lastIndex', () => {
  const re = new LinearRegExp('b', 'y');
  assert.equal(re.exec('ab'), null);
  re.lastIndex = 1;
  assert.equal(re.exec('ab')?.index, 1);
  assert.equal(re.lastIndex, 2);
});

test('what RE2 cannot run in linear time is a SyntaxError naming it', () => {
  assert.throws(() => new LinearRegExp('(a)\\1'), (error: unknown) => error instanceof SyntaxError && /backreferences/.test(error.message));
  assert.throws(() => new LinearRegExp('a(?=b)'), (error: unknown) => error instanceof SyntaxError && /lookahead and lookbehind/.test(error.message));
  assert.throws(() => new LinearRegExp('(?<!a)b'), (error: unknown) => error instanceof SyntaxError && /lookahead and lookbehind/.test(error.message));
  assert.throws(() => new LinearRegExp('a', 'd'), (error: unknown) => error instanceof SyntaxError && /flag 'd'/.test(error.message));
  assert.throws(() => new LinearRegExp('(unclosed'), SyntaxError);
});

test('the pattern that makes RegExp backtrack for seconds answers at once', () => {
  const attack = `${'a'.repeat(26)}!`;
  const started = performance.now();
  assert.equal(new LinearRegExp('^(a+)+$', 'u').test(attack), false);
  assert.equal(new LinearRegExp('^(a|aa)+$').test('a'.repeat(20_000) + '!'), false);
  // RegExp takes seconds on the first alone; the bound leaves room for a loaded machine.
  assert.ok(performance.now() - started < 500, `took ${performance.now() - started} ms`);
});
