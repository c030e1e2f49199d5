// Random, hostile JSON Schemas (huge minItems and minLength, nested and combined, references that loop,
// keywords of the wrong type): the one validator answers every one with a verdict, never exceeds its
// bound on the smallest instance without refusing, and exampleOf never writes past its byte budget. Each
// case is bounded by construction: a schema of a few dozen nodes, an example budget of a few KiB (the
// budget is counted before anything is allocated, so a case cannot take more memory than that).
import fc from 'fast-check';
import { DomainError, ErrorCode } from '../errors';
import { exampleOf } from '../outputs/schema-example';
import { userSchemaProblem } from './json-schema';
import { SCHEMA_LIMITS } from './schema-bounds';
import { SchemaIndex } from './schema-refs';
import { smallestInstanceBytes } from './smallest-instance';

const size = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 2000 }), fc.constantFrom(1e6, 1e9, 2 ** 31, 1e300));
const json = fc.jsonValue({ maxDepth: 2 });
const garbage = fc.constantFrom<unknown>('x', -1, null, [], 1.5, true);

const { schema } = fc.letrec<{ schema: unknown; node: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.boolean(),
    tie('node'),
    fc.constantFrom({ $ref: '#' }, { $ref: '#/definitions/d' }, { allOf: [{ $ref: '#' }] }),
  ),
  node: fc.oneof(
    { depthSize: 'small' },
    fc.record(
      {
        type: fc.constantFrom('string', undefined),
        minLength: size,
        maxLength: fc.option(size, { nil: undefined }),
        format: fc.constantFrom(undefined, 'date-time', 'uuid'),
      },
      { requiredKeys: ['minLength'] },
    ),
    fc.record(
      {
        type: fc.constantFrom('integer', 'number', 'boolean', 'null', ['string', 'null']),
        minimum: fc.option(fc.double(), { nil: undefined }),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record({ const: json }),
    fc.record({ enum: fc.array(json, { minLength: 1, maxLength: 5 }) }),
    fc.record(
      { type: fc.constantFrom('array', undefined), minItems: fc.oneof(size, garbage), items: tie('schema'), uniqueItems: fc.boolean() },
      { requiredKeys: ['items'] },
    ),
    fc
      .record({
        type: fc.constantFrom('object', undefined),
        properties: fc.dictionary(fc.string({ maxLength: 5 }), tie('schema'), { maxKeys: 4 }),
        minProperties: fc.oneof(size, garbage),
        extra: fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
      })
      .map(({ properties, extra, ...rest }) => ({
        ...rest,
        properties,
        required: [...Object.keys(properties).filter((_, i) => i % 2 === 0), ...extra],
      })),
    fc.record({ allOf: fc.array(tie('schema'), { maxLength: 3 }) }),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }), default: fc.option(json, { nil: undefined }) }),
  ),
}));

/** A schema at the root, with a definition its references may name; as JSON, since that is what users send. */
const rootSchema = fc
  .tuple(schema, schema)
  .map(
    ([root, definition]) =>
      JSON.parse(JSON.stringify(root !== null && typeof root === 'object' ? { ...root, definitions: { d: definition } } : root)) as unknown,
  );

describe('user schemas, at random', () => {
  it('are accepted only when their smallest instance is within the bound, and otherwise refused with a code', () => {
    fc.assert(
      fc.property(rootSchema, (candidate) => {
        const problem = userSchemaProblem(candidate);
        if (problem) {
          expect([ErrorCode.InvalidOutputSchema, ErrorCode.SchemaTooLarge]).toContain(problem.code);
          expect(problem.message).toEqual(expect.any(String));
          return;
        }
        expect(smallestInstanceBytes(candidate, new SchemaIndex(candidate))).toBeLessThanOrEqual(SCHEMA_LIMITS.smallestInstanceBytes);
      }),
      { numRuns: 150 },
    );
  });

  it('never make exampleOf write past its byte budget: it answers within it or refuses with SCHEMA_TOO_LARGE', () => {
    fc.assert(
      fc.property(rootSchema, fc.nat(20), fc.constantFrom(64, 1024, 4096), (candidate, variant, budget) => {
        let example: unknown;
        try {
          example = exampleOf(candidate, variant, budget);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe(ErrorCode.SchemaTooLarge);
          return;
        }
        expect(JSON.stringify(example).length).toBeLessThanOrEqual(budget);
      }),
      { numRuns: 1000 },
    );
  });
});
