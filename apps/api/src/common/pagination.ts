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
  const cursor = query.cursor;
  if (cursor !== undefined && (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(cursor))) {
    throw new DomainError(ErrorCode.ValidationFailed, 'cursor must be the next_cursor of a page', { field: 'cursor' });
  }
  return { limit: integerParam(query.limit, 'limit', 50, 1, 200), offset: integerParam(query.offset, 'offset', 0, 0, 1_000_000), ...(cursor ? { cursor } : {}) };
}
