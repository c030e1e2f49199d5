import { DomainError } from './errors';

/** For specs: the DomainError `fn` throws (anything else is rethrown, and not throwing fails). */
export function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}
