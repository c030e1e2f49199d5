import { DomainError, ErrorCode } from '@app/domain';

export interface Pagination {
  limit: number;
  offset: number;
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
  return { limit: integerParam(query.limit, 'limit', 50, 1, 200), offset: integerParam(query.offset, 'offset', 0, 0, 1_000_000) };
}
