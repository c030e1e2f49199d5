import { DomainError, type ErrorCode } from '../errors';

export interface Issue {
  code: ErrorCode;
  message: string;
  field: string;
}

/** `steps[2]` + `name` -> `steps[2].name`; an empty prefix leaves the field as is. */
export function fieldPath(prefix: string, field: string): string {
  if (!prefix) return field;
  if (!field) return prefix;
  return field.startsWith('[') ? `${prefix}${field}` : `${prefix}.${field}`;
}

/** Throws one error carrying the first issue's code and every issue in `details.errors`. */
export function throwIssues(issues: Issue[]): void {
  if (issues.length === 0) return;
  const [first] = issues;
  throw new DomainError(first.code, first.message, { field: first.field, errors: issues });
}
