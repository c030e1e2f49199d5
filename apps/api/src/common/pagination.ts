import { DomainError, ErrorCode } from '@app/domain';

export interface Pagination {
  limit: number;
  /** The next_cursor of the page before. */
  cursor?: string;
  /** For clients written before cursors; ignored with a cursor. */
  offset?: number;
}

function integerParam(value: unknown, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new DomainError(ErrorCode.ValidationFailed, `${field} must be an integer from ${min} to ${max}`, { field });
  }
  return number;
}

export function paginationOf(query: Record<string, unknown>): Pagination {
  const cursor = queryParam(query, 'cursor');
  if (cursor !== undefined && !/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) {
    throw new DomainError(ErrorCode.ValidationFailed, 'cursor must be the next_cursor of a page', { field: 'cursor' });
  }
  return {
    limit: integerParam(queryParam(query, 'limit'), 'limit', 50, 1, 200),
    offset: integerParam(queryParam(query, 'offset'), 'offset', 0, 0, 1_000_000),
    ...(cursor ? { cursor } : {}),
  };
}

/** A query parameter given once (`?status=a&status=b` is a 422 naming it, not a list). */
export function queryParam(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new DomainError(ErrorCode.ValidationFailed, `${name} must be given once, as text`, { field: name });
  return value;
}
