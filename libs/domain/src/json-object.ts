// The check every request body (and every object inside one) starts with: a JSON object, not null, an
// array or a scalar. One place, so each route refuses the wrong shape with the same code and field.
import { DomainError, ErrorCode } from './errors';

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export interface JsonObjectRule {
  /** Where the value stands in the request (`steps[2]`, `arguments`; '' or none: the body itself): the message and `details.field` name it. */
  field?: string;
  /** What the object should hold, said after "must be a JSON object": `with an optional trigger_output`. */
  holding?: string;
  /** A key the object cannot go without: missing, it is refused like a wrong shape, on that key's field. */
  requiredKey?: string;
  code?: ErrorCode;
}

/** `value` as an object, or a DomainError (VALIDATION_FAILED unless `code` says otherwise) naming the field. */
export function requireJsonObject(value: unknown, rule: JsonObjectRule = {}): Record<string, unknown> {
  const { holding, requiredKey, code = ErrorCode.ValidationFailed } = rule;
  if (isJsonObject(value) && (requiredKey === undefined || requiredKey in value)) return value;
  const field = rule.field || 'body';
  const message = `${field} must be a JSON object${holding ? ` ${holding}` : ''}`;
  throw new DomainError(code, message, { field: requiredKey ?? field });
}
