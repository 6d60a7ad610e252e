/**
 * JSON text kept as text: a run's input and result are stored as JSON, and a reader that only
 * sends them on (the API's run view, a listing with `fields`) need not parse them and write them
 * out again, which for a result of megabytes costs more than the rest of the request.
 */
import { randomUUID } from 'node:crypto';

/** A value that is already JSON text; written as it is by stringifyWithRaw. */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * JSON.stringify, with every RawJson inside written as its text. The RawJson values become
 * placeholder strings no value can hold (a fresh random token), which are then replaced.
 */
export function stringifyWithRaw(value: unknown): string {
  const raws: string[] = [];
  const token = `sy-raw-${randomUUID()}-`;
  const text = JSON.stringify(value, (_key, item: unknown) => (item instanceof RawJson ? `${token}${raws.push(item.text) - 1}` : item)) ?? 'null';
  if (raws.length === 0) return text;
  return text.replace(new RegExp(`"${token}(\\d+)"`, 'g'), (_match, index: string) => raws[Number(index)] ?? 'null');
}

/** The bytes `value` takes in stringifyWithRaw's text, its RawJson parts counted by their text. */
export function rawJsonBytes(value: unknown): number {
  let raw = 0;
  let count = 0;
  // Each RawJson is written as null (4 bytes) here, and counted by its own text instead.
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (!(item instanceof RawJson)) return item;
    raw += Buffer.byteLength(item.text);
    count += 1;
    return null;
  });
  return Buffer.byteLength(text ?? 'null') - 4 * count + raw;
}
