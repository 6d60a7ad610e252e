/**
 * How deep JSON text nests, counted on the text itself, without parsing it: a scan that follows
 * strings (so brackets inside them do not count) and stops at the first bracket past the limit.
 * It runs before JSON.parse, whose time and memory a deeply nested body would otherwise spend.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON text (UTF-8 bytes, or a string) opens more than `maxDepth` arrays and objects
 * inside one another. Text that is not JSON may be counted wrongly; JSON.parse refuses it after.
 * Inside a string the scan jumps from quote to quote (indexOf runs natively, and most of a large
 * body is string); outside, it compares character codes, one plain loop for bytes and one for strings.
 */
export function jsonDepthExceeds(text: Uint8Array | string, maxDepth: number): boolean {
  return typeof text === 'string' ? stringTooDeep(text, maxDepth) : bytesTooDeep(Buffer.from(text.buffer, text.byteOffset, text.byteLength), maxDepth);
}

function bytesTooDeep(text: Buffer, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as number;
    if (c === QUOTE) {
      i = bytesStringEnd(text, i + 1);
      if (i < 0) return false;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

function stringTooDeep(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = textStringEnd(text, i + 1);
      if (i < 0) return false;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

/**
 * Where the string that starts at `from` ends (its closing quote), or -1 when it does not: a quote
 * with an odd run of backslashes before it is escaped. (In UTF-8 no byte of a longer character is a
 * quote or a backslash.) One function per kind of text, so each stays monomorphic.
 */
function bytesStringEnd(text: Buffer, from: number): number {
  for (let at = text.indexOf(QUOTE, from); at >= 0; at = text.indexOf(QUOTE, at + 1)) {
    let before = at - 1;
    while (before >= from && text[before] === BACKSLASH) before -= 1;
    if ((at - 1 - before) % 2 === 0) return at;
  }
  return -1;
}

function textStringEnd(text: string, from: number): number {
  for (let at = text.indexOf('"', from); at >= 0; at = text.indexOf('"', at + 1)) {
    let before = at - 1;
    while (before >= from && text.charCodeAt(before) === BACKSLASH) before -= 1;
    if ((at - 1 - before) % 2 === 0) return at;
  }
  return -1;
}

/**
 * The same for a request body as body-parser hands it over: UTF-8 bytes are scanned as they are,
 * another charset (JSON may be sent as UTF-16) is decoded first; one Node cannot decode is left to
 * the check after parsing.
 */
export function jsonTextTooDeep(raw: Buffer, encoding: string, maxDepth: number): boolean {
  const charset = encoding.toLowerCase();
  if (charset === 'utf-8' || charset === 'utf8') return jsonDepthExceeds(raw, maxDepth);
  let text: string;
  try {
    text = new TextDecoder(charset).decode(raw);
  } catch {
    return false;
  }
  return jsonDepthExceeds(text, maxDepth);
}
