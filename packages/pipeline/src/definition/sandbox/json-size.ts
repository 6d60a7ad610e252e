/** A JSONata lambda or native function value: an object holding its environment, not data. */
export function isJsonataFunction(value: unknown): boolean {
  return typeof value === 'function' || (typeof value === 'object' && value !== null && ('_jsonata_lambda' in value || '_jsonata_function' in value));
}

/**
 * Whether a value's JSON stays within `limit` bytes, found without making the JSON: a string's
 * length is known at once even when it is a rope of a billion characters, which JSON.stringify
 * would flatten. Counts UTF-16 units as bytes, escapes as one: an estimate from below that is
 * exact for plain ASCII. Functions and undefined count as nothing, as JSON leaves them out.
 */
export function jsonFitsIn(value: unknown, limit: number): boolean {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') size += item.length + 2;
    else if (typeof item === 'number') size += 1;
    else if (typeof item === 'boolean') size += 4;
    else if (item === null) size += 4;
    else if (typeof item === 'object' && !isJsonataFunction(item)) {
      // A value reached twice is written twice, so it counts twice (and a cycle ends at the limit).
      if (Array.isArray(item)) {
        size += 1 + item.length;
        for (const inner of item) stack.push(inner);
      } else {
        for (const [key, inner] of Object.entries(item)) {
          size += key.length + 4;
          stack.push(inner);
        }
      }
    }
    if (size > limit) return false;
  }
  return true;
}
