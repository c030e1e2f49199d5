// A request body as one JSON Schema: the one validator (schemaIssues) checks it, the OpenAPI document shows it
// (toOpenApi, under `name`), and `parse` hands the route what it reads from it. Nothing ties the two by hand.
import { throwIssues } from './definition/issues';
import { schemaIssues } from './definition/json-schema';

export type JsonSchema = Record<string, unknown>;

export interface RequestBody<T> {
  /** The body's component in the OpenAPI document. */
  readonly name: string;
  readonly schema: JsonSchema;
  /** Whether a request must carry a body: not when an absent one reads as `{}` and the schema takes that. */
  readonly required: boolean;
  /** The body checked against `schema` (VALIDATION_FAILED naming the first field that breaks it, every issue in details), then read. */
  parse(body: unknown): T;
}

export interface RequestBodyOptions {
  /** An absent body reads as `{}`, so that the schema names the field it misses (or takes it, when nothing is required). */
  absentIsEmpty?: boolean;
}

/** `read` takes a body that passed the schema: what a schema cannot say (storable JSON, defaults) goes there. */
export function requestBody<T = Record<string, unknown>>(
  name: string,
  schema: JsonSchema,
  read: (body: Record<string, unknown>) => T = (body) => body as T,
  options: RequestBodyOptions = {},
): RequestBody<T> {
  const absentIsEmpty = options.absentIsEmpty ?? false;
  const required = !absentIsEmpty || (Array.isArray(schema.required) && schema.required.length > 0);
  return {
    name,
    schema,
    required,
    parse(body: unknown): T {
      const given = absentIsEmpty ? (body ?? {}) : body;
      throwIssues(schemaIssues(schema, given, ''));
      return read(given as Record<string, unknown>);
    },
  };
}
