import { DomainError, ErrorCode } from '../errors';
import { jsonSchemaErrors } from '../definition/json-schema';
import { exampleOf } from './schema-example';

describe(exampleOf.name, () => {
  const schemas = [
    {
      type: 'object',
      required: ['prices'],
      properties: {
        prices: {
          type: 'array',
          minItems: 2,
          items: {
            type: 'object',
            required: ['product', 'price'],
            properties: { product: { type: 'string', minLength: 20 }, price: { type: 'number', minimum: 1 } },
          },
        },
      },
    },
    {
      type: 'object',
      properties: {
        status: { enum: ['sent', 'no_alerts'] },
        count: { type: 'integer', maximum: 0 },
        saved: { type: 'boolean' },
        at: { type: 'string', format: 'date-time' },
        id: { type: 'string', format: 'uuid' },
      },
    },
    {
      allOf: [
        { type: 'object', properties: { summary: { type: 'string', maxLength: 5 } } },
        { type: 'object', required: ['next'], properties: { next: { enum: ['research', 'done'] } } },
      ],
    },
    { type: ['string', 'null'], pattern: '^dry' },
    { oneOf: [{ type: 'integer', exclusiveMinimum: 3 }, { type: 'string' }] },
  ];

  it.each(schemas.map((schema, i) => [i, schema]))('answers schema %i with a value it accepts, whatever the variant', (_i, schema) => {
    for (const variant of [0, 1, 5]) expect(jsonSchemaErrors(schema as object, exampleOf(schema, variant))).toEqual([]);
  });

  it('takes the n-th value of an enum and varies free text with the variant', () => {
    const route = { type: 'object', properties: { next: { enum: ['research', 'done'] }, note: { type: 'string' } } };
    expect(exampleOf(route, 0)).toEqual({ next: 'research', note: 'dry run 0' });
    expect(exampleOf(route, 1)).toEqual({ next: 'done', note: 'dry run 1' });
  });

  it('refuses, within its byte budget, a schema whose smallest value is gigabytes (the dry run that killed the worker)', () => {
    const gigabytes = { type: 'array', minItems: 1e9, items: { type: 'array', minItems: 1e9, items: { type: 'string', minLength: 1e9 } } };
    expect(() => exampleOf(gigabytes)).toThrow(
      new DomainError(ErrorCode.SchemaTooLarge, "the schema's smallest value passes 262144 bytes (EXAMPLE_MAX_BYTES)", { limit: 262_144 }),
    );
    expect(() => exampleOf({ type: 'string', minLength: 300 }, 0, 256)).toThrow(DomainError);
  });

  it('counts every item of an array whose items have an empty allOf (the property spec found 4,099 bytes made for 4,096)', () => {
    const schema = { type: 'array', minItems: 1366, items: { allOf: [] } };
    for (const budget of [4096, 64 * 1024]) {
      let made: unknown;
      try {
        made = exampleOf(schema, 0, budget);
      } catch (error) {
        expect((error as DomainError).code).toBe(ErrorCode.SchemaTooLarge);
        continue;
      }
      expect(JSON.stringify(made).length).toBeLessThanOrEqual(budget);
    }
  });

  it('drops what is optional when everything would not fit, keeping a value the schema accepts', () => {
    const schema = {
      type: 'object',
      required: ['id'],
      properties: {
        id: { type: 'string', minLength: 3 },
        notes: { type: 'array', minItems: 1000, items: { type: 'string' } },
        tags: { type: 'array', items: { type: 'string' } },
      },
    };
    const example = exampleOf(schema, 0, 1024);
    expect(example).toEqual({ id: '...' });
    expect(jsonSchemaErrors(schema, example)).toEqual([]);
  });

  it('never pads a string past its maxLength, however large its minLength', () => {
    expect(exampleOf({ type: 'string', minLength: 2 ** 31, maxLength: 4 })).toBe('dry ');
  });
});
