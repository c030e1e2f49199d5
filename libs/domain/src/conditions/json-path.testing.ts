// Random JSON documents and JSONPaths for the property specs of conditions/: small documents of any shape,
// deep ones (up to the 31 levels a body may have) and wide ones (thousands of values), and paths drawn
// from every kind of segment the evaluator reads, each marked by whether jsonpath-plus reads it the same way.
import fc from 'fast-check';

const NAMES = ['a', 'b', 'c'];

/**
 * JSON whose `v` fields are never objects, so that a filter on `@.v` compares like for like in both engines,
 * and with no empty string (jsonpath-plus reads nothing beneath a falsy value: no `length` of '').
 */
export const document: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; primitive: unknown }>((tie) => ({
  primitive: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('x', 'ab', '2'), fc.boolean(), fc.constant(null)),
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('primitive'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.record({ a: tie('value'), b: tie('value'), c: tie('value'), v: tie('primitive') }, { requiredKeys: [] }),
  ),
})).value;

/** `{a: {a: ... }}` `depth` levels deep, each level with `width` more values beside it. */
export const deepDocument = fc
  .tuple(fc.integer({ min: 10, max: 31 }), fc.integer({ min: 0, max: 4 }))
  .map(([depth, width]) =>
    Array.from({ length: depth }).reduce<unknown>(
      (inner, _, level) => ({ a: inner, b: Array.from({ length: width }, (_, i) => ({ v: i + level })) }),
      { v: 0 },
    ),
  );

/** An array of up to 3,000 small objects. */
export const wideDocument = fc
  .integer({ min: 100, max: 3000 })
  .map((length) => ({ a: Array.from({ length }, (_, i) => ({ v: i % 7, b: [i] })) }));

export const anyDocument = fc.oneof(document, deepDocument, wideDocument);

const name = fc.constantFrom(...NAMES, 'v');
const filterTest = fc.oneof(
  fc.constantFrom(
    '@.v',
    '!@.v',
    '@.a',
    '!@.a.v',
    '@.v == 2',
    '@.v != "x"',
    '@.v === 1',
    '@.v > 0',
    '@.v <= -1',
    '@.v % 2 == 1',
    '-@.v < 0',
  ),
  fc.constantFrom(
    '@.v > 0 && @.v < 3',
    '@.v == null || @.a',
    '(@.v >= 1) && !(@.v == 3)',
    '@.a.length > 1',
    '@.b[0] == 1',
    "@['v'] == 'ab'",
  ),
);

/** One segment, and whether jsonpath-plus means the same by it (it has no negative indexes). */
const segment: fc.Arbitrary<{ text: string; shared: boolean }> = fc.oneof(
  name.map((key) => ({ text: `.${key}`, shared: true })),
  name.map((key) => ({ text: `['${key}']`, shared: true })),
  fc.integer({ min: 0, max: 3 }).map((index) => ({ text: `[${index}]`, shared: true })),
  fc.integer({ min: -3, max: -1 }).map((index) => ({ text: `[${index}]`, shared: false })),
  fc.constantFrom('.*', '[*]', '.length').map((text) => ({ text, shared: true })),
  fc.constantFrom('[0:2]', '[1:]', '[::-1]', '[-2:]', '[::2]', '[0,1]', "['a','b']").map((text) => ({ text, shared: true })),
  filterTest.map((test) => ({ text: `[?(${test})]`, shared: true })),
  fc.constant({ text: '[(@.length-1)]', shared: true }),
  fc.tuple(fc.constantFrom('..', '..'), name).map(([, key]) => ({ text: `..${key}`, shared: true })),
  fc.constantFrom('..*', '..[0]', '..[?(@.v)]').map((text) => ({ text, shared: true })),
);

export const jsonPath = fc
  .array(segment, { maxLength: 6 })
  .map((segments) => ({ text: `$${segments.map((s) => s.text).join('')}`, shared: segments.every((s) => s.shared) }));

/** Values in the document, containers and primitives alike. */
export function sizeOf(value: unknown): number {
  let size = 0;
  const stack = [value];
  while (stack.length) {
    const current = stack.pop();
    size++;
    if (current !== null && typeof current === 'object') stack.push(...Object.values(current));
  }
  return size;
}

/** Paths of every kind of segment the evaluator reads, which every check of a saved path accepts. */
export const VALID_PATHS = [
  '$',
  '$.a[0].b',
  '$..price',
  '$.alerts.length',
  '$["a b"]',
  "$['a']",
  '$.a[*]',
  '$.a[-1:]',
  '$.a[?(@.x > 1)]',
  '$.a[?(@.x.y == "z")]',
  '$.a[(@.length-1)]',
];
