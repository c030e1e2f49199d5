import { STEP_TYPES } from '@app/contracts';
import { schemaIssues } from './json-schema';
import { STEP_SCHEMAS } from './step-schemas';
import { stepTypeDetails } from './step-type-details';

type Schema = { properties: Record<string, object> };

describe('stepTypeDetails', () => {
  it.each([...STEP_TYPES])('describes every field of %s with an example its own schema accepts', (type) => {
    const details = stepTypeDetails(type)!;
    const properties = (STEP_SCHEMAS[type] as unknown as Schema).properties;
    expect(details.fields.map((field) => field.name)).toEqual(Object.keys(properties));
    for (const field of details.fields) {
      expect(field.example).toBeDefined();
      expect(schemaIssues(properties[field.name], field.example, field.name)).toEqual([]);
    }
  });

  it.each([...STEP_TYPES])('gives %s an example step the validator accepts', (type) => {
    const { example } = stepTypeDetails(type)!;
    expect(example.type).toBe(type);
    expect(schemaIssues(STEP_SCHEMAS[type], example, 'step')).toEqual([]);
  });

  it('names types, required fields, enum values and defaults as the schema has them', () => {
    const fields = Object.fromEntries(stepTypeDetails('custom_llm')!.fields.map((field) => [field.name, field]));
    expect(fields.type).toMatchObject({ type: 'const', required: true, enum_values: ['custom_llm'], example: 'custom_llm' });
    expect(fields.model).toMatchObject({ type: 'string', required: true, title: 'Model' });
    expect(fields.max_correction_attempts).toMatchObject({ type: 'integer|null', required: false, default: 2 });
    expect(fields.description).toMatchObject({ default: '' });
    const stop = Object.fromEntries(stepTypeDetails('stop_checker')!.fields.map((field) => [field.name, field]));
    expect(stop.stop_conditions).toMatchObject({ type: 'array', required: true });
    const human = Object.fromEntries(stepTypeDetails('human_input')!.fields.map((field) => [field.name, field]));
    expect(human.default).toMatchObject({ type: 'any', required: false });
    expect(human.default).not.toHaveProperty('default');
  });

  it('knows no type it does not have', () => {
    expect(stepTypeDetails('TRIGGER')).toBeNull();
  });
});
