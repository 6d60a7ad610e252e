/**
 * Malformed requests a JSON endpoint must refuse with a 4xx and the error shape, never a 5xx:
 * broken and hostile bodies, encodings that lie, nesting no stack survives, strings that are no
 * text, and values of the wrong kind. Every body here is invalid for every JSON endpoint of the
 * project, so sending them all must leave Redis as it was. Used by tests and by `npm run chaos`.
 */
import { gzipSync } from 'node:zlib';

export interface MalformedRequest {
  name: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

const json = { 'content-type': 'application/json' };
const nested = (depth: number, open: string, close: string, inner = '1') => open.repeat(depth) + inner + close.repeat(depth);

/** At least 40 bodies for a POST to a JSON endpoint. */
export function malformedBodies(): MalformedRequest[] {
  const cases: [string, Record<string, string>, string | Uint8Array | undefined][] = [
    ['no body and no content type', {}, undefined],
    ['an empty JSON body', json, ''],
    ['plain text', { 'content-type': 'text/plain' }, 'a story please'],
    ['form data', { 'content-type': 'application/x-www-form-urlencoded' }, 'topic=x'],
    ['XML', { 'content-type': 'application/xml' }, '<topic>x</topic>'],
    ['truncated JSON', json, '{"topic": "x"'],
    ['JSON with trailing garbage', json, '{"topic": 1} trailing'],
    ['JSON with a comment', json, '{/* hi */ "topic": 1}'],
    ['single quotes', json, "{'topic': 'x'}"],
    ['NaN', json, '{"topic": NaN}'],
    ['null', json, 'null'],
    ['a number', json, '42'],
    ['a string', json, '"topic"'],
    ['true', json, 'true'],
    ['an empty array', json, '[]'],
    ['an empty object', json, '{}'],
    ['gzip declared, plain sent', { ...json, 'content-encoding': 'gzip' }, '{"topic": 1}'],
    ['deflate declared, junk sent', { ...json, 'content-encoding': 'deflate' }, 'not deflate at all'],
    ['an unknown encoding', { ...json, 'content-encoding': 'br2' }, '{"topic": 1}'],
    ['gzip of invalid JSON', { ...json, 'content-encoding': 'gzip' }, gzipSync('{"topic": ')],
    ['gzip of a number', { ...json, 'content-encoding': 'gzip' }, gzipSync('42')],
    ['a charset JSON is never sent in', { 'content-type': 'application/json; charset=utf-7' }, '{"topic": 1}'],
    ['bytes that are not UTF-8', json, new Uint8Array([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ['100,000 nested arrays', json, `{"topic": 1, "analysis": ${nested(100_000, '[', ']')}}`],
    ['100,000 nested arrays at the top', json, nested(100_000, '[', ']')],
    ['10,000 nested objects', json, `{"topic": 1, "x": ${nested(10_000, '{"a":', '}')}}`],
    ['65 nested arrays', json, `{"topic": 1, "x": ${nested(65, '[', ']')}}`],
    ['a NUL-only topic without items', json, '{"topic": "\\u0000", "items": 1, "project": 1}'],
    ['a NUL inside a string', json, '{"topic": "a\\u0000b", "items": 1, "project": 1}'],
    ['a lone high surrogate', json, '{"topic": "\\ud800", "items": 1, "project": 1}'],
    ['a lone low surrogate', json, '{"topic": "x\\udc00y", "items": 1, "project": 1}'],
    ['a lone surrogate in a key', json, '{"\\ud800": 1}'],
    ['a NUL in a key', json, '{"a\\u0000": 1}'],
    ['a number where text belongs', json, '{"topic": 12, "items": "x", "project": "x", "section_name": 1, "draft": 1}'],
    ['null fields', json, '{"topic": null, "items": null, "project": null}'],
    ['arrays where objects belong', json, '{"topic": [], "items": {}, "project": []}'],
    ['a prototype pollution attempt', json, '{"__proto__": {"admin": true}}'],
    ['a constructor pollution attempt', json, '{"constructor": {"prototype": {"admin": true}}}'],
    ['a 1e400 number', json, '{"topic": 1e400, "items": 1e400}'],
    ['100,000 items of the wrong kind', json, `{"items": [${Array.from({ length: 100_000 }, () => '1').join(',')}]}`],
    ['a workspace that climbs out of the root', json, '{"project": {"name": "p", "workspace": "../../../tmp/x"}, "items": 1}'],
    ['an absolute workspace', json, '{"project": {"name": "p", "workspace": "/etc"}, "items": 1}'],
    ['a workspace that climbs midway', json, '{"project": {"name": "p", "workspace": "a/../../b"}, "items": 1}'],
    ['an empty topic', json, '{"topic": "", "items": [], "project": {}}'],
    ['a body over every limit (12 MB)', json, `{"topic": "${'x'.repeat(12 * 1024 * 1024)}"}`],
  ];
  return cases.map(([name, headers, body]) => ({ name, headers, body }));
}

/** Paths no route can make sense of, for GET and DELETE. */
export const malformedRunPaths = ['/v1/runs/%E0%A4%A', '/v1/runs/' + 'x'.repeat(5000), '/v1/runs/%00', '/v1/runs/..%2F..%2Fetc', '/v1/batches/%ZZ', '/v1/runs/run_x/events?limit=-1'];
