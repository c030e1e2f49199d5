// Lists page by cursor: newest first, ordered by (time, uuid), the cursor naming the last row shown, so a
// page is the same whatever rows arrive meanwhile (an offset would shift under new runs and show one twice).
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { DomainError, ErrorCode } from '@app/domain';

export interface PageRequest {
  limit: number;
  /** The `next_cursor` of the page before. */
  cursor?: string;
  /** Kept for clients written before cursors: rows to skip, ignored when a cursor is given. */
  offset?: number;
}

/** Every list's shape: the rows, how many match in all, and the cursor of the next page (null: last page). */
export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  next_cursor: string | null;
}

interface Position {
  at: Date;
  uuid: string;
}

const encode = ({ at, uuid }: Position) => Buffer.from(`${at.toISOString()}|${uuid}`).toString('base64url');

function decode(cursor: string): Position {
  const [iso, uuid] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const at = new Date(iso ?? '');
  if (!uuid || !/^[0-9a-f-]{36}$/.test(uuid) || Number.isNaN(at.getTime())) {
    throw new DomainError(ErrorCode.ValidationFailed, 'cursor is not a next_cursor this API gave', { field: 'cursor' });
  }
  return { at, uuid };
}

/**
 * One page of `query` (its filters set, alias `row`), newest first by `timeColumn` then uuid. The total
 * counts every row the filters match.
 */
export async function pageOf<T extends ObjectLiteral & { uuid: string }>(
  query: SelectQueryBuilder<T>,
  timeColumn: keyof T & string,
  request: PageRequest,
): Promise<Page<T>> {
  const total = await query.clone().getCount();
  if (request.cursor) {
    const after = decode(request.cursor);
    query.andWhere(`(row.${timeColumn} < :after_at OR (row.${timeColumn} = :after_at AND row.uuid < :after_uuid))`, {
      after_at: after.at,
      after_uuid: after.uuid,
    });
  } else if (request.offset) {
    query.skip(request.offset);
  }
  // One row more than asked says whether another page follows.
  const rows = await query
    .orderBy(`row.${timeColumn}`, 'DESC')
    .addOrderBy('row.uuid', 'DESC')
    .take(request.limit + 1)
    .getMany();
  const items = rows.slice(0, request.limit);
  const last = items[items.length - 1];
  return {
    items,
    total,
    limit: request.limit,
    next_cursor: rows.length > request.limit ? encode({ at: last[timeColumn] as Date, uuid: last.uuid }) : null,
  };
}
