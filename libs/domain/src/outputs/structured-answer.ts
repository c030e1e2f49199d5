// Structured output: a model's answer checked against the step's output_schema, and the message that asks
// the model to correct an answer that fails the check.
import { jsonSchemaErrors } from '../definition/json-schema';
import { parseJsonAnswer } from './json-answer';

/** Corrections asked for after the first answer when a step does not set max_correction_attempts. */
export const DEFAULT_MAX_CORRECTION_ATTEMPTS = 2;

export const NOT_JSON = 'the answer holds no JSON object or array';

export type StructuredAnswer = { ok: true; data: unknown } | { ok: false; errors: string[] };

/** The JSON in `text` (bare, fenced or in prose) if it follows `schema`, else what is wrong with it, field by field. */
export function checkStructuredAnswer(text: string | null, schema: object): StructuredAnswer {
  const data = parseJsonAnswer(text);
  if (data === undefined) return { ok: false, errors: [NOT_JSON] };
  const errors = jsonSchemaErrors(schema, data);
  return errors.length ? { ok: false, errors } : { ok: true, data };
}

/** The user message that sends a failed answer back: each problem on its own line, then what to do. */
export function correctionMessage(errors: string[]): string {
  return [
    'Your answer does not follow the required JSON Schema:',
    ...errors.map((error) => `- ${error}`),
    'Answer again with only the corrected JSON, following the schema exactly.',
  ].join('\n');
}
