// ajv, compiled once: validates request bodies against the type schemas and checks that user-supplied
// output_schema / tool parameters are valid JSON Schema.
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { ErrorCode } from '../errors';
import { fieldPath, type Issue } from './issues';

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

const compiled = new Map<object, ReturnType<typeof ajv.compile>>();

function pointerToField(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
}

function toIssue(error: ErrorObject, prefix: string): Issue {
  const at = pointerToField(error.instancePath);
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    const field = fieldPath(prefix, fieldPath(at, missing));
    return { code: ErrorCode.ValidationFailed, field, message: `${field} is required` };
  }
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    const field = fieldPath(prefix, fieldPath(at, extra));
    return { code: ErrorCode.ValidationFailed, field, message: `${field} is not a known field` };
  }
  const field = fieldPath(prefix, at) || 'body';
  return { code: ErrorCode.ValidationFailed, field, message: `${field} ${error.message ?? 'is invalid'}` };
}

export function schemaIssues(schema: object, value: unknown, prefix: string): Issue[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => toIssue(e, prefix));
}

/** Null when `schema` is a usable JSON Schema, else why not. */
export function jsonSchemaProblem(schema: unknown): string | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'must be a JSON Schema object';
  try {
    // A throwaway instance: users' schemas may repeat an $id, which a shared cache would refuse.
    addFormats(new Ajv({ strict: false })).compile(schema as object);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
