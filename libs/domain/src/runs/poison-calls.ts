// When a run is quarantined: one rule for the worker (before a call's next attempt) and the API's
// reconciler (before it starts a run again).
import { DomainError, ErrorCode } from '../errors';

/** A model or tool call as the audit knows it, and how many of its attempts died in flight with their worker. */
export interface DiedCall {
  /** How the refusal names it: `the model call (turn 2)`, `a call of the run`. */
  what: string;
  died: number;
}

/**
 * A call whose attempts were in flight on `limit` workers that died (a heap exhausted by what the step
 * handles, a tool answer that crashes the process) would kill the next worker too, and the one after it:
 * in a fleet, every tenant's runs stop. Such a call is refused (RUN_QUARANTINED) and its run stopped,
 * instead of being tried again. Attempts that failed on their own (a 500, a timeout) do not count: their
 * worker lived. Null: the call may go ahead.
 */
export function quarantineOf({ what, died }: DiedCall, limit: number): DomainError | null {
  if (died < limit) return null;
  return new DomainError(
    ErrorCode.RunQuarantined,
    `${ErrorCode.RunQuarantined}: ${what} was in flight on ${died} workers that died (POISON_ATTEMPTS_LIMIT is ${limit}); the run is stopped instead of trying it on another`,
    { died_attempts: died, limit },
  );
}
