// ajv: validates request bodies against our own schemas (draft-07, compiled once), checks that
// user-supplied schemas (output_schema, input_schema, tool parameters) are valid JSON Schema within the
// bounds of schema-bounds.ts, and validates data against them. A user schema may declare draft-07 (the
// default), 2019-09 or 2020-12 in `$schema`.
import { createHash } from 'node:crypto';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ErrorCode } from '../errors';
import { linearRegExpEngine } from '../conditions/linear-regex';
import { fieldPath, type Issue } from './issues';
import { SCHEMA_LIMITS, schemaCostProblem, schemaShapeProblem, type SchemaLimits, type SchemaProblem } from './schema-bounds';

// Every `pattern` runs in RE2 (linear time), ours and users' alike.
const options = () => ({ allErrors: true, strict: false, code: { regExp: linearRegExpEngine } });
// Ours take a uuid in its plain 36-character form only: ajv-formats also takes `urn:uuid:...`, which no
// CHAR(36) column holds.
const ajv = addFormats(new Ajv(options())).addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);

const compiled = new Map<object, ValidateFunction>();

/** `/steps/2/name` -> `steps[2].name`. */
function pointerToField(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
}

function explain(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'pattern':
      return params.pattern === '\\S' ? 'must not be blank' : `must match the pattern ${String(params.pattern)}`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must have at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `must have at most ${String(params.limit)} characters`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'format':
      return `must be a valid ${String(params.format)}`;
    default:
      return error.message ?? 'is invalid';
  }
}

function toIssue(error: ErrorObject, prefix: string): Issue {
  const at = pointerToField(error.instancePath);
  if (error.keyword === 'required') {
    const field = fieldPath(prefix, fieldPath(at, (error.params as { missingProperty: string }).missingProperty));
    return { code: ErrorCode.ValidationFailed, field, message: `${field} is required` };
  }
  if (error.keyword === 'additionalProperties') {
    const field = fieldPath(prefix, fieldPath(at, (error.params as { additionalProperty: string }).additionalProperty));
    return { code: ErrorCode.ValidationFailed, field, message: `${field} is not a known field` };
  }
  const field = fieldPath(prefix, at) || 'body';
  return { code: ErrorCode.ValidationFailed, field, message: `${field} ${explain(error)}` };
}

/** How `value` breaks one of our schemas: a VALIDATION_FAILED issue per field, named under `prefix`. */
export function schemaIssues(schema: object, value: unknown, prefix: string): Issue[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return [];
  // One issue per field: '' breaks both minLength and the not-blank pattern, and saying so twice is noise.
  const byField = new Map<string, Issue>();
  for (const issue of (validate.errors ?? []).map((error) => toIssue(error, prefix)))
    if (!byField.has(issue.field)) byField.set(issue.field, issue);
  return [...byField.values()];
}

const DRAFTS: Record<string, () => Ajv> = {
  'http://json-schema.org/draft-07/schema': () => new Ajv(options()),
  'https://json-schema.org/draft/2019-09/schema': () => new Ajv2019(options()),
  'https://json-schema.org/draft/2020-12/schema': () => new Ajv2020(options()),
};

/** Validators of users' schemas kept, by the schema's text: compiling costs 0.1-0.7 ms a subschema. */
const COMPILED_USER_SCHEMAS = 100;
const compiledUser = new Map<string, ValidateFunction>();

/**
 * Compiles a user's schema with a throwaway ajv of the draft it declares (users' schemas may repeat an
 * `$id`, which a shared instance would refuse), or takes the one compiled last time. Throws when the
 * schema is not valid JSON Schema.
 */
function compileUserSchema(schema: object): ValidateFunction {
  const key = createHash('sha256').update(JSON.stringify(schema)).digest('base64');
  const cached = compiledUser.get(key);
  if (cached) {
    // Least recently used goes first: a hit moves to the end.
    compiledUser.delete(key);
    compiledUser.set(key, cached);
    return cached;
  }
  const declared = (schema as { $schema?: unknown }).$schema;
  const draft =
    typeof declared === 'string'
      ? declared.replace(/#$/, '').replace(/^https:\/\/json-schema\.org\/draft-07/, 'http://json-schema.org/draft-07')
      : undefined;
  const create = draft === undefined ? DRAFTS['http://json-schema.org/draft-07/schema'] : DRAFTS[draft];
  if (!create) throw new Error(`$schema ${String(declared)} is not supported (use draft-07, 2019-09 or 2020-12)`);
  const validate = addFormats(create()).compile(schema);
  compiledUser.set(key, validate);
  if (compiledUser.size > COMPILED_USER_SCHEMAS) compiledUser.delete(compiledUser.keys().next().value!);
  return validate;
}

/**
 * Null when `schema` is a usable JSON Schema within `limits` (the SCHEMA_* settings), else what is wrong: INVALID_OUTPUT_SCHEMA
 * for what is not JSON Schema, SCHEMA_TOO_LARGE for what would cost too much to compile, check or answer.
 * The bounds that protect ajv itself come before it compiles.
 */
export function userSchemaProblem(schema: unknown, limits: SchemaLimits = SCHEMA_LIMITS): SchemaProblem | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    return { code: ErrorCode.InvalidOutputSchema, message: 'must be a JSON Schema object' };
  const shape = schemaShapeProblem(schema, limits);
  if (shape) return shape;
  try {
    compileUserSchema(schema);
  } catch (error) {
    return { code: ErrorCode.InvalidOutputSchema, message: (error as Error).message };
  }
  return schemaCostProblem(schema, limits);
}

/** A problem as the end of a sentence naming the field: `output_schema is not a valid JSON Schema: ...`. */
export function schemaProblemText(problem: SchemaProblem): string {
  return problem.code === ErrorCode.SchemaTooLarge
    ? `is too large a JSON Schema: it ${problem.message}`
    : `is not a valid JSON Schema: ${problem.message}`;
}

/** Null when `schema` is a usable JSON Schema within `limits`, else why not. */
export function jsonSchemaProblem(schema: unknown, limits: SchemaLimits = SCHEMA_LIMITS): string | null {
  return userSchemaProblem(schema, limits)?.message ?? null;
}

/**
 * How `value` breaks a user's schema, e.g. `["price must be number"]` (`$` for the root); empty when it
 * conforms. Throws when the schema itself is not valid (check it first with jsonSchemaProblem).
 */
export function jsonSchemaErrors(schema: object, value: unknown): string[] {
  const validate = compileUserSchema(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) => {
    const at =
      error.keyword === 'required'
        ? fieldPath(pointerToField(error.instancePath), (error.params as { missingProperty: string }).missingProperty)
        : pointerToField(error.instancePath);
    return error.keyword === 'required' ? `${at} is required` : `${at || '$'} ${explain(error)}`;
  });
}
