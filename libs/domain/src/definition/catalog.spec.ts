import { STEP_TYPES, TRIGGER_TYPES } from '@app/contracts';
import { STEP_TYPE_CATALOG, TRIGGER_TYPE_CATALOG } from './catalog';
import { jsonSchemaProblem, schemaIssues } from './json-schema';
import { STEP_SCHEMAS, TRIGGER_SCHEMAS } from './step-schemas';

type Schema = { properties: Record<string, Record<string, unknown>>; required?: string[]; additionalProperties?: boolean };

describe('STEP_TYPE_CATALOG', () => {
  it('lists every step type once, named and described, with the schema the validator applies', () => {
    expect(STEP_TYPE_CATALOG.map((entry) => entry.type)).toEqual([...STEP_TYPES]);
    for (const entry of STEP_TYPE_CATALOG) {
      expect(entry.name).not.toHaveLength(0);
      expect(entry.description).not.toHaveLength(0);
      expect(entry.schema).toBe(STEP_SCHEMAS[entry.type]);
    }
  });

  it.each([...STEP_TYPES])('gives %s a valid JSON Schema with the common fields and no unknown ones', (type) => {
    const schema = STEP_SCHEMAS[type] as unknown as Schema;
    expect(jsonSchemaProblem(schema)).toBeNull();
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['uuid', 'type', 'name', 'description', 'retry_policy']));
    expect(schema.properties.type).toEqual({ const: type });
    expect(schema.required).toContain('name');
    expect(JSON.stringify(schema)).not.toContain('$ref');
  });

  it('requires what each type needs and documents the defaults the parser fills in', () => {
    const props = (type: keyof typeof STEP_SCHEMAS) => (STEP_SCHEMAS[type] as unknown as Schema).properties;
    expect((STEP_SCHEMAS.custom_llm as unknown as Schema).required).toEqual(['name', 'model', 'system_prompt']);
    expect((STEP_SCHEMAS.custom_agent as unknown as Schema).required).toEqual(['name', 'model', 'system_prompt']);
    expect((STEP_SCHEMAS.stop_checker as unknown as Schema).required).toEqual(['name', 'stop_conditions']);
    expect(props('custom_llm').description.default).toBe('');
    expect(props('custom_agent').tools.default).toEqual([]);
    expect(props('custom_agent').max_iterations.default).toBe(10);
    expect(props('custom_llm').max_correction_attempts.default).toBe(2);
    expect(props('custom_agent').max_correction_attempts).toMatchObject({ minimum: 0, maximum: 10, default: 2 });
  });

  it('describes a form the validator agrees with', () => {
    const body = { type: 'custom_llm', name: 'n', model: 'm', system_prompt: 'p' };
    expect(schemaIssues(STEP_SCHEMAS.custom_llm, body, '')).toEqual([]);
    expect(schemaIssues(STEP_SCHEMAS.custom_llm, { ...body, type: 'custom_agent' }, '')).toEqual([
      expect.objectContaining({ field: 'type' }),
    ]);
  });
});

describe('TRIGGER_TYPE_CATALOG', () => {
  it('lists manual, webhook and schedule with their schemas', () => {
    expect(TRIGGER_TYPE_CATALOG.map((entry) => entry.type)).toEqual([...TRIGGER_TYPES]);
    expect(TRIGGER_TYPE_CATALOG.map((entry) => entry.type)).toEqual(['manual', 'webhook', 'schedule']);
    for (const entry of TRIGGER_TYPE_CATALOG) {
      expect(entry.name).not.toHaveLength(0);
      expect(entry.description).not.toHaveLength(0);
      expect(entry.schema).toBe(TRIGGER_SCHEMAS[entry.type]);
    }
  });

  it.each([...TRIGGER_TYPES])('gives %s a valid schema with filter_rules and initial_data_description', (type) => {
    const schema = TRIGGER_SCHEMAS[type] as unknown as Schema;
    expect(jsonSchemaProblem(schema)).toBeNull();
    expect(schema.properties.filter_rules).toMatchObject({ type: 'object', default: {} });
    expect(schema.properties.initial_data_description).toMatchObject({ type: 'string', default: '' });
    expect(JSON.stringify(schema)).not.toContain('$ref');
  });
});
