// User ids are compared exactly (the columns holding them are utf8mb4_bin), so `alice` and `Alice` are two
// users. Two such ids look like one person to whoever reads them, and a database on another collation
// would merge them again: a new id that only differs from an existing one in case, accents or width is
// refused, as is one the exact comparison itself cannot tell apart (trailing spaces: PAD SPACE).
import { DomainError, ErrorCode } from '../errors';

/** The longest user id the columns hold (VARCHAR(191), the utf8mb4 index limit of older servers). */
export const MAX_USER_ID_LENGTH = 191;

/** The form two ids share when they differ only in case, accents, width or Unicode normalisation. */
export function confusableForm(userId: string): string {
  // Upper then lower case folds what lower case alone does not (ß and SS, the Turkish dotted I's case pair).
  return userId.normalize('NFKD').replace(/\p{M}/gu, '').toUpperCase().toLowerCase().normalize('NFC');
}

/** Refuses an id that is empty, too long, padded with spaces or holding invisible characters. */
export function assertUserIdWellFormed(userId: string): void {
  if (userId.length === 0 || [...userId].length > MAX_USER_ID_LENGTH) {
    throw new DomainError(ErrorCode.ValidationFailed, `A user id is 1 to ${MAX_USER_ID_LENGTH} characters`, { field: 'user' });
  }
  if (/^\s|\s$/u.test(userId) || /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(userId)) {
    throw new DomainError(
      ErrorCode.ValidationFailed,
      'A user id neither starts nor ends with a space and holds no control or invisible characters',
      { field: 'user' },
    );
  }
}

/**
 * Refuses `userId` when it is new and an existing id has the same confusable form: `alice` while `Alice` or
 * `alicé` exists. An id that exists already exactly is fine (another key for the same user).
 */
export function assertUserIdDistinct(userId: string, existing: readonly string[]): void {
  if (existing.includes(userId)) return;
  const form = confusableForm(userId);
  for (const other of existing) {
    if (confusableForm(other) === form) {
      throw new DomainError(
        ErrorCode.UserIdConfusable,
        `User id "${userId}" differs from the existing user "${other}" only in case, accents or width: use "${other}" or an id of its own`,
        { field: 'user', existing: other },
      );
    }
  }
}
