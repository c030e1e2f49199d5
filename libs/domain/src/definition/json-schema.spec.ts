import { ErrorCode } from '../errors';
import { jsonSchemaErrors, jsonSchemaProblem, schemaIssues } from './json-schema';

describe(schemaIssues.name, () => {
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, pattern: '\\S' },
      items: { type: 'array', items: { type: 'object', properties: { 'a/b': { type: 'integer' } } } },
      kind: { enum: ['x', 'y'] },
      id: { type: 'string', format: 'uuid' },
    },
  };

  it('names each field as a path under the prefix', () => {
    expect(schemaIssues(schema, { name: 'n', items: [{}, { 'a/b': 'no' }], extra: 1 }, 'steps[0]')).toEqual([
      { code: ErrorCode.ValidationFailed, field: 'steps[0].extra', message: 'steps[0].extra is not a known field' },
      { code: ErrorCode.ValidationFailed, field: 'steps[0].items[1].a/b', message: 'steps[0].items[1].a/b must be integer' },
    ]);
  });

  it('says what is wrong in words, once per field', () => {
    const messages = (body: unknown) => schemaIssues(schema, body, '').map((issue) => issue.message);
    expect(messages({})).toEqual(['name is required']);
    expect(messages({ name: '' })).toEqual(['name must not be empty']);
    expect(messages({ name: '  ' })).toEqual(['name must not be blank']);
    expect(messages({ name: 'n', kind: 'z' })).toEqual(['kind must be one of "x", "y"']);
    expect(messages({ name: 'n', id: 'abc' })).toEqual(['id must be a valid uuid']);
  });

  it('names the body itself when it is the problem', () => {
    expect(schemaIssues(schema, 'text', '')).toEqual([expect.objectContaining({ field: 'body' })]);
  });
});

describe(jsonSchemaProblem.name, () => {
  it.each([
    [{ type: 'object', properties: { a: { type: 'string' } } }],
    [{}],
    [{ $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' }],
    [{ $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'string' }],
    [{ $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: { a: { type: 'string' } }, $ref: '#/$defs/a' }],
    [{ $id: 'https://example.com/same', type: 'string' }],
  ])('accepts %j', (schema) => {
    expect(jsonSchemaProblem(schema)).toBeNull();
  });

  it('accepts the same $id twice (each schema gets its own compiler)', () => {
    expect(jsonSchemaProblem({ $id: 'https://example.com/same' })).toBeNull();
    expect(jsonSchemaProblem({ $id: 'https://example.com/same' })).toBeNull();
  });

  it.each([
    ['not an object', 'string', 'must be a JSON Schema object'],
    ['an array', [], 'must be a JSON Schema object'],
    ['null', null, 'must be a JSON Schema object'],
    ['an unknown type', { type: 'bogus' }, 'schema is invalid'],
    ['a broken $ref', { $ref: '#/definitions/none' }, "can't resolve reference"],
    ['an unsupported draft', { $schema: 'http://json-schema.org/draft-04/schema#' }, 'is not supported'],
  ])('explains a schema that is %s', (_case, schema, problem) => {
    expect(jsonSchemaProblem(schema)).toContain(problem);
  });
});

describe(jsonSchemaErrors.name, () => {
  const schema = {
    type: 'object',
    required: ['price'],
    properties: { price: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
  };

  it('is empty for data that conforms', () => {
    expect(jsonSchemaErrors(schema, { price: 3, tags: ['a'] })).toEqual([]);
  });

  it('says where data breaks the schema', () => {
    expect(jsonSchemaErrors(schema, { tags: [1] })).toEqual(['price is required', 'tags[0] must be string']);
    expect(jsonSchemaErrors(schema, 'text')).toEqual(['$ must be object']);
  });

  it('throws for a schema that is not valid', () => {
    expect(() => jsonSchemaErrors({ type: 'bogus' }, {})).toThrow();
  });
});

describe('uuid fields', () => {
  it('take the plain 36-character form only', () => {
    const schema = { type: 'object', properties: { uuid: { type: 'string', format: 'uuid' } } };
    expect(schemaIssues(schema, { uuid: '6b0c1a52-3f0e-4a57-9d43-1a2b3c4d5e6f' }, '')).toEqual([]);
    expect(schemaIssues(schema, { uuid: 'urn:uuid:6b0c1a52-3f0e-4a57-9d43-1a2b3c4d5e6f' }, '')).toEqual([
      expect.objectContaining({ field: 'uuid' }),
    ]);
  });
});
