import { DomainError } from '@app/domain';
import { paginationOf } from './pagination';

describe(paginationOf.name, () => {
  it('defaults to the first 50', () => expect(paginationOf({})).toEqual({ limit: 50, offset: 0 }));

  it('reads query strings as integers', () => expect(paginationOf({ limit: '10', offset: '20' })).toEqual({ limit: 10, offset: 20 }));

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '201' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: '1.5' }, 'limit'],
    [{ offset: '-1' }, 'offset'],
  ])('refuses %p naming the field', (query, field) => {
    expect(() => paginationOf(query)).toThrow(DomainError);
    expect(() => paginationOf(query)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', details: { field } }));
  });
});
