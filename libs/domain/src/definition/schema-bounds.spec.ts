import { ErrorCode } from '../errors';
import { jsonSchemaErrors, userSchemaProblem } from './json-schema';
import { parseStep, parseWorkflowInput } from './parse';
import { SCHEMA_LIMITS } from './schema-bounds';
import { parseToolInput } from '../tools/parse-tool';

/** Arrays of `levels` levels, each of at least `minItems`, around a string of at least `minLength`. */
const nested = (levels: number, minItems: number, minLength: number): object =>
  Array.from({ length: levels }).reduce<object>((inner) => ({ type: 'array', minItems, items: inner }), { type: 'string', minLength });

const laughs = (levels: number) => ({
  definitions: Object.fromEntries([
    ['a0', { type: 'string' }],
    ...Array.from({ length: levels }, (_, i) => [
      `a${i + 1}`,
      { allOf: [{ $ref: `#/definitions/a${i}` }, { $ref: `#/definitions/a${i}` }] },
    ]),
  ]),
  $ref: `#/definitions/a${levels}`,
});

describe(userSchemaProblem.name, () => {
  it.each([
    [
      'an object of required fields',
      {
        type: 'object',
        required: ['a', 'b'],
        properties: { a: { type: 'string', minLength: 20 }, b: { type: 'array', minItems: 3, items: { type: 'integer' } } },
      },
    ],
    [
      'a tree whose children are optional',
      { type: 'object', required: ['name'], properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } } },
    ],
    [
      'a list that may end',
      {
        $defs: {
          node: { anyOf: [{ type: 'null' }, { type: 'object', required: ['next'], properties: { next: { $ref: '#/$defs/node' } } }] },
        },
        $ref: '#/$defs/node',
      },
    ],
    [
      'references by $id and $anchor',
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: 'https://example.com/root',
        $defs: { a: { $id: 'a', type: 'string' }, b: { $anchor: 'bee', type: 'integer' } },
        properties: { x: { $ref: 'a' }, y: { $ref: '#bee' } },
      },
    ],
    ['draft-07 anchors', { definitions: { a: { $id: '#a', type: 'string' } }, properties: { x: { $ref: '#a' } } }],
    [
      'uniqueItems over scalars, or few items',
      {
        type: 'object',
        properties: {
          tags: { type: 'array', uniqueItems: true, items: { type: 'string' } },
          pairs: { type: 'array', uniqueItems: true, maxItems: 50, items: { type: 'object' } },
        },
      },
    ],
    [
      'a schema referenced twice side by side',
      { definitions: { a: { type: 'string' } }, allOf: [{ $ref: '#/definitions/a' }, { $ref: '#/definitions/a' }] },
    ],
    ['11 levels of doubled references', laughs(11)],
    // 21,845 empty strings: 2 + 21,844 commas + 21,845 x 2 quotes = 65,536 bytes.
    ['a smallest instance of exactly the bound', nested(1, 21_845, 0)],
  ])('accepts %s', (_what, schema) => expect(userSchemaProblem(schema)).toBeNull());

  it.each([
    [
      'nested minItems and minLength: a terabyte',
      nested(3, 1000, 1000),
      'has a smallest valid instance of about 1003002002001 bytes, over 65536',
    ],
    ['three bytes over the bound', nested(1, 21_846, 0), 'has a smallest valid instance of about 65539 bytes, over 65536'],
    [
      'a property that must hold itself',
      { type: 'object', required: ['self'], properties: { self: { $ref: '#' } } },
      'has no valid instance of finite size',
    ],
    [
      'a reference that loops on the same value',
      { allOf: [{ $ref: '#' }] },
      'has a reference # that loops back to itself without going into a part of the value',
    ],
    [
      'two references that loop',
      { definitions: { a: { $ref: '#/definitions/b' }, b: { anyOf: [{ $ref: '#/definitions/a' }] } }, $ref: '#/definitions/a' },
      'has a reference #/definitions/a that loops back to itself without going into a part of the value',
    ],
    [
      '20 levels of doubled references',
      laughs(20),
      `checks a value against more than ${SCHEMA_LIMITS.evaluations} schemas once its references are followed`,
    ],
    ['a huge enum', { enum: Array.from({ length: 1001 }, (_, i) => i) }, 'has an enum of 1001 values, over 1000'],
    ['deep nesting', nested(40, 1, 1), 'nests deeper than 24 levels'],
    ['many schemas', { anyOf: Array.from({ length: 500 }, () => ({ type: 'string' })) }, 'has more than 500 schemas in it'],
    [
      'uniqueItems over objects',
      { type: 'array', uniqueItems: true, items: { type: 'object' } },
      'has uniqueItems over items that may be objects or arrays (each pair is compared): give the items a scalar type, or a maxItems of at most 500',
    ],
    [
      'a required property that takes no value',
      { type: 'object', required: ['a'], properties: { a: false } },
      'has no valid instance of finite size',
    ],
  ])('refuses %s with SCHEMA_TOO_LARGE', (_what, schema, message) =>
    expect(userSchemaProblem(schema)).toEqual({ code: ErrorCode.SchemaTooLarge, message }),
  );

  it('refuses what is not JSON Schema, or refers outside itself, with INVALID_OUTPUT_SCHEMA', () => {
    expect(userSchemaProblem({ type: 'strnig' })?.code).toBe(ErrorCode.InvalidOutputSchema);
    expect(userSchemaProblem([])).toEqual({ code: ErrorCode.InvalidOutputSchema, message: 'must be a JSON Schema object' });
    expect(userSchemaProblem({ $ref: 'https://example.com/elsewhere.json' })?.code).toBe(ErrorCode.InvalidOutputSchema);
  });

  it("holds a schema to the operator's limits when they are given (the SCHEMA_* settings), down to the save's field", () => {
    const lowered = { ...SCHEMA_LIMITS, smallestInstanceBytes: 100, enumValues: 3, depth: 4 };
    const wordy = { type: 'string', minLength: 200 };
    expect(userSchemaProblem(wordy)).toBeNull();
    expect(userSchemaProblem(wordy, lowered)).toEqual({
      code: ErrorCode.SchemaTooLarge,
      message: 'has a smallest valid instance of about 202 bytes, over 100',
    });
    expect(userSchemaProblem({ enum: [1, 2, 3, 4] }, lowered)?.message).toBe('has an enum of 4 values, over 3');
    expect(userSchemaProblem(nested(4, 1, 1), lowered)?.message).toBe('nests deeper than 4 levels');
    const step = { type: 'custom_llm', name: 'a', model: 'm', system_prompt: 'p', output_schema: wordy };
    expect(() => parseStep(step, '', () => 'u', lowered)).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'output_schema' }) }),
    );
    expect(() => parseWorkflowInput({ name: 'w', steps: [step] }, () => 'u', '', lowered)).toThrow(
      expect.objectContaining({ code: ErrorCode.SchemaTooLarge, details: expect.objectContaining({ field: 'steps[0].output_schema' }) }),
    );
    expect(parseWorkflowInput({ name: 'w', steps: [step] }, () => 'u').steps).toHaveLength(1);
    const tool = { name: 't', description: 'd', parameters: wordy, endpoint_url: 'https://example.com' };
    expect(() => parseToolInput(tool, lowered)).toThrow(expect.objectContaining({ details: { field: 'parameters' } }));
  });

  it('validates with the compiled schema it kept, the same as a fresh one', () => {
    const schema = { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } };
    expect(jsonSchemaErrors(schema, { a: 'x' })).toEqual(['a must be integer']);
    expect(jsonSchemaErrors(structuredClone(schema), { a: 1 })).toEqual([]);
    expect(jsonSchemaErrors(schema, {})).toEqual(['a is required']);
  });
});
