/**
 * JSON values of every type, and contexts `{input, steps, run_id, item, index}` made of them, for
 * the property test of plain-jsonata.ts. Objects' keys come from FIELDS (fieldKey), the alphabet the
 * generated expressions' paths use, so that most paths reach a real field.
 */
import fc from 'fast-check';

/** The fields of every object in a generated context: where a path goes on. */
export const FIELDS = ['a', 'b', 'title', 'n'] as const;
/** A field's name: one of FIELDS, now and then one that JavaScript's objects have already (JSON data can hold them). */
export const fieldKey = fc.oneof({ arbitrary: fc.constantFrom(...FIELDS), weight: 15 }, fc.constantFrom('__proto__', 'constructor'));
/** Strings in contexts and in expressions: empty, blank, padded, unicode, a field's name, a `$`. */
export const STRINGS = ['', ' ', 'a', 'b', 'title', 's1', 'Émile 🌊 wave', '  padded  text ', '$0', 'x\ny', 'TiTle'];

/**
 * JSON values of every type (numbers negative, fractional, past 2^53; strings empty, unicode;
 * arrays and objects empty and nested), nested at most `maxDepth` deep.
 * @param maxDepth how deep arrays and objects nest (default 3)
 */
export function jsonArbitrary(maxDepth = 3): fc.Arbitrary<unknown> {
  const number = fc.oneof(
    { arbitrary: fc.integer({ min: -3, max: 10 }), weight: 4 },
    // Past 15 significant digits JSONata's strings of numbers differ from JavaScript's.
    fc.constantFrom(0.5, -2.5, 0.1, 1e21, 2 ** 53, 1e-7, -0, 123.456, 1e300, 1 / 3, 0.1 + 0.2, 123456789012345680000),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
  const string = fc.oneof({ arbitrary: fc.constantFrom(...STRINGS, ...FIELDS), weight: 4 }, fc.string({ unit: 'grapheme', maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 3 }));
  const { value } = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
    object: fc.dictionary(fieldKey, tie('value'), { maxKeys: 4 }),
    value: fc.oneof(
      { maxDepth, depthSize: 'small', withCrossShrink: true, depthIdentifier: 'json-value' },
      { arbitrary: fc.constant(null), weight: 1 },
      { arbitrary: fc.boolean(), weight: 1 },
      { arbitrary: number, weight: 4 },
      { arbitrary: string, weight: 4 },
      { arbitrary: fc.array(tie('value'), { maxLength: 3 }), weight: 2 },
      { arbitrary: tie('object'), weight: 3 },
      // A list of records (a step's sections, a search's results): what paths map over.
      { arbitrary: fc.array(tie('object'), { minLength: 2, maxLength: 4 }), weight: 2 },
    ),
  }));
  return value;
}

/** An object of FIELDS (some of them), as `input` and `steps` are. */
const objectOfFields = (value: fc.Arbitrary<unknown>) => fc.dictionary(fieldKey, value, { minKeys: 1, maxKeys: 4 });

/** A context as a stage's expressions get it: `input`, `steps`, `run_id`, `item`, `index`. */
export function contextArbitrary(): fc.Arbitrary<Record<string, unknown>> {
  const value = jsonArbitrary();
  return fc.record(
    {
      input: fc.oneof({ arbitrary: objectOfFields(value), weight: 5 }, value),
      steps: fc.oneof({ arbitrary: objectOfFields(value), weight: 5 }, value),
      run_id: fc.constantFrom('r-1', ''),
      item: value,
      index: fc.nat(4),
    },
    { requiredKeys: ['input', 'steps', 'run_id'] },
  );
}
